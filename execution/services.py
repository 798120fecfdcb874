"""Execution services: start, cancel, resume, kill, and the watchdog sweep of stuck steps.

`execution_start` trusts nothing the client says about authority: the receipt id comes from the
server's own record (the conversation runtime passes the id `policy.receipt_issue` returned), and
the receipt must be an ALLOW for this tenant, actor, plan id and plan hash, issued before and
expiring after now. Each step then re-validates it with live facts (perform.perform).

`plan_facts` (the facts policy needs about a plan's targets) lives in execution/facts.py, below
the replanning that needs it too; it is imported here because callers know it as a service.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q

from planning.models import ExecutionPlan, PlanStep
from planning.selectors import plan_get, plan_steps
from planning.services import plan_start
from policy.models import Outcome, PolicyReceipt, Scope, Stage
from policy.services import kill_switch_set
from tenancy import clock
from tenancy.db import write_in_one_statement
from tenancy.models import Tenant

from .advance import advance
from .cancel import cancel_marker, cancel_request
from .dispatch import dispatch
from .facts import plan_facts as plan_facts  # re-exported: the conversation runtime's entry point
from .inline import read_only, run_here_after_commit
from .limits import start_clock_now, step_lease
from .models import Execution, ExecutionStatus, StepRun, StepStatus, TimelineEntry, TimelineType
from .priority import started_at_note
from .states import EXECUTION, STEP
from .timeline import conversation_event, timeline_add


class ExecutionError(Exception):
    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(code)
        self.code, self.detail = code, detail


def retry_budget() -> int:
    return settings.EXECUTION_RETRY_BUDGET


def _receipt(*, tenant: Tenant, actor: Any, plan: ExecutionPlan, receipt_id: Any,
             receipt: PolicyReceipt | None = None) -> PolicyReceipt:
    """The receipt behind `receipt_id`, if it is a current ALLOW of this tenant, actor, plan and hash.

    `receipt`: the row `policy.receipt_issue` just returned in this process (the same server
    record, not a client's word) — checked the same way, without reading it back."""
    try:
        pk = receipt_id if isinstance(receipt_id, uuid.UUID) else uuid.UUID(str(receipt_id))
    except ValueError as exc:
        raise ExecutionError("RECEIPT_INVALID") from exc
    if receipt is None or receipt.pk != pk or receipt.tenant_id != tenant.pk:
        receipt = PolicyReceipt.objects.for_tenant(tenant).filter(pk=pk).first()
    now = start_clock_now()  # the receipt's own clock (execution/limits.py)
    if (receipt is None or receipt.decision != Outcome.ALLOW or receipt.actor_id != actor.pk
            or receipt.plan_id != plan.pk or receipt.plan_hash != plan.canonical_hash
            or receipt.expires_at is None or not receipt.issued_at <= now <= receipt.expires_at):
        raise ExecutionError("RECEIPT_INVALID", "No valid ALLOW receipt for this plan, actor and tenant.")
    return receipt


def execution_start(*, plan: ExecutionPlan, receipt_id: Any, actor: Any, tenant: Tenant,
                    receipt: PolicyReceipt | None = None, steps: list[PlanStep] | None = None,
                    defer_start: bool = False, inline: bool = False) -> Execution:
    """Start executing an approved plan; the ready steps are enqueued after commit (inline when eager).

    Starting the same plan twice returns the first execution (a plan runs once; a retry is a new
    plan): the plan's conditional move to RUNNING lets one start through, and the other finds the
    execution it created. `steps`: the plan's steps when the caller already read them.
    `defer_start`: see `plan_start(defer=)` — for a caller that redoes its transaction on
    `tenancy.db.DeferredCheckFailed`. `inline`: a plan of read steps only runs in this thread after
    the commit, not through the broker (execution/inline.py); any other plan ignores it.
    """
    if plan.tenant_id != tenant.pk or plan.actor_id != actor.pk:
        raise ExecutionError("PLAN_NOT_FOUND")
    receipt = _receipt(tenant=tenant, actor=actor, plan=plan, receipt_id=receipt_id, receipt=receipt)
    # No savepoint: the plan's conditional UPDATE is taken under its row lock, so a concurrent start
    # waits for this one and then finds the plan running — nothing here is expected to fail and be
    # recovered from inside the caller's transaction.
    with transaction.atomic(savepoint=False):
        started = plan_start(plan=plan, defer=defer_start)
        if started:
            return _create(plan=plan, receipt=receipt, actor=actor, tenant=tenant,
                           steps=steps if steps is not None else plan_steps(plan=plan), inline=inline)
    existing = Execution.objects.for_tenant(tenant).filter(plan=plan).first()
    if existing is None:
        raise ExecutionError("PLAN_NOT_RUNNABLE", plan_get(tenant=tenant, plan_id=plan.pk).status)
    return existing


def _create(*, plan: ExecutionPlan, receipt: PolicyReceipt, actor: Any, tenant: Tenant,
            steps: list[PlanStep], inline: bool) -> Execution:
    """The execution, its step runs (the ready ones already dispatched) and its timeline in one
    statement, then the conversation's EXECUTION_STARTED; the steps are sent after commit.

    `started_at` is read on the receipts' clock, which policy compares it with before every step
    (execution/limits.py); what the steps' leases and the timeline compare is tenancy.clock's."""
    now, started_at = clock.now(), start_clock_now()
    execution = Execution(
        tenant=tenant, plan=plan, actor=actor, receipt_id=receipt.pk, conversation_id=plan.conversation_id,
        language=plan.language, retry_budget=retry_budget(), started_at=started_at)
    ready = [s.step_id for s in steps if not s.depends_on]
    runs = [StepRun(tenant=tenant, execution=execution, step_id=s.step_id, position=s.position,
                    **({"status": StepStatus.DISPATCHED, "dispatched_at": now} if s.step_id in ready else {}))
            for s in steps]
    entries = [(TimelineType.PLAN_CREATED, plan.created_at,
                {"template": plan.template, "planner": plan.planner, "hash": plan.canonical_hash}),
               (TimelineType.PLAN_VALIDATED, plan.validated_at, {"risk": plan.risk, "steps": len(steps)})]
    if receipt.stage == Stage.CONFIRMATION:
        entries.append((TimelineType.CONFIRMATION_RECEIVED, receipt.issued_at,
                        {"receipt": str(receipt.pk), "level": receipt.level}))
    entries.append((TimelineType.EXECUTION_STARTED, now, {"receipt": str(receipt.pk)}))
    timeline = [TimelineEntry(tenant_id=tenant.pk, execution=execution, type=type_, at=at or now, data=data)
                for type_, at, data in entries]
    write_in_one_statement([execution], runs, timeline)
    started_at_note(execution.pk, started_at)  # the priority router needs no query for these first steps
    conversation_event(execution=execution, type="EXECUTION_STARTED", payload={
        "plan_id": str(plan.pk), "total": len(steps),
        "steps": [{"id": s.step_id, "capability": s.capability_id, "label": s.label} for s in steps]})
    if not ready:  # nothing to run (an empty plan): advance settles it
        advance(execution.pk)
    elif inline and read_only(s.kind for s in steps):
        run_here_after_commit(execution, ready)
    else:
        for step_id in ready:
            dispatch(execution.pk, step_id)
    return execution


def execution_cancel(*, execution_id: Any, tenant: Tenant, actor: Any, reason: str = "",
                     kill: bool = False) -> Execution:
    """Stop what has not finished (execution/cancel.py): steps not started are skipped, a step
    already calling ends — kept or compensated as the tenant's cancel rule says (policy/cancel.py).

    Only the execution's own actor may cancel it; `kill`: a runtime admin's kill (its authority was
    checked by `kill_switch_set`), which also stops an execution with nothing left to skip.
    Another tenant's or user's execution: NOT_FOUND.
    """
    with transaction.atomic():
        execution = Execution.objects.for_tenant(tenant).select_for_update(of=("self",)).select_related(
            "plan", "tenant").filter(pk=execution_id).first()
        if execution is None or not (kill or execution.actor_id == getattr(actor, "pk", None)):
            raise ExecutionError("NOT_FOUND")
        if (execution.settled or cancel_marker(execution) is not None
                or not EXECUTION.allows(execution.status, ExecutionStatus.CANCELLED)):
            # Settled, cancelled already, or a failure's saga under way (compensating): left as it is.
            return execution
        cancel_request(execution=execution, actor=actor, reason=reason, always=kill)
    return execution


def execution_kill(*, execution_id: Any, tenant: Tenant, actor: Any, reason: str) -> Execution:
    """Raise an EXECUTION kill switch (runtime admins only; policy enforces) and cancel the execution."""
    execution = Execution.objects.for_tenant(tenant).filter(pk=execution_id).first()
    if execution is None:
        raise ExecutionError("NOT_FOUND")
    kill_switch_set(actor=actor, scope=Scope.EXECUTION, tenant=tenant, target=str(execution.pk),
                    reason=reason or "killed from the API")
    return execution_cancel(execution_id=execution.pk, tenant=tenant, actor=actor, reason=reason, kill=True)


def execution_resume(*, execution_id: Any, tenant: Tenant) -> Execution:
    """Pick an execution up from its last checkpoint: steps whose lease expired go back to the queue.

    Completed steps are never re-run; a taken-over step repeats its call with the same idempotency
    key. Pins (capability version, receipt, target revision) are re-validated by each step.
    """
    now = clock.now()
    with transaction.atomic():
        execution = Execution.objects.for_tenant(tenant).select_for_update(of=("self",)).filter(
            pk=execution_id).first()
        if execution is None:
            raise ExecutionError("NOT_FOUND")
        if execution.status != ExecutionStatus.RUNNING:
            return execution
        # Both back to pending: a running step whose holder's lease expired, a dispatched one whose
        # message was lost (older than a lease).
        running, dispatched = STEP.guard(StepStatus.PENDING, StepStatus.RUNNING, StepStatus.DISPATCHED)
        stale = StepRun.objects.for_tenant(tenant).filter(execution=execution).filter(
            Q(status=running, lease_until__lt=now) | Q(status=dispatched, dispatched_at__lt=now - step_lease()))
        stale_ids = list(stale.values_list("step_id", flat=True))
        stale.update(status=StepStatus.PENDING, lease_until=None)
        if stale_ids:
            timeline_add(execution=execution, type=TimelineType.EXECUTION_RESUMED, data={"steps": stale_ids})
    advance(execution.pk)
    return execution

