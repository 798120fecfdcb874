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

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from django.db import connection, migrations, transaction
from django.db.models import Model, QuerySet
from django.db.models.sql import InsertQuery, UpdateQuery

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


# --- several writes, one round trip ------------------------------------------------------------


def write_in_one_statement(*groups: Sequence[Model], then: tuple[str, list[Any]] | None = None) -> int | None:
    """Insert rows of several models — each group one model, ids already set — in one statement.

    Written by hand because Django has no multi-table write: on PostgreSQL each group's INSERT
    (compiled by Django itself, so columns, defaults and JSON adaptation stay the model's) becomes
    a data-modifying CTE of one statement; `then` is an optional final statement (e.g. an UPDATE)
    whose row count is returned. Elsewhere (SQLite) the same rows are written one group at a time.
    An auto-increment id left unset is left to the database, as bulk_create does.
    """
    groups = tuple(group for group in groups if group)
    for group in groups:
        for obj in group:  # written from here on, as if saved: a later save() updates
            obj._state.adding, obj._state.db = False, connection.alias
    if connection.vendor != "postgresql":
        for group in groups:
            type(group[0]).objects.bulk_create(list(group))
        if then is None:
            return None
        with connection.cursor() as cursor:
            cursor.execute(*then)
            return cursor.rowcount
    parts = [_insert_sql(group) for group in groups]
    if then is not None:
        parts.append(then)
    *ctes, (final_sql, final_params) = parts
    sql = (f"WITH {', '.join(f'w{i} AS ({part})' for i, (part, _) in enumerate(ctes))} {final_sql}"
           if ctes else final_sql)
    params = [p for _, part_params in ctes for p in part_params] + list(final_params)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount if then is not None else None


def _insert_sql(group: Sequence[Model]) -> tuple[str, list[Any]]:
    model = type(group[0])
    opts = model._meta
    fields = [f for f in opts.concrete_fields
              if not (f is opts.auto_field and getattr(group[0], f.attname) is None)]
    query = InsertQuery(model)
    query.insert_values(fields, list(group))
    [(sql, params)] = query.get_compiler(connection=connection).as_sql()
    return sql, list(params)


def update_sql(queryset: QuerySet, **values: Any) -> tuple[str, list[Any]]:
    """The UPDATE `queryset.update(**values)` would run, as (sql, params), for `write_in_one_statement`."""
    query = queryset.query.chain(UpdateQuery)
    query.add_update_values(values)
    sql, params = query.get_compiler(connection=connection).as_sql()
    return sql, list(params)
