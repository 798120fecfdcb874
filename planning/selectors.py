from __future__ import annotations

import uuid
from functools import lru_cache

from django.db import connection

from tenancy.db import columns_sql, instance_from_row
from tenancy.models import Tenant

from .models import ExecutionPlan, PlanStep


def plan_get(*, tenant: Tenant, plan_id: uuid.UUID | str) -> ExecutionPlan | None:
    return ExecutionPlan.objects.for_tenant(tenant).filter(pk=plan_id).first()


def plan_steps(*, plan: ExecutionPlan) -> list[PlanStep]:
    return list(PlanStep.objects.for_tenant(plan.tenant_id).filter(plan=plan).order_by("position"))


def plan_with_steps(*, tenant: Tenant, plan_id: uuid.UUID | str) -> tuple[ExecutionPlan | None, list[PlanStep]]:
    """The plan and its ordered steps in one query (each step row joined to its plan)."""
    if connection.vendor != "postgresql":
        steps = list(PlanStep.objects.for_tenant(tenant).filter(plan_id=plan_id).select_related("plan")
                     .order_by("position"))
        rows = [(step.plan, step) for step in steps]
    else:
        with connection.cursor() as cursor:
            cursor.execute(_plan_with_steps_sql(), [tenant.pk, str(plan_id)])
            rows = [_split(row) for row in cursor.fetchall()]
    if not rows:
        return plan_get(tenant=tenant, plan_id=plan_id), []
    plan = rows[0][0]
    for _, step in rows:
        step.plan = plan
    return plan, [step for _, step in rows]


@lru_cache(maxsize=1)
def _plan_with_steps_sql() -> str:
    return (f"SELECT {columns_sql(ExecutionPlan, 'p')}, {columns_sql(PlanStep, 's')} "
            f"FROM {PlanStep._meta.db_table} s JOIN {ExecutionPlan._meta.db_table} p ON p.id = s.plan_id "
            f"WHERE s.tenant_id = %s AND s.plan_id = %s ORDER BY s.position")


def _split(row: tuple) -> tuple[ExecutionPlan, PlanStep]:
    size = len(ExecutionPlan._meta.concrete_fields)
    return instance_from_row(ExecutionPlan, row[:size]), instance_from_row(PlanStep, row[size:])


def plan_policy_steps(*, plan: ExecutionPlan) -> list[dict]:
    """The steps as policy.evaluate / decision_record / receipt_issue take them."""
    return [s.as_policy_step() for s in plan_steps(plan=plan)]
