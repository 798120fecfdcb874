"""Database guards of the registry, for PostgreSQL and the embedded SQLite default.

- A capability version is inserted as DRAFT only; once it leaves DRAFT every column but `status` is
  frozen and the row cannot be deleted (a change is a new version that needs approval again).
- Status moves only along the lifecycle table, and reaches ACTIVE from PENDING_APPROVAL only with a
  technical and a business approval already recorded (by two people: a unique constraint).
- An approval is refused for a version that is not PENDING_APPROVAL or from the version's author.
- Approvals and status changes are append-only (tenancy.db.append_only).
- Every change that alters what the hot path may serve moves RegistryState.version in the same
  transaction. On PostgreSQL the number comes from a sequence, which a rollback does not give
  back, so a version number is never reused for another state; SQLite (single process, demos)
  uses max(version + 1, now in microseconds) for the same purpose.

Errors use SQLSTATE restrict_violation / RAISE(ABORT): Django raises IntegrityError for both.
"""

from django.db import migrations

from tenancy.db import append_only

LEGAL = [
    ("DRAFT", "PENDING_APPROVAL"), ("DRAFT", "RETIRED"),
    ("PENDING_APPROVAL", "ACTIVE"), ("PENDING_APPROVAL", "RETIRED"),
    ("ACTIVE", "SUSPENDED"), ("ACTIVE", "RETIRED"),
    ("SUSPENDED", "ACTIVE"), ("SUSPENDED", "RETIRED"),
]
BUMPED_TABLES = ["registry_capabilityversion", "registry_tenantcapabilityblock", "registry_resource",
                 "registry_resourcefallback"]
VERSION_TABLE = "registry_capabilityversion"
APPROVAL_TABLE = "registry_capabilityapproval"

_PG_LEGAL = ", ".join(f"('{a}', '{b}')" for a, b in LEGAL)

PG_SQL = f"""
CREATE SEQUENCE IF NOT EXISTS registry_version_seq;

CREATE OR REPLACE FUNCTION registry_bump_version() RETURNS trigger AS $$
BEGIN
    INSERT INTO registry_registrystate (id, version, changed_at)
    VALUES (1, nextval('registry_version_seq'), now())
    ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version, changed_at = EXCLUDED.changed_at;
    RETURN NULL;
END
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION registry_capabilityversion_guard() RETURNS trigger AS $$
DECLARE
    probe {VERSION_TABLE}%ROWTYPE;
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.status <> 'DRAFT' THEN
            RAISE EXCEPTION 'registry: a capability version is created as DRAFT, not %', NEW.status
                USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'DELETE' THEN
        IF OLD.status <> 'DRAFT' THEN
            RAISE EXCEPTION 'registry: a % capability version cannot be deleted (retire it)', OLD.status
                USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN OLD;
    END IF;
    IF OLD.status <> 'DRAFT' THEN
        probe := NEW;
        probe.status := OLD.status;
        IF probe IS DISTINCT FROM OLD THEN
            RAISE EXCEPTION 'registry: the definition of a % capability version is immutable (load a new version)',
                OLD.status USING ERRCODE = 'restrict_violation';
        END IF;
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status THEN
        IF (OLD.status, NEW.status) NOT IN ({_PG_LEGAL}) THEN
            RAISE EXCEPTION 'registry: illegal status transition % -> %', OLD.status, NEW.status
                USING ERRCODE = 'restrict_violation';
        END IF;
        IF OLD.status = 'PENDING_APPROVAL' AND NEW.status = 'ACTIVE' AND (
            SELECT count(DISTINCT a.kind) FROM {APPROVAL_TABLE} a
            WHERE a.capability_version_id = NEW.id AND a.approver_id IS DISTINCT FROM NEW.author_id
        ) < 2 THEN
            RAISE EXCEPTION 'registry: activation needs a technical and a business approval'
                USING ERRCODE = 'restrict_violation';
        END IF;
    END IF;
    RETURN NEW;
END
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION registry_approval_guard() RETURNS trigger AS $$
DECLARE
    target {VERSION_TABLE}%ROWTYPE;
BEGIN
    SELECT * INTO target FROM {VERSION_TABLE} WHERE id = NEW.capability_version_id;
    IF target.status <> 'PENDING_APPROVAL' THEN
        RAISE EXCEPTION 'registry: only a PENDING_APPROVAL version can be approved (it is %)', target.status
            USING ERRCODE = 'restrict_violation';
    END IF;
    IF target.author_id IS NOT NULL AND target.author_id = NEW.approver_id THEN
        RAISE EXCEPTION 'registry: the author of a version cannot approve it' USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NEW;
END
$$ LANGUAGE plpgsql;

DROP TRIGGER IF EXISTS {VERSION_TABLE}_guard ON {VERSION_TABLE};
CREATE TRIGGER {VERSION_TABLE}_guard BEFORE INSERT OR UPDATE OR DELETE ON {VERSION_TABLE}
    FOR EACH ROW EXECUTE FUNCTION registry_capabilityversion_guard();
DROP TRIGGER IF EXISTS {APPROVAL_TABLE}_guard ON {APPROVAL_TABLE};
CREATE TRIGGER {APPROVAL_TABLE}_guard BEFORE INSERT ON {APPROVAL_TABLE}
    FOR EACH ROW EXECUTE FUNCTION registry_approval_guard();
""" + "\n".join(
    f"DROP TRIGGER IF EXISTS {t}_bump ON {t};\n"
    f"CREATE TRIGGER {t}_bump AFTER INSERT OR UPDATE OR DELETE ON {t} "
    f"FOR EACH STATEMENT EXECUTE FUNCTION registry_bump_version();"
    for t in BUMPED_TABLES
) + """
INSERT INTO registry_registrystate (id, version, changed_at) VALUES (1, nextval('registry_version_seq'), now())
ON CONFLICT (id) DO NOTHING;
"""

