from __future__ import annotations

import json
import threading
import uuid
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from django.db import connection
from django.db.models import JSONField

from tenancy.models import Tenant

from .models import ExecutionPlan, PlanStep


def plan_get(*, tenant: Tenant, plan_id: uuid.UUID | str) -> ExecutionPlan | None:
    return ExecutionPlan.objects.for_tenant(tenant).filter(pk=plan_id).first()


class _StoredSteps:
    """A plan's steps never change once stored (planning writes them once, with the plan), so each process
    reads them once — or not at all when it is the process that wrote them (`remember`). Callers get the
    kept PlanStep rows: read them, never change them. Bounded; the least recently used plan goes first.
    Written by hand: functools.lru_cache cannot be told a value it did not compute."""

    def __init__(self, maxsize: int = 512) -> None:
        self._kept: OrderedDict[tuple[str, str], tuple[PlanStep, ...]] = OrderedDict()
        self._max = maxsize
        self._lock = threading.Lock()

    def get(self, tenant_id: Any, plan_id: Any) -> tuple[PlanStep, ...]:
        key = (str(tenant_id), str(plan_id))
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
                return self._kept[key]
        rows = PlanStep.objects.for_tenant(tenant_id).filter(plan_id=plan_id).order_by("position")
        return self.remember(tenant_id, plan_id, rows)

    def remember(self, tenant_id: Any, plan_id: Any, steps: Iterable[PlanStep]) -> tuple[PlanStep, ...]:
        ordered = tuple(sorted(steps, key=lambda s: s.position))
        if not ordered:  # not stored (yet, or at all): nothing to keep
            return ordered
        with self._lock:
            self._kept[(str(tenant_id), str(plan_id))] = ordered
            while len(self._kept) > self._max:
                self._kept.popitem(last=False)
        return ordered

    def cache_clear(self) -> None:
        with self._lock:
            self._kept.clear()


stored_steps = _StoredSteps()


def plan_steps(*, plan: ExecutionPlan) -> list[PlanStep]:
    """The plan's steps in order (kept per process: they never change once stored)."""
    return list(stored_steps.get(plan.tenant_id, plan.pk))


def plan_with_steps(*, tenant: Tenant, plan_id: uuid.UUID | str) -> tuple[ExecutionPlan | None, list[PlanStep]]:
    """The plan and its ordered steps in one query (each step row joined to its plan)."""
    steps = list(PlanStep.objects.for_tenant(tenant).filter(plan_id=plan_id).select_related("plan")
                 .order_by("position"))
    if not steps:
        return plan_get(tenant=tenant, plan_id=plan_id), []
    plan = steps[0].plan
    for step in steps:
        step.plan = plan
    return plan, steps


def plan_with_steps_sql(plan_id_sql: str) -> str:
    """Two scalar subqueries — the plan row and its ordered steps, as JSON text — for a caller that
    reads them inside a statement of its own (conversations.locking); `plan_with_steps_from_json`
    turns them back into instances."""
    plan, step = ExecutionPlan._meta.db_table, PlanStep._meta.db_table
    return (f"(SELECT row_to_json(pl)::text FROM {plan} pl WHERE pl.id = {plan_id_sql}), "
            f"(SELECT json_agg(row_to_json(st) ORDER BY st.position)::text FROM {step} st "
            f"WHERE st.plan_id = {plan_id_sql})")


def plan_with_steps_from_json(plan_text: str | None, steps_text: str | None
                              ) -> tuple[ExecutionPlan | None, list[PlanStep]]:
    if not plan_text:
        return None, []
    plan = _from_json(ExecutionPlan, json.loads(plan_text))
    steps = [_from_json(PlanStep, row) for row in json.loads(steps_text or "[]")]
    for step in steps:
        step.plan = plan
    return plan, steps


def _from_json(model: type, row: dict) -> object:
    """An instance from row_to_json's object: JSON columns arrive parsed, others through to_python."""
    values = [row[f.column] if isinstance(f, JSONField) or row[f.column] is None else f.to_python(row[f.column])
              for f in model._meta.concrete_fields]
    return model.from_db(connection.alias, [f.attname for f in model._meta.concrete_fields], values)


def plan_policy_steps(*, plan: ExecutionPlan) -> list[dict]:
    """The steps as policy.evaluate / decision_record / receipt_issue take them."""
    return [s.as_policy_step() for s in plan_steps(plan=plan)]
