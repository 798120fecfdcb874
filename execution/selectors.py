from __future__ import annotations

from typing import Any

from planning.models import PlanStep
from tenancy.models import Tenant

from .models import Execution, StepRun, TimelineEntry


def execution_get(*, tenant: Tenant, execution_id: Any) -> Execution | None:
    """The execution in this tenant; another tenant's is the same None as a missing one."""
    try:
        return Execution.objects.for_tenant(tenant).select_related("plan").filter(pk=execution_id).first()
    except (ValueError, TypeError):
        return None


def execution_detail(*, execution: Execution) -> dict[str, Any]:
    tenant_id = execution.tenant_id
    steps = {s.step_id: s for s in PlanStep.objects.for_tenant(tenant_id).filter(plan=execution.plan_id)}
    runs = StepRun.objects.for_tenant(tenant_id).filter(execution=execution).order_by("position")
    timeline = TimelineEntry.objects.for_tenant(tenant_id).filter(execution=execution).order_by("id")
    return {
        "id": str(execution.pk), "plan_id": str(execution.plan_id), "status": execution.status,
        "needs_review": execution.needs_review, "error": execution.error, "started_at": execution.started_at,
        "finished_at": execution.finished_at, "retry_budget": execution.retry_budget,
        "plan": {"template": execution.plan.template, "risk": execution.plan.risk,
                 "hash": execution.plan.canonical_hash, "allow_partial": execution.plan.allow_partial},
        "steps": [{"id": r.step_id, "capability": steps[r.step_id].capability_id,
                   "version": steps[r.step_id].capability_version, "depends_on": steps[r.step_id].depends_on,
                   "label": steps[r.step_id].label, "status": r.status, "attempts": r.attempts, "calls": r.calls,
                   "result": r.result, "error": r.error, "compensation": r.compensation,
                   "started_at": r.started_at, "finished_at": r.finished_at} for r in runs],
        "timeline": [{"at": e.at, "type": e.type, "step_id": e.step_id or None, "data": e.data} for e in timeline],
    }
