"""The hot path's hand-written SQL helpers: the execution row lock, the step-run columns, and
building StepRun models from rows a hand-written statement returned.

On PostgreSQL the engine writes a step's claim, record and dispatch as single statements (CTEs);
the ORM path (SQLite, or inside a caller's transaction) writes the same rows and stays the
yardstick. `fast_sql()` is the one switch between them: callers read it through this module
(`rows.fast_sql()`) so a test can flip every path at once.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from django.db import connection

from planning.models import PlanStep
from planning.selectors import stored_steps

from .models import Execution, StepRun


def fast_sql() -> bool:
    """PostgreSQL: the hot path's writes as single statements (CTEs); the ORM path (SQLite) writes the same rows."""
    return connection.vendor == "postgresql"


def plan_steps_cached(tenant_id: Any, plan_id: Any) -> dict[str, PlanStep]:
    """A plan's steps by id, as planning keeps them per process (they never change once stored)."""
    return {s.step_id: s for s in stored_steps.get(tenant_id, plan_id)}


plan_steps_cached.cache_clear = stored_steps.cache_clear  # type: ignore[attr-defined]


RUN_FIELDS = tuple(StepRun._meta.concrete_fields)
# What `advance` reads of every step run: not the payloads, which it would decode for nothing at each step.
RUN_PAYLOADS = ("result", "input", "compensation")
RUN_STATE_FIELDS = tuple(f for f in RUN_FIELDS if f.name not in RUN_PAYLOADS)


def run_columns(alias: str = "", fields: tuple = RUN_FIELDS) -> str:
    return ", ".join(f'{alias}{"." if alias else ""}"{f.column}"' for f in fields)


def fetch_runs(sql: str, params: Mapping[str, Any], fields: tuple = RUN_FIELDS) -> list[tuple[StepRun, tuple]]:
    """A hand-written statement returning step-run rows (`run_columns(fields=…)`, then any other
    columns): (the model, built as the ORM builds it — fields not selected are deferred, as with
    `.defer()` —, the other columns as they came)."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    names = [f.attname for f in fields]
    json_at = [i for i, f in enumerate(fields) if f.get_internal_type() == "JSONField"]
    runs = []
    for row in rows:
        values = list(row[:len(fields)])
        for i in json_at:
            values[i] = None if values[i] is None else json.loads(values[i])
        runs.append((StepRun.from_db(connection.alias, names, values), row[len(fields):]))
    return runs


def step_runs(execution: Execution) -> dict[str, StepRun]:
    """The execution's step runs by step id, in plan order, without their payloads."""
    return {r.step_id: r for r in StepRun.objects.for_tenant(execution.tenant_id).filter(execution=execution)
            .defer(*RUN_PAYLOADS).order_by("position")}


def json_param(value: Any) -> str | None:
    return None if value is None else json.dumps(value)


LOCK_FIELDS = ("status", "needs_review", "finished_at", "error")
_LOCK_SQL = (f"SELECT {', '.join(LOCK_FIELDS)} FROM {Execution._meta.db_table} WHERE id = %s AND tenant_id = %s "
             "FOR UPDATE")


def locked(execution_id: Any, *, like: Execution | None = None) -> Execution | None:
    """The execution row FOR UPDATE. With `like` (the caller's copy, relations loaded): only its
    changing columns are read, into `like`, which is returned."""
    if like is None:
        return (Execution.objects.all_tenants().select_for_update(of=("self",)).select_related("plan", "tenant")
                .filter(pk=execution_id).first())
    if fast_sql():
        with connection.cursor() as cursor:
            cursor.execute(_LOCK_SQL, [like.pk, like.tenant_id])
            row = cursor.fetchone()
        if row is not None:
            row = (*row[:3], None if row[3] is None else json.loads(row[3]))
    else:
        row = (Execution.objects.for_tenant(like.tenant_id).select_for_update().filter(pk=like.pk)
               .values_list(*LOCK_FIELDS).first())
    if row is None:
        return None
    for name, value in zip(LOCK_FIELDS, row, strict=True):
        setattr(like, name, value)
    return like
