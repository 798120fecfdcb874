"""The one UPDATE the event log allows: the maintainer redacting a message's text (LGPD retention).

Events stay append-only (tenancy.db.append_only): DELETE/TRUNCATE as before, and every UPDATE is
refused except one that, acting as a member of `agent_maintainer` (the purge window), sets the
payload's `text` to the marker "[redacted]" (tenancy.retention.REDACTED) and changes nothing else —
no other payload key, no other column. So the maintainer can erase what a user typed, but can
neither rewrite it nor touch an id, a type, a sequence number or a timestamp; the application's
own role (agent_app, the runtime role) still cannot change an event at all.

PostgreSQL: the UPDATE half of the table's row trigger moves to a function of its own; the DELETE
half keeps `agent_append_only` under the trigger name `<table>_append_only` (the start-up role
check looks for that name). SQLite: the table's UPDATE trigger makes the same exception while a
purge window is open in the transaction (tenancy.db.purge_window).
"""

from django.db import migrations

TABLE = "events_conversationevent"
MARKER = "[redacted]"  # frozen here: a different marker later is a new migration
COLUMNS = ["id", "tenant_id", "conversation_id", "seq", "type", "operation_id", "actor", "state_version",
           "timestamp"]

PG_FORWARDS = f"""
CREATE OR REPLACE FUNCTION {TABLE}_redact_only() RETURNS trigger AS $$
DECLARE
    probe {TABLE}%ROWTYPE;
BEGIN
    IF pg_has_role(current_user, 'agent_maintainer', 'MEMBER') AND OLD.payload ? 'text' THEN
        probe := NEW;
        probe.payload := OLD.payload;
        IF probe IS NOT DISTINCT FROM OLD
           AND NEW.payload = jsonb_set(OLD.payload, '{{text}}', to_jsonb('{MARKER}'::text)) THEN
            RETURN NEW;
        END IF;
    END IF;
    RAISE EXCEPTION 'append-only table %: % refused', TG_TABLE_NAME, TG_OP USING ERRCODE = 'restrict_violation';
END
$$ LANGUAGE plpgsql;

DROP TRIGGER IF EXISTS {TABLE}_append_only ON {TABLE};
CREATE TRIGGER {TABLE}_append_only BEFORE DELETE ON {TABLE}
    FOR EACH ROW EXECUTE FUNCTION agent_append_only();
DROP TRIGGER IF EXISTS {TABLE}_redact_only ON {TABLE};
CREATE TRIGGER {TABLE}_redact_only BEFORE UPDATE ON {TABLE}
    FOR EACH ROW EXECUTE FUNCTION {TABLE}_redact_only();
"""

PG_BACKWARDS = f"""
DROP TRIGGER IF EXISTS {TABLE}_redact_only ON {TABLE};
DROP FUNCTION IF EXISTS {TABLE}_redact_only();
DROP TRIGGER IF EXISTS {TABLE}_append_only ON {TABLE};
CREATE TRIGGER {TABLE}_append_only BEFORE UPDATE OR DELETE ON {TABLE}
    FOR EACH ROW EXECUTE FUNCTION agent_append_only();
"""

_SAME_COLUMNS = " AND ".join(f'NEW."{c}" IS OLD."{c}"' for c in COLUMNS)
SQLITE_FORWARDS = [
    f"DROP TRIGGER IF EXISTS {TABLE}_no_update",
    f"CREATE TRIGGER {TABLE}_no_update BEFORE UPDATE ON {TABLE} "
    f"WHEN NOT ((SELECT COUNT(*) FROM agent_purge_window) > 0 "
    f"AND json_type(OLD.payload, '$.text') IS NOT NULL AND {_SAME_COLUMNS} "
    f"AND json(NEW.payload) = json_set(OLD.payload, '$.text', '{MARKER}')) "
    f"BEGIN SELECT RAISE(ABORT, 'append-only table {TABLE}: UPDATE refused'); END;",
]
SQLITE_BACKWARDS = [
    f"DROP TRIGGER IF EXISTS {TABLE}_no_update",
    f"CREATE TRIGGER {TABLE}_no_update BEFORE UPDATE ON {TABLE} "
    f"BEGIN SELECT RAISE(ABORT, 'append-only table {TABLE}: UPDATE refused'); END;",
]


def _run(pg: str, sqlite: list[str]):
    def run(apps, schema_editor) -> None:
        vendor = schema_editor.connection.vendor
        if vendor == "postgresql":
            schema_editor.execute(pg, params=None)
        elif vendor == "sqlite":
            for statement in sqlite:
                schema_editor.execute(statement)
        else:  # pragma: no cover - only the two supported databases
            raise RuntimeError(f"event redaction trigger not implemented for {vendor}")

    return run


class Migration(migrations.Migration):
    dependencies = [("events", "0004_runtime_pause_replan_types"), ("tenancy", "0002_runtime_role")]

    operations = [migrations.RunPython(_run(PG_FORWARDS, SQLITE_FORWARDS), _run(PG_BACKWARDS, SQLITE_BACKWARDS))]
