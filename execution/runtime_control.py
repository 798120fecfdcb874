"""Pausing and resuming a batch execution by a person (PRD-034 §44, §50-§51): who may, the audited
transition, and the checkpoint a resume re-validates before the parked steps are sent again.

Only supervisors and admins of the tenant, or a runtime admin, control a runtime — never a chat
message; only batch executions run under the controller, so only they pause.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from planning.batch import BATCH_SOURCE
from planning.models import PlanStep
from policy.audit import audit_record
from policy.services import revalidate
from registry.selectors import registry_snapshot
from tenancy.models import Role
from tenancy.selectors import membership_get

from .envelope import EnvelopeSession
from .facts import read_facts
from .models import Execution, RuntimeExecution, RuntimeStatus, TimelineType
from .priority import dispatch_parked
from .runtime_state import context_ref, runtime_ensure, runtime_transition


class RuntimeControlError(Exception):
    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def _may_control(actor: Any, tenant_id: Any) -> bool:
    """A supervisor or admin of the tenant, or a runtime admin (kill-switch holder). Never a chat message."""
    if actor is None or not getattr(actor, "is_authenticated", False):
        return False
    if actor.has_perm("policy.runtime_admin"):
        return True
    membership = membership_get(user=actor, tenant_id=tenant_id)
    return membership is not None and membership.role in (Role.SUPERVISOR, Role.ADMIN)


def _controlled(execution_id: Any, tenant: Any, actor: Any) -> Execution:
    execution = Execution.objects.for_tenant(tenant).select_related("plan", "tenant").filter(pk=execution_id).first()
    if execution is None:
        raise RuntimeControlError("NOT_FOUND")
    if not _may_control(actor, execution.tenant_id):
        raise RuntimeControlError("NOT_ALLOWED")
    if execution.status != "running":
        raise RuntimeControlError("NOT_RUNNING")
    if not PlanStep.objects.for_tenant(tenant).filter(plan=execution.plan_id, for_each=BATCH_SOURCE).exists():
        raise RuntimeControlError("NOT_PAUSABLE")  # only batch steps run under the controller
    return execution


def runtime_pause(*, execution_id: Any, tenant: Any, actor: Any, reason: str = "") -> RuntimeExecution:
    """PAUSED: no new item starts; items already calling finish; the batch steps park (§44)."""
    execution = _controlled(execution_id, tenant, actor)
    runtime = runtime_ensure(execution)
    with transaction.atomic():
        moved = runtime_transition(execution=execution, status=RuntimeStatus.PAUSED, reason="PAUSED",
                                   timeline=TimelineType.EXECUTION_PAUSED, data={"by": actor.pk, "note": reason[:200]},
                                   from_statuses=(RuntimeStatus.RUNNING, RuntimeStatus.DEGRADED,
                                                  RuntimeStatus.WAITING))
        if not moved:
            raise RuntimeControlError("NOT_PAUSABLE")
        audit_record(tenant=execution.tenant, actor=actor, event_type="runtime.paused", target_type="execution",
                     target_id=str(execution.pk), old={"status": runtime.status}, new={"status": "PAUSED"},
                     extra={"reason": reason[:200]})
    return runtime_ensure(execution)


def runtime_resume(*, execution_id: Any, tenant: Any, actor: Any) -> RuntimeExecution:
    """PAUSED → RUNNING from the checkpoint, after re-validating it (§50-§51): the parked steps are sent
    again (through the priority router), completed items never run again, and every item still
    re-validates authority before its call. A checkpoint that no longer holds stops the execution
    instead (STOPPING with the failed check's code: nothing new starts)."""
    execution = _controlled(execution_id, tenant, actor)
    problem = checkpoint_validate(execution)
    status = RuntimeStatus.STOPPING if problem else RuntimeStatus.RUNNING
    with transaction.atomic():
        moved = runtime_transition(execution=execution, status=status, reason=problem or "RESUMED",
                                   timeline=TimelineType.EXECUTION_RESUMED,
                                   data={"by": actor.pk, "checkpoint": "invalid" if problem else "valid"},
                                   from_statuses=(RuntimeStatus.PAUSED,))
        if not moved:
            raise RuntimeControlError("NOT_PAUSED")
        audit_record(tenant=execution.tenant, actor=actor, event_type="runtime.resumed", target_type="execution",
                     target_id=str(execution.pk), old={"status": "PAUSED"}, new={"status": status},
                     extra={"problem": problem})
        dispatch_parked(execution)
    return runtime_ensure(execution)


def checkpoint_validate(execution: Execution) -> str | None:
    """What a resume must re-check (§51): the checkpoint was taken under this plan and receipt, the
    pinned capability versions are still the ACTIVE ones, and policy still allows the next step
    with fresh facts (receipt, permissions, kill switches). The failing check's code, or None."""
    last = execution.checkpoints.order_by("-id").first()
    if last is not None and last.context_ref != context_ref(execution):
        return "CHECKPOINT_CONTEXT_CHANGED"
    done = set(execution.step_runs.filter(status__in=["completed", "failed", "skipped"])
               .values_list("step_id", flat=True))
    pending = [s for s in PlanStep.objects.for_tenant(execution.tenant_id).filter(plan=execution.plan_id,
                                                                                   for_each=BATCH_SOURCE)
               if s.step_id not in done]
    snapshot = registry_snapshot()
    for step in pending:
        spec = snapshot.get(step.capability_id, tenant=execution.tenant)
        if spec is None or spec.version != step.capability_version:
            return "CAPABILITY_CHANGED"
    if not pending:
        return None
    step = pending[0]
    # A check in the supervisor's request, not the work: no deadline (a long pause has spent it), no hedge.
    session = EnvelopeSession.outside(actor_id=execution.actor_id, tenant=execution.tenant, snapshot=snapshot)
    facts, _ = read_facts(session=session, snapshot=snapshot, tenant=execution.tenant, targets=step.targets)
    check = revalidate(receipt_id=execution.receipt_id, actor=execution.actor, tenant=execution.tenant,
                       plan_id=execution.plan_id, step_id=step.step_id,
                       capability=(step.capability_id, step.capability_version), input=step.input, facts=facts,
                       execution_started_at=execution.started_at, execution_id=execution.pk)
    return None if check.ok else check.code
