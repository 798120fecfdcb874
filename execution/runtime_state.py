"""RuntimeExecution state (PRD-034 §5, §95-§101): compare-and-set transitions, adaptations with their
reason and metrics, checkpoints, heartbeats, the watchdog, and the runtime events of §71.

Every status change is a conditional UPDATE on `version` (optimistic CAS): two workers or two beats
deciding at once produce one transition; the loser re-reads. Each change writes an append-only
RuntimeAdaptation carrying the version it produced (the snapshot chain), and the §71 event goes to
the execution timeline and, when the plan has a conversation, to its event stream.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import structlog
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from .control import Change, store
from .messages import both
from .models import (
    Execution,
    RuntimeAdaptation,
    RuntimeCheckpoint,
    RuntimeExecution,
    RuntimeStatus,
    TimelineType,
)
from .timeline import conversation_event, timeline_add

log = structlog.get_logger(__name__)

REVIEW_CODES = frozenset({"RESOURCE_UNAVAILABLE", "DEADLINE_EXCEEDED", "DEPTH_LIMIT", "REPLAN_REFUSED"})
# What the watchdog watches: a PAUSED runtime has no worker on purpose (its steps are parked), so no
# heartbeat is expected from it.
WATCHED = (RuntimeStatus.RUNNING, RuntimeStatus.DEGRADED, RuntimeStatus.WAITING, RuntimeStatus.REPLANNING)
# Statuses only a person (resume) or a stop moves the runtime out of: the controller's own
# transitions (RESOURCE_BACK, DEGRADED, WAITING…) never un-pause it.
HELD = (RuntimeStatus.PAUSED, RuntimeStatus.STOPPING)
FINAL = (RuntimeStatus.TERMINATED, RuntimeStatus.FAILED, RuntimeStatus.COMPLETED)

# §71 names per adaptation kind (None: recorded, not streamed).
_EVENT_FOR_KIND = {"CONCURRENCY": "EXECUTION_THROTTLED", "BATCH": "BATCH_ADJUSTED", "RESOURCE": "RESOURCE_SWITCHED"}


def default_budget() -> dict[str, int]:
    """§66 / §69 defaults; `RUNTIME_BUDGET` in settings overrides any of them.

    max_llm_calls counts the planner's call that produced the plan (planner = llm) and every
    planner call made while replanning; max_replans the replans of one execution; max_depth how
    far a replacement plan may be from the user's own plan (a replan of a replan of …); max_items
    the batch items of one execution (all its batch steps together)."""
    return {"max_duration_s": 3600, "max_steps": 5000, "max_api_calls": 20000, "max_retries":
            settings.EXECUTION_RETRY_BUDGET, "max_llm_calls": 2, "max_replans": 2,
            "max_depth": 2, "max_items": 1000, **settings.RUNTIME_BUDGET}


def heartbeat_timeout_s() -> int:
    return settings.RUNTIME_HEARTBEAT_TIMEOUT_SECONDS or max(3, settings.EXECUTION_STEP_LEASE_SECONDS * 2)


def runtime_ensure(execution: Execution) -> RuntimeExecution:
    runtime = RuntimeExecution.objects.for_tenant(execution.tenant_id).filter(execution=execution).first()
    if runtime is not None:
        return runtime
    now = timezone.now()
    budget = default_budget()
    # The LLM call that planned this execution is spent from its budget (§66).
    planned_by_llm = execution.plan.planner == "llm"
    try:
        with transaction.atomic():
            return RuntimeExecution.objects.create(
                tenant_id=execution.tenant_id, execution=execution, budget=budget, llm_calls=int(planned_by_llm),
                deadline_at=execution.started_at + timedelta(seconds=budget["max_duration_s"]),
                heartbeat_timeout_s=heartbeat_timeout_s(), last_heartbeat_at=now, updated_at=now)
    except IntegrityError:
        return RuntimeExecution.objects.for_tenant(execution.tenant_id).get(execution=execution)


def runtime_cas(*, runtime: RuntimeExecution, **changes: Any) -> bool:
    """Apply `changes` only if nobody moved the runtime since `runtime` was read (§97)."""
    updated = (RuntimeExecution.objects.for_tenant(runtime.tenant_id)
               .filter(pk=runtime.pk, version=runtime.version)
               .update(version=runtime.version + 1, updated_at=timezone.now(), **changes))
    if updated == 1:
        runtime.version += 1
        for key, value in changes.items():
            setattr(runtime, key, value)
    return updated == 1


def _message(kind: str, old: Any, new: Any, reason: str, lane: str, metrics: dict[str, Any]) -> dict[str, str]:
    return both("runtime.adaptation", kind=kind, old=old, new=new, lane=lane, reason=reason,
                facts=", ".join(f"{k}={v}" for k, v in metrics.items()) or "-")


def adaptation_record(*, execution: Execution, lane: str, change: Change, resource_label: str = "") -> None:
    """An adaptation of a lane (AIMD, batch, timeout, breaker, health): audit row, timeline, §71 event."""
    runtime = runtime_ensure(execution)
    now = timezone.now()
    with transaction.atomic():
        RuntimeAdaptation.objects.create(
            tenant_id=execution.tenant_id, execution=execution, kind=change.kind, lane=lane, old=change.old,
            new=change.new, reason=change.reason, metrics=change.metrics, runtime_version=runtime.version, at=now,
            message=_message(change.kind, change.old, change.new, change.reason, lane, change.metrics))
        event = _EVENT_FOR_KIND.get(change.kind)
        if change.kind == "BREAKER" and change.new == "OPEN":
            event = "CIRCUIT_OPENED"
        if change.kind == "CONCURRENCY" and change.new > change.old:
            event = None  # increases are recorded, not streamed
        if event:
            data = {"lane": lane, "old": change.old, "new": change.new, "reason": change.reason,
                    "metrics": change.metrics}
            timeline_add(execution=execution, type=event, data=data, at=now)
            conversation_event(execution=execution, type=event, payload=data)
    if change.kind == "HEALTH":
        degraded = change.new in ("DEGRADED", "CRITICAL")
        if degraded and runtime.status == RuntimeStatus.RUNNING:
            runtime_cas(runtime=runtime, status=RuntimeStatus.DEGRADED, reason=f"{lane}:{change.new}")
        elif change.new == "HEALTHY" and runtime.status == RuntimeStatus.DEGRADED:
            runtime_cas(runtime=runtime, status=RuntimeStatus.RUNNING, reason=f"{lane}:HEALTHY")


def runtime_transition(*, execution: Execution, status: str | None = None, reason: str = "", kind: str = "STATUS",
                       lane: str = "", old: Any = None, new: Any = None, timeline: str | None = None,
                       heartbeat: bool = False, once: bool = False, data: dict[str, Any] | None = None,
                       from_statuses: tuple[str, ...] | None = None) -> bool:
    """Move the runtime (CAS, retried on a lost race) and record why. `heartbeat=True` only beats.

    `from_statuses`: move only from these (a person's pause/resume). Without it, a PAUSED or
    STOPPING runtime keeps its status: only a stop (FAILED/TERMINATED) still goes through."""
    now = timezone.now()
    if heartbeat and status is None and timeline is None:
        RuntimeExecution.objects.for_tenant(execution.tenant_id).filter(execution=execution).update(
            last_heartbeat_at=now)
        return True
    for _ in range(10):
        runtime = runtime_ensure(execution)
        if runtime.status in (RuntimeStatus.TERMINATED, RuntimeStatus.FAILED, RuntimeStatus.COMPLETED):
            return False
        if once and status is not None and runtime.status == status:
            return False
        if from_statuses is not None and runtime.status not in from_statuses:
            return False
        if (from_statuses is None and status is not None and runtime.status in HELD
                and status not in FINAL and status != RuntimeStatus.STOPPING):
            return False
        old_status = runtime.status
        changes = {"last_heartbeat_at": now}
        if status is not None:
            changes.update(status=status, reason=reason[:64])
        with transaction.atomic():
            if not runtime_cas(runtime=runtime, **changes):
                continue
            RuntimeAdaptation.objects.create(
                tenant_id=execution.tenant_id, execution=execution, kind=kind, lane=lane,
                old=old if old is not None else old_status, new=new if new is not None else status,
                reason=reason[:64] or "STATUS", metrics=data or {}, runtime_version=runtime.version, at=now,
                message=_message(kind, old if old is not None else old_status,
                                 new if new is not None else status, reason, lane or "-", data or {}))
            if timeline:
                payload = {"reason": reason, "status": status, "old": old, "new": new, "lane": lane, **(data or {})}
                timeline_add(execution=execution, type=timeline, data=payload, at=now)
                conversation_event(execution=execution, type=timeline, payload=payload)
        return True
    return False


def runtime_stop(*, execution: Execution, code: str) -> None:
    """A batch stopped before its end: TERMINATED for a kill switch (§108), FAILED otherwise (§67, §116).

    REPLANNED is not a failure: the user is asked about the replacement plan; the runtime stays
    REPLANNING until the execution settles."""
    if code == "REPLANNED":
        return
    status = RuntimeStatus.TERMINATED if code == "KILL_SWITCH" else RuntimeStatus.FAILED
    if code in REVIEW_CODES or code.startswith("BUDGET_"):
        # Never a silent stop: a person decides what happens to the rest (§67, §116).
        Execution.objects.for_tenant(execution.tenant_id).filter(pk=execution.pk).update(needs_review=True)
    event = TimelineType.EXECUTION_TERMINATED if status == RuntimeStatus.TERMINATED else None
    runtime_transition(execution=execution, status=status, reason=code, timeline=event)


def runtime_settle(*, execution: Execution, status: str) -> None:
    """Mirror a settled execution onto its runtime (if it has one)."""
    final = {"completed": RuntimeStatus.COMPLETED, "partially_completed": RuntimeStatus.COMPLETED,
             "cancelled": RuntimeStatus.TERMINATED}.get(status, RuntimeStatus.FAILED)
    runtime = RuntimeExecution.objects.for_tenant(execution.tenant_id).filter(execution=execution).first()
    if runtime is not None and runtime.status not in (RuntimeStatus.TERMINATED, RuntimeStatus.FAILED,
                                                      RuntimeStatus.COMPLETED):
        runtime_cas(runtime=runtime, status=final, reason=status[:64])


# --- budget (§66-§69) -------------------------------------------------------------------------


def llm_call_take(*, execution: Execution, purpose: str) -> bool:
    """Spend one LLM call of the execution's budget, if one is left (a conditional UPDATE: two
    workers cannot both take the last one). A refusal is recorded; the caller goes on without it."""
    runtime = runtime_ensure(execution)
    limit = int((runtime.budget or {}).get("max_llm_calls", 0))
    taken = (RuntimeExecution.objects.for_tenant(execution.tenant_id)
             .filter(pk=runtime.pk, llm_calls__lt=limit).update(llm_calls=F("llm_calls") + 1)) == 1
    if not taken:
        runtime_transition(execution=execution, kind="BUDGET", reason="BUDGET_LLM_CALLS", old=runtime.llm_calls,
                           new=limit, data={"purpose": purpose, "max_llm_calls": limit})
    return taken


def replan_take(*, execution: Execution) -> str | None:
    """Count one replan (§65, §69); the code that refuses it when the execution already had its share."""
    runtime = runtime_ensure(execution)
    limit = int((runtime.budget or {}).get("max_replans", 0))
    taken = (RuntimeExecution.objects.for_tenant(execution.tenant_id)
             .filter(pk=runtime.pk, replans__lt=limit).update(replans=F("replans") + 1)) == 1
    return None if taken else "BUDGET_REPLANS"


# --- pause and resume (§44, §50-§51) -----------------------------------------------------------


class RuntimeControlError(Exception):
    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def _may_control(actor: Any, tenant_id: Any) -> bool:
    """A supervisor or admin of the tenant, or a runtime admin (kill-switch holder). Never a chat message."""
    from tenancy.models import Role
    from tenancy.selectors import membership_get

    if actor is None or not getattr(actor, "is_authenticated", False):
        return False
    if actor.has_perm("policy.runtime_admin"):
        return True
    membership = membership_get(user=actor, tenant_id=tenant_id)
    return membership is not None and membership.role in (Role.SUPERVISOR, Role.ADMIN)


def _controlled(execution_id: Any, tenant: Any, actor: Any) -> Execution:
    from planning.batch import BATCH_SOURCE
    from planning.models import PlanStep

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
    from policy.audit import audit_record

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
    from policy.audit import audit_record

    from .priority import dispatch_parked

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
    from planning.batch import BATCH_SOURCE
    from planning.models import PlanStep
    from policy.services import revalidate
    from registry.selectors import registry_snapshot

    from .runtime import read_facts, session_for

    last = execution.checkpoints.order_by("-id").first()
    if last is not None and last.context_ref != _context_ref(execution):
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
    facts, _ = read_facts(session=session_for(user_id=execution.actor_id, tenant=execution.tenant),
                          snapshot=snapshot, tenant=execution.tenant, targets=step.targets)
    check = revalidate(receipt_id=execution.receipt_id, actor=execution.actor, tenant=execution.tenant,
                       plan_id=execution.plan_id, step_id=step.step_id,
                       capability=(step.capability_id, step.capability_version), input=step.input, facts=facts,
                       execution_started_at=execution.started_at, execution_id=execution.pk)
    return None if check.ok else check.code


def _context_ref(execution: Execution) -> str:
    return f"{execution.plan.canonical_hash}:{execution.receipt_id}"[:200]


def checkpoint_write(*, execution: Execution, step_id: str, completed: int, api_calls: int,
                     steps: int) -> RuntimeCheckpoint:
    """A chunk boundary: progress, usage against the budget, the runtime version and what a resume
    must re-validate (§49-§51)."""
    runtime = runtime_ensure(execution)
    now = timezone.now()
    RuntimeExecution.objects.for_tenant(execution.tenant_id).filter(pk=runtime.pk).update(
        last_heartbeat_at=now, api_calls=F("api_calls") + api_calls, steps=F("steps") + steps)
    return RuntimeCheckpoint.objects.create(
        tenant_id=execution.tenant_id, execution=execution, step_id=step_id, state_version=runtime.version,
        completed=completed, context_ref=_context_ref(execution), created_at=now)


# --- watchdog (§45-§48) -----------------------------------------------------------------------


def runtime_watchdog(*, now=None) -> list[str]:
    """Beat sweep: runtimes whose heartbeat is older than their timeout → STALLED → resumed.

    Two beats running at once do not double the work: a short Redis lock lets one sweep at a time,
    and each STALLED transition is a CAS, so one execution is recovered once per stall.
    """
    from tenancy.models import Tenant

    from .services import execution_resume

    if not store().lock("rt:watchdog", ttl_s=5):
        return []
    now = now or timezone.now()
    recovered = []
    candidates = (RuntimeExecution.objects.all_tenants().select_related("execution")
                  .filter(status__in=WATCHED, execution__status="running"))
    for runtime in candidates:
        if runtime.last_heartbeat_at + timedelta(seconds=runtime.heartbeat_timeout_s) > now:
            continue
        execution = runtime.execution
        stalled_for = (now - runtime.last_heartbeat_at).total_seconds()
        with transaction.atomic():
            if not runtime_cas(runtime=runtime, status=RuntimeStatus.STALLED, reason="HEARTBEAT_TIMEOUT"):
                continue
            RuntimeAdaptation.objects.create(
                tenant_id=runtime.tenant_id, execution=execution, kind="STATUS", old="RUNNING", new="STALLED",
                reason="HEARTBEAT_TIMEOUT", metrics={"stalled_s": round(stalled_for, 1)},
                runtime_version=runtime.version, at=now,
                message=_message("STATUS", "RUNNING", "STALLED", "HEARTBEAT_TIMEOUT", "-",
                                 {"stalled_s": round(stalled_for, 1)}))
            timeline_add(execution=execution, type=TimelineType.EXECUTION_STALLED,
                         data={"stalled_s": round(stalled_for, 1)}, at=now)
        # Recovery = resume from the checkpoint (the items): the next worker re-validates and continues.
        # A fresh heartbeat as grace: the worker that takes the step over beats from here on.
        runtime_cas(runtime=runtime, status=RuntimeStatus.RUNNING, reason="RECOVERED", last_heartbeat_at=now)
        execution_resume(execution_id=execution.pk, tenant=Tenant.objects.get(pk=runtime.tenant_id))
        recovered.append(str(execution.pk))
    return recovered
