"""RuntimeExecution state (PRD-034 §5, §95-§101): compare-and-set transitions, adaptations with their
reason and metrics, budgets taken one by one, checkpoints, heartbeats, and the runtime events of §71.

Every status change is a conditional UPDATE on `version` (optimistic CAS): two workers or two beats
deciding at once produce one transition; the loser re-reads. Each change writes an append-only
RuntimeAdaptation carrying the version it produced (the snapshot chain), and the §71 event goes to
the execution timeline and, when the plan has a conversation, to its event stream.

Pausing and resuming by a person are in execution/runtime_control.py; the heartbeat watchdog in
execution/watchdog.py.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import structlog
from django.db import IntegrityError, transaction
from django.db.models import F

from tenancy import clock

from .control import Change
from .limits import default_budget, heartbeat_timeout_s, start_clock_now
from .messages import both
from .models import (
    Execution,
    RuntimeAdaptation,
    RuntimeCheckpoint,
    RuntimeExecution,
    RuntimeStatus,
    TimelineType,
)
from .states import RUNTIME
from .timeline import conversation_event, timeline_add

log = structlog.get_logger(__name__)

REVIEW_CODES = frozenset({"RESOURCE_UNAVAILABLE", "DEADLINE_EXCEEDED", "DEPTH_LIMIT", "REPLAN_REFUSED"})
# Statuses only a person (resume) or a stop moves the runtime out of: the controller's own
# transitions (RESOURCE_BACK, DEGRADED, WAITING…) never un-pause it.
HELD = (RuntimeStatus.PAUSED, RuntimeStatus.STOPPING)
FINAL = (RuntimeStatus.TERMINATED, RuntimeStatus.FAILED, RuntimeStatus.COMPLETED)

# §71 names per adaptation kind (None: recorded, not streamed).
_EVENT_FOR_KIND = {"CONCURRENCY": "EXECUTION_THROTTLED", "BATCH": "BATCH_ADJUSTED", "RESOURCE": "RESOURCE_SWITCHED"}


def runtime_ensure(execution: Execution) -> RuntimeExecution:
    runtime = RuntimeExecution.objects.for_tenant(execution.tenant_id).filter(execution=execution).first()
    if runtime is not None:
        return runtime
    now = clock.now()
    budget = default_budget()
    # The LLM call that planned this execution is spent from its budget (§66).
    planned_by_llm = execution.plan.planner == "llm"
    # The deadline is compared with tenancy.clock; the start was read on the receipts' clock
    # (execution/limits.py): what is left of the time budget on that clock, from tenancy.clock's now.
    left = execution.started_at + timedelta(seconds=budget["max_duration_s"]) - start_clock_now()
    try:
        with transaction.atomic():
            return RuntimeExecution.objects.create(
                tenant_id=execution.tenant_id, execution=execution, budget=budget, llm_calls=int(planned_by_llm),
                deadline_at=now + left,
                heartbeat_timeout_s=heartbeat_timeout_s(), last_heartbeat_at=now, updated_at=now)
    except IntegrityError:
        return RuntimeExecution.objects.for_tenant(execution.tenant_id).get(execution=execution)


def runtime_cas(*, runtime: RuntimeExecution, **changes: Any) -> bool:
    """Apply `changes` only if nobody moved the runtime since `runtime` was read (§97).

    The version in the WHERE clause is the transition guard: the row is still in `runtime.status`,
    so a new status is checked against the table from that one."""
    if "status" in changes:
        RUNTIME.check(runtime.status, changes["status"])
    updated = (RuntimeExecution.objects.for_tenant(runtime.tenant_id)
               .filter(pk=runtime.pk, version=runtime.version)
               .update(version=runtime.version + 1, updated_at=clock.now(), **changes))
    if updated == 1:
        runtime.version += 1
        for key, value in changes.items():
            setattr(runtime, key, value)
    return updated == 1


def adaptation_message(kind: str, old: Any, new: Any, reason: str, lane: str,
                       metrics: dict[str, Any]) -> dict[str, str]:
    return both("runtime.adaptation", kind=kind, old=old, new=new, lane=lane, reason=reason,
                facts=", ".join(f"{k}={v}" for k, v in metrics.items()) or "-")


def adaptation_record(*, execution: Execution, lane: str, change: Change, resource_label: str = "") -> None:
    """An adaptation of a lane (AIMD, batch, timeout, breaker, health): audit row, timeline, §71 event."""
    runtime = runtime_ensure(execution)
    now = clock.now()
    with transaction.atomic():
        RuntimeAdaptation.objects.create(
            tenant_id=execution.tenant_id, execution=execution, kind=change.kind, lane=lane, old=change.old,
            new=change.new, reason=change.reason, metrics=change.metrics, runtime_version=runtime.version, at=now,
            message=adaptation_message(change.kind, change.old, change.new, change.reason, lane, change.metrics))
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
    now = clock.now()
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
                message=adaptation_message(kind, old if old is not None else old_status,
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
    # One statement: every status but a final one may move to a final one (states.RUNTIME), and the status
    # guard in the WHERE clause does what the version check of runtime_cas does after a read.
    (RuntimeExecution.objects.for_tenant(execution.tenant_id).filter(execution=execution)
     .exclude(status__in=(RuntimeStatus.TERMINATED, RuntimeStatus.FAILED, RuntimeStatus.COMPLETED))
     .update(status=final, reason=status[:64], version=F("version") + 1, updated_at=clock.now()))


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


# --- checkpoints (§49-§51) ----------------------------------------------------------------------


def context_ref(execution: Execution) -> str:
    """What a resume re-validates a checkpoint against: the plan's hash and the receipt."""
    return f"{execution.plan.canonical_hash}:{execution.receipt_id}"[:200]


def checkpoint_write(*, execution: Execution, step_id: str, completed: int, api_calls: int,
                     steps: int) -> RuntimeCheckpoint:
    """A chunk boundary: progress, usage against the budget, the runtime version and what a resume
    must re-validate (§49-§51)."""
    runtime = runtime_ensure(execution)
    now = clock.now()
    RuntimeExecution.objects.for_tenant(execution.tenant_id).filter(pk=runtime.pk).update(
        last_heartbeat_at=now, api_calls=F("api_calls") + api_calls, steps=F("steps") + steps)
    return RuntimeCheckpoint.objects.create(
        tenant_id=execution.tenant_id, execution=execution, step_id=step_id, state_version=runtime.version,
        completed=completed, context_ref=context_ref(execution), created_at=now)
