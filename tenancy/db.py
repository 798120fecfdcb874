"""Database-level guards shared by every app: append-only tables.

Invariant 11 (events, receipts, approvals, audit are append-only) must hold against raw SQL,
`QuerySet.update()` and TRUNCATE, not only the ORM's save(), so it is a trigger — and one the
application connection cannot switch off: no session setting opens it. UPDATE is always refused.
DELETE and TRUNCATE are allowed only to members of the `agent_maintainer` role (retention jobs,
deleting a whole tenant, the test harness connecting as the cluster owner). The application's own
connections act as `settings.DATABASE_RUNTIME_ROLE` (default `agent_runtime`: a member of `agent_app`,
neither a superuser nor a maintainer, and not the tables' owner), so they can neither change nor
remove these rows, nor switch the trigger off. `check_runtime_role` refuses to serve otherwise.
`migrate` and `flush` act as the login instead (`owner_session`); a purge switches to the maintainer
role for its transaction (`purge_window`), which only a login that is a member of it may do.

SQLite (the embedded default, for demos) has no roles: there the tables refuse UPDATE always and
DELETE unless `purge_window()` is open in the same transaction (deleting a test world or a demo
tenant). SQLite has one writer at a time and the window row never commits, so no other
connection can use it.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from functools import lru_cache
from typing import Any

from django.db import connection, connections, migrations, models, transaction
from django.db.models import Model

MAINTAINER_ROLE = "agent_maintainer"
APP_ROLE = "agent_app"
RUNTIME_ROLE = "agent_runtime"  # DATABASE_RUNTIME_ROLE's default

# Roles are cluster-wide, so two test databases migrating at once (xdist) race on them: the
# EXCEPTION arm makes the loser's CREATE a no-op instead of a unique violation on pg_authid.
_PG_ROLES = f"""
DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{MAINTAINER_ROLE}') THEN
        BEGIN CREATE ROLE {MAINTAINER_ROLE} NOLOGIN;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{APP_ROLE}') THEN
        BEGIN CREATE ROLE {APP_ROLE} NOLOGIN;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END;
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
    """Within one transaction, let DELETE through on the append-only tables (deleting a tenant).

    PostgreSQL: the transaction acts as `agent_maintainer` (SET LOCAL ROLE), then as before. Only a
    login that is a member of the maintainer role may switch to it — the development login (the
    cluster owner) or a maintainer job's; an application logging in as its runtime role gets
    "permission denied". SQLite: a window row the triggers look for, never committed."""
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT current_user")
                acting = cursor.fetchone()[0]
                cursor.execute(f"SET LOCAL ROLE {MAINTAINER_ROLE}")
            yield
            with connection.cursor() as cursor:  # not on an error: the rollback restores the role
                cursor.execute(f'SET LOCAL ROLE "{acting}"')
            return
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


# --- the runtime role and the owner ------------------------------------------------------------

_as_owner = False


def act_as_owner(on: bool) -> None:
    """Connections opened from now on log in as the login role itself (`on`) or act as
    DATABASE_RUNTIME_ROLE (the `role` startup option in the connection's OPTIONS); open ones switch
    with SET ROLE. Process-wide: the test harness creates and drops the test database as the owner
    and runs the tests as the runtime role (conftest.py)."""
    global _as_owner
    from django.conf import settings

    if on == _as_owner:
        return
    _as_owner = on
    role = getattr(settings, "DATABASE_RUNTIME_ROLE", "")
    if not role:
        return
    token = f"-c role={role}"
    holders = [settings.DATABASES.get(alias, {}) for alias in settings.DATABASES]
    holders += [conn.settings_dict for conn in connections.all(initialized_only=True)]
    for holder in {id(h): h for h in holders}.values():
        if not str(holder.get("ENGINE", "")).endswith("postgresql"):
            continue
        options = holder.setdefault("OPTIONS", {})
        rest = " ".join(options.get("options", "").replace(token, "").split())
        options["options"] = rest if on else f"{rest} {token}".strip()
        if not options["options"]:
            del options["options"]
    for conn in connections.all(initialized_only=True):
        if conn.vendor == "postgresql" and conn.connection is not None and not conn.needs_rollback:
            with conn.cursor() as cursor:
                cursor.execute("SET ROLE NONE" if on else f"SET ROLE {role}")


