from __future__ import annotations

import uuid

from tenancy.models import Tenant

from .models import ExecutionPlan, PlanStep


def plan_get(*, tenant: Tenant, plan_id: uuid.UUID | str) -> ExecutionPlan | None:
    return ExecutionPlan.objects.for_tenant(tenant).filter(pk=plan_id).first()


def plan_steps(*, plan: ExecutionPlan) -> list[PlanStep]:
    return list(PlanStep.objects.for_tenant(plan.tenant_id).filter(plan=plan).order_by("position"))


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


def plan_policy_steps(*, plan: ExecutionPlan) -> list[dict]:
    """The steps as policy.evaluate / decision_record / receipt_issue take them."""
    return [s.as_policy_step() for s in plan_steps(plan=plan)]
