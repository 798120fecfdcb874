"""Database-level guards shared by every app: append-only tables.

Invariant 11 (events, receipts, approvals, audit are append-only) must hold against raw SQL and
`QuerySet.update()`, not only the ORM's save(), so it is a trigger. The only way to remove rows
is `purge_allowed()`, an explicit, transaction-local switch for retention and for deleting a
whole tenant; UPDATE is never allowed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, migrations, transaction

_PG_FUNCTION = """
CREATE OR REPLACE FUNCTION agent_append_only() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'DELETE' AND current_setting('agent.allow_purge', true) = 'on' THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'append-only table %: % refused', TG_TABLE_NAME, TG_OP USING ERRCODE = 'restrict_violation';
END
$$ LANGUAGE plpgsql;
"""


def _pg_sql(table: str) -> str:
    return (
        f"{_PG_FUNCTION}\nDROP TRIGGER IF EXISTS {table}_append_only ON {table};\n"
        f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
        f"FOR EACH ROW EXECUTE FUNCTION agent_append_only();"
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
    """A migration operation installing the append-only trigger on `table` for the current vendor."""

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
def purge_allowed() -> Iterator[None]:
    """Within one transaction, allow DELETE (never UPDATE) on append-only tables."""
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL agent.allow_purge = 'on'")
            yield
        else:
            # SQLite has one writer at a time and the row never commits: the window is this transaction's.
            cursor.execute("INSERT INTO agent_purge_window (opened) VALUES (1)")
            try:
                yield
            finally:
                cursor.execute("DELETE FROM agent_purge_window")