@contextmanager
def owner_session() -> Iterator[None]:
    """`migrate` and `flush` (tenancy/management/commands): DDL, TRUNCATE of every table — the
    login's rights (the owner's), not the runtime role's. Everything else runs as the runtime role."""
    previous = _as_owner
    act_as_owner(True)
    try:
        yield
    finally:
        act_as_owner(previous)


_RUNTIME_ROLE_SQL = f"""
SELECT current_user, r.rolsuper,
       CASE WHEN EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{MAINTAINER_ROLE}')
            THEN pg_has_role(current_user, '{MAINTAINER_ROLE}', 'MEMBER') ELSE false END,
       (SELECT string_agg(DISTINCT c.relname, ', ') FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
         WHERE t.tgname LIKE '%%\\_append\\_only' AND pg_has_role(current_user, c.relowner, 'MEMBER'))
  FROM pg_roles r WHERE r.rolname = current_user
"""


def runtime_role_problem(cursor: Any) -> str | None:
    """Why the role this cursor acts as could delete or truncate an append-only row, or None."""
    cursor.execute(_RUNTIME_ROLE_SQL)
    role, superuser, maintainer, owned = cursor.fetchone()
    why = ("it is a superuser" if superuser else f"it is a member of {MAINTAINER_ROLE}" if maintainer
           else f"it owns append-only tables ({owned}) and could drop their triggers" if owned else None)
    if why is None:
        return None
    return (f"DATABASE_RUNTIME_ROLE: the application's database role {role!r} could delete or truncate "
            f"audit rows and policy receipts: {why}. Set DATABASE_RUNTIME_ROLE to a role that is only a "
            f"member of {APP_ROLE} (default {RUNTIME_ROLE}, created by scripts/ensure_database.py), "
            f"or log in as one in DATABASE_URL with DATABASE_RUNTIME_ROLE=none (README: database roles).")


def check_runtime_role() -> tuple[str, str] | None:
    """('error' | 'skipped', reason), or None when the runtime role cannot delete an audit row.

    On a connection of its own (no pool, the runtime role's startup option), so the caller's
    connection and transaction are untouched."""
    from django.conf import settings

    default = connections["default"]
    if default.vendor != "postgresql":
        return ("skipped", f"{default.vendor} has no database roles: the append-only triggers refuse "
                           "UPDATE and DELETE to every connection outside a purge window")
    if _as_owner:
        return None  # migrate / flush: the owner's work, not the runtime's
    probe = default.copy()
    probe.settings_dict["OPTIONS"].pop("pool", None)
    probe.settings_dict["OPTIONS"]["connect_timeout"] = 5
    probe.settings_dict["CONN_MAX_AGE"] = 0
    try:
        with probe.cursor() as cursor:
            problem = runtime_role_problem(cursor)
    except Exception as exc:  # noqa: BLE001 - unreachable: the server reports it on its first query
        role = getattr(settings, "DATABASE_RUNTIME_ROLE", "")
        if role and f'"{role}"' in str(exc) and "role" in str(exc):
            return ("error", f"DATABASE_RUNTIME_ROLE: the role {role!r} does not exist on the database "
                             f"server ({str(exc).strip()}); scripts/ensure_database.py creates it.")
        return ("skipped", f"the database could not be reached ({str(exc).strip()[:200]})")
    finally:
        probe.close()
    return ("error", problem) if problem else None


def refuse_to_serve_as_a_deleting_role() -> None:
    """A server or worker process's start: ImproperlyConfigured when the runtime role could delete."""
    from django.core.exceptions import ImproperlyConfigured

    verdict = check_runtime_role()
    if verdict and verdict[0] == "error":
        raise ImproperlyConfigured(verdict[1])


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
    pending = getattr(_coalescing, "pending", None)
    if pending is not None and then is None:
        for group, (sql, params) in zip(groups, parts, strict=True):
            pending.add(sql, params, type(group[0])._meta.db_table)
        return None
    if then is not None:
        parts.append(then)
    *ctes, (final_sql, final_params) = parts
    sql = (f"WITH {', '.join(f'w{i} AS ({part})' for i, (part, _) in enumerate(ctes))} {final_sql}"
           if ctes else final_sql)
    params = [p for _, part_params in ctes for p in part_params] + list(final_params)
    # A final UPDATE/INSERT/DELETE without RETURNING may carry the queue's checks (`defer_write`).
    checkable = then is not None and then[0].lstrip()[:6].upper() in ("UPDATE", "INSERT", "DELETE") \
        and "RETURNING" not in then[0].upper()
    with connection.cursor() as cursor, _checks_carried_by(checkable):
        cursor.execute(sql, params)
        return cursor.rowcount if then is not None else None


