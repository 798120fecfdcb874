"""Saga compensation (PRD-006 §17-§18): when a plan cannot continue, completed steps that declare a
compensation are undone in reverse order of completion.

Each compensation is authorised by policy like any step: `policy.evaluate` on the compensating
capability (live permissions, capability status, kill switches, target tenant from facts read
now). DENY → that compensation is not run and the execution ends FAILED for human review. The
confirmation level is not asked again: the user confirmed the plan, whose registered
compensations are part of it; what policy may still refuse (a revoked permission, a raised
switch, a suspended capability) it refuses here. Compensations carry their own idempotency key
(`agent:{planId}:{stepId}:compensate:{n}`), so a worker that dies mid-saga can run it again.

Every call (the facts and the compensation itself) goes through the adaptive envelope
(execution/envelope.py): a slot under the lane's limit, its breaker (an open one is waited out
once, then refused: the compensation fails for human review), never hedged (a write).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from django.db import transaction
from django.db.models import Q

from planning.models import PlanStep
from planning.references import MISSING, Ref, get_path, resolve
from policy.services import audit_record, evaluate
from registry.selectors import registry_snapshot
from tenancy import clock

from .cancel import cancel_marker, cancel_saga_end
from .envelope import EnvelopeSession
from .facts import read_facts
from .models import Execution, ExecutionStatus, StepRun, StepStatus, TimelineType
from .settle import settle
from .states import STEP
from .timeline import timeline_add


def _units(run: StepRun, plan_step: PlanStep) -> list[tuple[Mapping[str, Any], Any]]:
    if plan_step.for_each:
        inputs = (run.input or {}).get("items", [])
        bodies = (run.result or {}).get("items", [])
        return list(zip(inputs, bodies, strict=False))
    return [(run.input or {}, run.result)]


def _unit_input(template: Mapping[str, Any], values: Mapping[str, Any], body: Any) -> dict[str, Any]:
    def lookup(ref: Ref) -> Any:
        source = values if ref.root == "input" else body if ref.root == "result" else None
        return MISSING if source is None else get_path(source, ref.path)
    return resolve(dict(template), lookup)


def compensate(execution_id: Any) -> None:
    execution = (Execution.objects.all_tenants().select_related("plan", "tenant", "actor")
                 .filter(pk=execution_id, status=ExecutionStatus.COMPENSATING).first())
    if execution is None:
        return
    steps = {s.step_id: s for s in PlanStep.objects.for_tenant(execution.tenant_id).filter(plan=execution.plan_id)}
    runs = (StepRun.objects.for_tenant(execution.tenant_id).filter(execution=execution, status=StepStatus.COMPLETED)
            .filter(~Q(step_id__in=[k for k, s in steps.items() if not s.compensation])).order_by("-finished_at"))
    marker = cancel_marker(execution)
    if marker is not None:  # a cancel's saga: only the steps that were calling when it came (execution/cancel.py)
        runs = runs.filter(step_id__in=list(marker["in_flight"]))
    all_done = True
    for run in runs:
        if not _compensate_run(execution, run, steps[run.step_id]):
            all_done = False
            break
    with transaction.atomic():
        if marker is not None:
            cancel_saga_end(execution, marker, all_done=all_done)
        else:
            settle(execution, ExecutionStatus.COMPENSATED if all_done else ExecutionStatus.FAILED,
                   needs_review=not all_done)


def _compensate_run(execution: Execution, run: StepRun, plan_step: PlanStep) -> bool:
    snapshot = registry_snapshot()
    tenant = execution.tenant
    compensation = plan_step.compensation or {}
    spec = snapshot.get(compensation.get("capability", ""), tenant=tenant)
    timeline_add(execution=execution, type=TimelineType.COMPENSATION_STARTED, step_id=run.step_id,
                 data={"capability": compensation.get("capability")})
    # Not the execution's deadline: undoing must stay possible after its time budget is spent (a
    # saga often runs because it was); each call is still bounded by its lane's timeout.
    session = replace(EnvelopeSession.for_execution(execution, snapshot), deadline_at=None)
    outcomes: list[dict[str, Any]] = []
    units = _units(run, plan_step)
    for index, (values, body) in enumerate(units):
        comp_input = _unit_input(compensation.get("input", {}), values, body)
        problem = (_authorise(execution, run, spec, comp_input, session, snapshot) if spec
                   else "CAPABILITY_UNAVAILABLE")
        if problem:
            outcomes.append({"index": index, "ok": False, "code": problem})
            break
        result = session.invoke(capability=spec, input=comp_input,
                                idempotency_key=f"agent:{execution.plan_id}:{run.step_id}:compensate:{index}")
        ok = result.outcome == "succeeded" or result.status_code == 404  # already gone is undone
        outcomes.append({"index": index, "ok": ok, "status": result.status_code, "code": result.error_code})
        if not ok:
            break
    done = not units or (bool(outcomes) and all(o["ok"] for o in outcomes))
    with transaction.atomic():
        if done:
            StepRun.objects.for_tenant(execution.tenant_id).filter(
                pk=run.pk, status__in=STEP.guard(StepStatus.COMPENSATED, StepStatus.COMPLETED)).update(
                status=StepStatus.COMPENSATED, compensation={"outcomes": outcomes, "at": clock.now().isoformat()})
        else:
            StepRun.objects.for_tenant(execution.tenant_id).filter(pk=run.pk).update(
                compensation={"outcomes": outcomes})
        timeline_add(execution=execution, step_id=run.step_id, data={"outcomes": outcomes},
                     type=TimelineType.COMPENSATION_COMPLETED if done else TimelineType.COMPENSATION_FAILED)
        audit_record(tenant=execution.tenant, actor=execution.actor, event_type="execution.compensation",
                     target_type="execution", target_id=str(execution.pk),
                     new={"step": run.step_id, "capability": compensation.get("capability"), "done": done})
    return done


def _authorise(execution: Execution, run: StepRun, spec, comp_input: dict[str, Any], session, snapshot) -> str | None:
    targets = spec.targets_in(comp_input)
    facts, _ = read_facts(session=session, snapshot=snapshot, tenant=execution.tenant, targets=targets)
    decision = evaluate(actor=execution.actor, tenant=execution.tenant, facts=facts,
                        steps=[{"id": f"compensate-{run.step_id}"[:100], "capability": spec.id, "version": spec.version,
                                "input": comp_input, "targets": targets}],
                        context={"plan_id": str(execution.plan_id), "execution_id": str(execution.pk)})
    if decision.outcome == "DENY":
        denied = [r.code for r in decision.reasons if not r.code.startswith("RISK_")]
        return denied[0] if denied else "POLICY_DENIED"
    return None