_SQLITE_ENSURE = "INSERT OR IGNORE INTO registry_registrystate (id, version, changed_at) VALUES (1, 0, CURRENT_TIMESTAMP);"
_SQLITE_MOVE = (
    "UPDATE registry_registrystate SET version = max(version + 1, "
    "CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER)), changed_at = CURRENT_TIMESTAMP WHERE id = 1;"
)
_SQLITE_BUMP = f"{_SQLITE_ENSURE} {_SQLITE_MOVE}"
_SQLITE_LEGAL = ", ".join(f"'{a}>{b}'" for a, b in LEGAL)


def _sqlite_statements(frozen_columns: list[str]) -> list[str]:
    changed = " OR ".join(f"OLD.{c} IS NOT NEW.{c}" for c in frozen_columns)
    statements = [
        f"CREATE TRIGGER IF NOT EXISTS {VERSION_TABLE}_insert_draft BEFORE INSERT ON {VERSION_TABLE} "
        f"WHEN NEW.status <> 'DRAFT' BEGIN SELECT RAISE(ABORT, 'registry: a capability version is created as DRAFT'); END;",
        f"CREATE TRIGGER IF NOT EXISTS {VERSION_TABLE}_no_delete BEFORE DELETE ON {VERSION_TABLE} "
        f"WHEN OLD.status <> 'DRAFT' BEGIN SELECT RAISE(ABORT, 'registry: only a DRAFT version can be deleted'); END;",
        f"CREATE TRIGGER IF NOT EXISTS {VERSION_TABLE}_immutable BEFORE UPDATE ON {VERSION_TABLE} "
        f"WHEN OLD.status <> 'DRAFT' AND ({changed}) "
        f"BEGIN SELECT RAISE(ABORT, 'registry: the definition of an approved capability version is immutable'); END;",
        f"CREATE TRIGGER IF NOT EXISTS {VERSION_TABLE}_transition BEFORE UPDATE OF status ON {VERSION_TABLE} "
        f"WHEN NEW.status IS NOT OLD.status AND (OLD.status || '>' || NEW.status) NOT IN ({_SQLITE_LEGAL}) "
        f"BEGIN SELECT RAISE(ABORT, 'registry: illegal status transition'); END;",
        f"CREATE TRIGGER IF NOT EXISTS {VERSION_TABLE}_activation BEFORE UPDATE OF status ON {VERSION_TABLE} "
        f"WHEN OLD.status = 'PENDING_APPROVAL' AND NEW.status = 'ACTIVE' AND (SELECT count(DISTINCT a.kind) "
        f"FROM {APPROVAL_TABLE} a WHERE a.capability_version_id = NEW.id "
        f"AND a.approver_id IS NOT NEW.author_id) < 2 "
        f"BEGIN SELECT RAISE(ABORT, 'registry: activation needs a technical and a business approval'); END;",
        f"CREATE TRIGGER IF NOT EXISTS {APPROVAL_TABLE}_guard BEFORE INSERT ON {APPROVAL_TABLE} "
        f"WHEN (SELECT status FROM {VERSION_TABLE} WHERE id = NEW.capability_version_id) <> 'PENDING_APPROVAL' "
        f"OR (SELECT author_id FROM {VERSION_TABLE} WHERE id = NEW.capability_version_id) = NEW.approver_id "
        f"BEGIN SELECT RAISE(ABORT, 'registry: approval refused (not pending, or by the author)'); END;",
    ]
    for table in BUMPED_TABLES:
        for event in ("INSERT", "UPDATE", "DELETE"):
            statements.append(
                f"CREATE TRIGGER IF NOT EXISTS {table}_bump_{event.lower()} AFTER {event} ON {table} "
                f"BEGIN {_SQLITE_BUMP} END;"
            )
    statements += [_SQLITE_ENSURE, _SQLITE_MOVE]
    return statements


def forwards(apps, schema_editor) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(PG_SQL, params=None)
    elif vendor == "sqlite":
        model = apps.get_model("registry", "CapabilityVersion")
        columns = [f.column for f in model._meta.concrete_fields if f.name != "status"]
        for statement in _sqlite_statements(columns):
            schema_editor.execute(statement)
    else:  # pragma: no cover - only the two supported databases
        raise RuntimeError(f"registry guards not implemented for {vendor}")


class Migration(migrations.Migration):
    dependencies = [("registry", "0001_initial")]

    operations = [
        migrations.RunPython(forwards, migrations.RunPython.noop),
        append_only(APPROVAL_TABLE),
        append_only("registry_capabilitystatuschange"),
    ]