def insert_one(obj: Model) -> Model:
    """`obj.save(force_insert=True)` with the INSERT text built once per model (see _insert_sql);
    an id left to the database is read back (RETURNING) and set on `obj`."""
    if connection.vendor != "postgresql":
        obj.save(force_insert=True)
        return obj
    sql, params = _insert_sql([obj])
    pk = obj._meta.pk
    with connection.cursor() as cursor:
        if getattr(obj, pk.attname) is None:
            cursor.execute(f"{sql} RETURNING {connection.ops.quote_name(pk.column)}", params)
            setattr(obj, pk.attname, cursor.fetchone()[0])
        else:
            cursor.execute(sql, params)
    obj._state.adding, obj._state.db = False, connection.alias
    return obj


def _insert_sql(group: Sequence[Model]) -> tuple[str, list[Any]]:
    """The INSERT Django would send for these rows, with each value prepared by its field as Django
    does (pre_save, get_db_prep_save) but the SQL text built once per model (compiling it per call
    cost more than the round trip it saves)."""
    model = type(group[0])
    fields, head, row = _insert_template(model, getattr(group[0], model._meta.pk.attname) is None)
    db = connections[connection.alias]  # the wrapper itself: each field reads it several times
    params = []
    for obj in group:
        for field, auto, ready in fields:
            value = field.pre_save(obj, True) if auto else getattr(obj, field.attname)
            # A value already of the exact type the field would turn it into goes as it is.
            as_is = (value is None and bool(ready)) or (type(value) in ready and _aware(value))
            params.append(value if as_is else field.get_db_prep_save(value, db))
    return head + ", ".join([row] * len(group)), params


def _aware(value: Any) -> bool:
    return not isinstance(value, datetime) or value.tzinfo is not None


@lru_cache(maxsize=256)
def _insert_template(model: type[Model], auto_unset: bool) -> tuple[list[tuple[Any, bool, tuple]], str, str]:
    """(field, whether its value comes from pre_save, the value types it sends unchanged) per
    column — a plain field's pre_save only reads the attribute; auto_now/auto_now_add ones set it —
    then the INSERT's head and row."""
    opts = model._meta
    fields = [f for f in opts.concrete_fields if not (auto_unset and f is opts.auto_field)]
    quote = connection.ops.quote_name
    head = f"INSERT INTO {quote(opts.db_table)} ({', '.join(quote(f.column) for f in fields)}) VALUES "
    return ([(f, _custom_pre_save(f), _ready_types(f)) for f in fields], head,
            "(" + ", ".join(["%s"] * len(fields)) + ")")


def _custom_pre_save(field: Any) -> bool:
    return type(field).pre_save is not models.Field.pre_save


# Fields whose get_db_prep_save returns a value of these exact types unchanged on PostgreSQL (an
# aware datetime included: adapt_datetimefield_value passes it through). Anything else — another
# type, a JSON field, a subclass with its own conversion — goes through the field as Django does.
_READY = {models.CharField: (str,), models.TextField: (str,), models.BooleanField: (bool,),
          models.IntegerField: (int,), models.BigIntegerField: (int,), models.PositiveIntegerField: (int,),
          models.PositiveBigIntegerField: (int,), models.SmallIntegerField: (int,),
          models.PositiveSmallIntegerField: (int,), models.AutoField: (int,), models.BigAutoField: (int,),
          models.UUIDField: (uuid.UUID,), models.DateTimeField: (datetime,)}


def _ready_types(field: Any) -> tuple:
    if isinstance(field, models.ForeignKey) and type(field) is models.ForeignKey:
        return _ready_types(field.target_field)
    return _READY.get(type(field), ())


def update_row_sql(model: type[Model], where: dict[str, Any], values: dict[str, Any],
                   increment: tuple[str, ...] = ()) -> tuple[str, list[Any]]:
    """`UPDATE <table> SET <values>, <increment> = <increment> + 1 WHERE <where>` with the fields'
    own value preparation; the SQL text built once per shape (see _insert_sql)."""
    set_fields, where_fields, sql = _update_template(model, tuple(values), tuple(where), increment)
    db = connections[connection.alias]
    params = [f.get_db_prep_save(values[f.name], db) for f in set_fields]
    params += [f.get_db_prep_value(where[f.name], db, prepared=False) for f in where_fields]
    return sql, params


