"""Database-level guards shared by every app: append-only tables.

Invariant 11 (events, receipts, approvals, audit are append-only) must hold against raw SQL,
`QuerySet.update()` and TRUNCATE, not only the ORM's save(), so it is a trigger — and one the
application connection cannot switch off: no session setting opens it. UPDATE is always refused.
DELETE and TRUNCATE are allowed only to members of the `agent_maintainer` role (retention jobs,
deleting a whole tenant, the test harness connecting as the cluster owner). In production the
application logs in as a role that is not a member (e.g. `agent_app`, created here without login),
so it can neither change nor remove these rows, nor grant itself the role.

SQLite (the embedded default, for demos) has no roles: there the tables refuse UPDATE always and
DELETE unless `purge_window()` is open in the same transaction (deleting a test world or a demo
tenant). SQLite has one writer at a time and the window row never commits, so no other
connection can use it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, migrations, transaction

MAINTAINER_ROLE = "agent_maintainer"
APP_ROLE = "agent_app"

_PG_ROLES = f"""
DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{MAINTAINER_ROLE}') THEN
        CREATE ROLE {MAINTAINER_ROLE} NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{APP_ROLE}') THEN
        CREATE ROLE {APP_ROLE} NOLOGIN;
    END IF;
END $$;
"""

_PG_FUNCTION = f"""
CREATE OR REPLACE FUNCTION agent_append_only() RETURNS trigger AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'TRUNCATE') AND pg_has_role(current_user, '{MAINTAINER_ROLE}', 'MEMBER') THEN
        RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NULL END;
    END IF;
    RAISE EXCEPTION 'append-only table %: % refused', TG_TABLE_NAME, TG_OP USING ERRCODE = 'restrict_violation';
END
$$ LANGUAGE plpgsql;
"""


def _pg_sql(table: str) -> str:
    return (
        f"{_PG_ROLES}\n{_PG_FUNCTION}\n"
        f"DROP TRIGGER IF EXISTS {table}_append_only ON {table};\n"
        f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
        f"FOR EACH ROW EXECUTE FUNCTION agent_append_only();\n"
        f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {table};\n"
        f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION agent_append_only();\n"
        f"GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON {table} TO {APP_ROLE};"
    )


def _sqlite_sql(table: str) -> list[str]:
    return [
        "CREATE TABLE IF NOT EXISTS agent_purge_window (opened INTEGER)",
        f"CREATE TRIGGER IF NOT EXISTS {table}_no_update BEFORE UPDATE ON {table} "
        f"BEGIN SELECT RAISE(ABORT, 'append-only table {table}: UPDATE refused'); END;",
        f"CREATE TRIGGER IF NOT EXISTS {table}_no_delete BEFORE DELETE ON {table} "
        f"WHEN (SELECT COUNT(*) FROM agent_purge_window) = 0 "
        f"BEGIN SELECT RAISE(ABORT, 'append-only table {table}: DELETE refused'); END;",
    ]


def append_only(table: str) -> migrations.RunPython:
    """A migration operation installing the append-only triggers on `table` for the current vendor.

    The app role is granted every privilege on the table on purpose: what stops it is the trigger,
    and the attack tests (`as_app_role`) prove it.
    """

    def forwards(apps, schema_editor) -> None:
        vendor = schema_editor.connection.vendor
        if vendor == "postgresql":
            schema_editor.execute(_pg_sql(table), params=None)
        elif vendor == "sqlite":
            for statement in _sqlite_sql(table):
                schema_editor.execute(statement)
        else:  # pragma: no cover - only the two supported databases
            raise RuntimeError(f"append-only trigger not implemented for {vendor}")

    return migrations.RunPython(forwards, migrations.RunPython.noop)


@contextmanager
def purge_window() -> Iterator[None]:
    """Within one transaction, let DELETE through on SQLite's append-only tables. On PostgreSQL it
    changes nothing: there only a maintainer role may delete."""
    with transaction.atomic():
        if connection.vendor != "sqlite":
            yield
            return
        with connection.cursor() as cursor:
            cursor.execute("INSERT INTO agent_purge_window (opened) VALUES (1)")
        try:
            yield
        finally:
            with connection.cursor() as cursor:
                cursor.execute("DELETE FROM agent_purge_window")