@lru_cache(maxsize=256)
def _update_template(model: type[Model], set_names: tuple[str, ...], where_names: tuple[str, ...],
                     increment: tuple[str, ...]) -> tuple[list[Any], list[Any], str]:
    opts = model._meta
    quote = connection.ops.quote_name
    set_fields = [opts.get_field(name) for name in set_names]
    where_fields = [opts.get_field(name) for name in where_names]
    assignments = [f"{quote(f.column)} = %s" for f in set_fields]
    assignments += [f"{quote(opts.get_field(name).column)} = {quote(opts.get_field(name).column)} + 1"
                    for name in increment]
    conditions = " AND ".join(f"{quote(f.column)} = %s" for f in where_fields)
    return set_fields, where_fields, f"UPDATE {quote(opts.db_table)} SET {', '.join(assignments)} WHERE {conditions}"


# --- coalesced writes -------------------------------------------------------------------------

_coalescing = threading.local()
_FLUSH_FIRST = ("SAVEPOINT", "RELEASE", "ROLLBACK")
_WRITES = ("INSERT", "UPDATE", "DELETE", "WITH")


class DeferredCheckFailed(RuntimeError):
    """A write queued by `defer_write(…, expect=code)` changed no row when it was sent (or its
    outcome could not be read): the transaction it belongs to must not commit. The caller rolls
    back and does the work again without deferring, where the write's outcome is known at once."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class _Pending:
    def __init__(self) -> None:
        self.parts: list[tuple[str, list[Any]]] = []
        self.tables: set[str] = set()
        self.checks: list[tuple[int, str]] = []  # (index in parts, code): must change exactly one row

    def add(self, sql: str, params: list[Any], table: str, expect: str | None = None) -> None:
        if expect:
            self.checks.append((len(self.parts), expect))
            sql = f"{sql} RETURNING 1"
        self.parts.append((sql, params))
        self.tables.add(table)

    def take(self) -> tuple[list[tuple[str, list[Any]]], list[tuple[int, str]]]:
        parts, checks = self.parts, self.checks
        self.parts, self.tables, self.checks = [], set(), []
        return parts, checks


@contextmanager
def coalesced_writes() -> Iterator[None]:
    """Inside one transaction, let writes that need no answer ride on the next statement that writes.

    Written by hand: Django sends every write as its own round trip and has no unit of work.
    Inside this block (PostgreSQL), `write_in_one_statement` without `then` and `update_row_deferred`
    queue their statement instead of sending it; the next INSERT/UPDATE/DELETE/WITH statement on
    the connection carries the queue as data-modifying CTEs in front of its own SQL (its result
    and row count stay its own). The queue is sent on its own first when the next statement
    mentions a queued table (a read must see the rows, a write to the same rows keeps its order) or
    is a savepoint command (a rollback to it must undo them), and at the end of the block. An
    exception discards the queue with the transaction it belonged to. Elsewhere: no-op.
    """
    if connection.vendor != "postgresql" or getattr(_coalescing, "pending", None) is not None:
        yield
        return
    pending = _Pending()
    _coalescing.pending = pending
    try:
        with connection.execute_wrapper(_carry(pending)):
            yield
            if pending.parts:
                with connection.cursor() as cursor:
                    _send_alone(pending, lambda sql, params: cursor.execute(sql, params), cursor)
    finally:
        _coalescing.pending = None


def defer_write(sql: str, params: list[Any], table: str, *, expect: str) -> bool:
    """Queue a write that must change exactly one row (an `UPDATE … WHERE` without RETURNING).

    True: queued inside `coalesced_writes` — the statement that carries it checks the row count
    too, and raises `DeferredCheckFailed(expect)` if it was not one. False: nothing queued (not
    coalescing); the caller sends the write itself and reads its row count."""
    pending = getattr(_coalescing, "pending", None)
    # An UPDATE queued with a queued write to its own table would not see that write's rows (the parts of
    # one statement share one snapshot): sent by the caller instead, after the queue (`_carry`).
    if pending is None or table in pending.tables:
        return False
    pending.add(sql, params, table, expect=expect)
    return True


@contextmanager
def _checks_carried_by(checkable: bool) -> Iterator[None]:
    previous = getattr(_coalescing, "checkable", False)
    _coalescing.checkable = checkable
    try:
        yield
    finally:
        _coalescing.checkable = previous


def _counts_sql(checks: list[tuple[int, str]]) -> str:
    return "ARRAY[" + ", ".join(f"(SELECT count(*) FROM _cw{i})" for i, _ in checks) + "]"


def _verify(checks: list[tuple[int, str]], row: Sequence[Any] | None) -> None:
    counts = row[0] if row else [None] * len(checks)
    for (_, code), count in zip(checks, counts, strict=True):
        if count != 1:
            raise DeferredCheckFailed(code)


def _send_alone(pending: _Pending, send: Any, cursor: Any) -> None:
    """Send the queue as a statement of its own: its last write as the main statement, or — when
    it holds checks — a SELECT of the checked row counts."""
    parts, checks = pending.take()
    if checks:
        send(*_with_ctes(parts, f"SELECT {_counts_sql(checks)}", []))
        _verify(checks, cursor.fetchone())
        return
    final_sql, final_params = parts.pop()
    send(*_with_ctes(parts, final_sql, final_params))


def _carry(pending: _Pending):
    def wrapper(execute, sql, params, many, context):
        if not pending.parts:
            return execute(sql, params, many, context)
        head = sql.lstrip()[:10].upper()
        # A SELECT of a function reads tables its text does not name, unless it names them in a comment.
        opaque = head.startswith("SELECT") and " FROM " not in sql.upper() and "/* reads " not in sql
        named = isinstance(params, Mapping)  # %(name)s parameters cannot follow positional ones
        alone = many or opaque or named or head.startswith(_FLUSH_FIRST) or any(t in sql for t in pending.tables)
        if not alone and not head.startswith(_WRITES):
            return execute(sql, params, many, context)
        if alone or (pending.checks and not getattr(_coalescing, "checkable", False)):
            _send_alone(pending, lambda q, p: execute(q, p, False, context), context["cursor"])
            return execute(sql, params, many, context)
        parts, checks = pending.take()
        if not checks:
            return execute(*_with_ctes(parts, sql, list(params or ())), False, context)
        # The carrier's RETURNING reports the checked counts; no row (it changed nothing): unknown.
        result = execute(*_with_ctes(parts, f"{sql} RETURNING {_counts_sql(checks)}", list(params or ())),
                         False, context)
        _verify(checks, context["cursor"].fetchone())
        return result
    return wrapper


def _with_ctes(parts: list[tuple[str, list[Any]]], sql: str, params: list[Any]) -> tuple[str, list[Any]]:
    if not parts:
        return sql, params
    ctes = ", ".join(f"_cw{i} AS ({part})" for i, (part, _) in enumerate(parts))
    body = sql.lstrip()
    body = f"WITH {ctes}, {body[4:].lstrip()}" if body[:4].upper() == "WITH" else f"WITH {ctes} {body}"
    return body, [p for _, part_params in parts for p in part_params] + list(params)


def update_row_deferred(model: type[Model], where: dict[str, Any], values: dict[str, Any]) -> None:
    """A plain `field = value … WHERE field = value` update for a caller that needs no row count:
    queued inside `coalesced_writes`, run now elsewhere."""
    sql, params = update_row_sql(model, where, values)
    pending = getattr(_coalescing, "pending", None)
    if pending is None or model._meta.db_table in pending.tables:  # see defer_write: it must see those rows
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
        return
    pending.add(sql, params, model._meta.db_table)


# --- reading rows without the ORM's query compiler --------------------------------------------


@lru_cache(maxsize=256)
def columns_sql(model: type[Model], alias: str) -> str:
    """`alias."col1", alias."col2", …` — every concrete column, in the order `instance_from_row` takes."""
    return ", ".join(f'{alias}."{f.column}"' for f in model._meta.concrete_fields)


def instance_from_row(model: type[Model], values: Sequence[Any]) -> Any:
    """A model instance from raw column values, through the fields' own database converters (JSON)."""
    attnames, converters = _row_reading(model)
    converted = list(values)
    if len(converted) != len(attnames):
        raise ValueError(f"{model.__name__}: {len(converted)} values for {len(attnames)} columns")
    db = connections[connection.alias]
    for index, convert in converters:
        if converted[index] is not None:
            converted[index] = convert(converted[index], None, db)
    return model.from_db(connection.alias, attnames, converted)


@lru_cache(maxsize=256)
def _row_reading(model: type[Model]) -> tuple[list[str], list[tuple[int, Any]]]:
    fields = model._meta.concrete_fields
    return ([f.attname for f in fields],
            [(i, f.from_db_value) for i, f in enumerate(fields) if hasattr(f, "from_db_value")])
