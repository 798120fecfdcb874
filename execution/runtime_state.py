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

REVIEW_CODES = frozenset({"RESOURCE_UNAVAILABLE", "DEADLINE_EXCEEDED"})
ACTIVE = (RuntimeStatus.RUNNING, RuntimeStatus.DEGRADED, RuntimeStatus.WAITING, RuntimeStatus.PAUSED)

# §71 names per adaptation kind (None: recorded, not streamed).
_EVENT_FOR_KIND = {"CONCURRENCY": "EXECUTION_THROTTLED", "BATCH": "BATCH_ADJUSTED", "RESOURCE": "RESOURCE_SWITCHED"}


def default_budget() -> dict[str, int]:
    """§66 / §69 defaults; `RUNTIME_BUDGET` in settings overrides any of them."""
    return {"max_duration_s": 3600, "max_steps": 5000, "max_api_calls": 20000, "max_retries":
            settings.EXECUTION_RETRY_BUDGET, "max_llm_calls": 0, "max_replans": 2,
            "max_depth": 3, **settings.RUNTIME_BUDGET}


def heartbeat_timeout_s() -> int:
    return settings.RUNTIME_HEARTBEAT_TIMEOUT_SECONDS or max(3, settings.EXECUTION_STEP_LEASE_SECONDS * 2)


def runtime_ensure(execution: Execution) -> RuntimeExecution:
    runtime = RuntimeExecution.objects.for_tenant(execution.tenant_id).filter(execution=execution).first()
    if runtime is not None:
        return runtime
    now = timezone.now()
    budget = default_budget()
    try:
        with transaction.atomic():
            return RuntimeExecution.objects.create(
                tenant_id=execution.tenant_id, execution=execution, budget=budget,
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
                       heartbeat: bool = False, once: bool = False, data: dict[str, Any] | None = None) -> bool:
    """Move the runtime (CAS, retried on a lost race) and record why. `heartbeat=True` only beats."""
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
    """A batch stopped before its end: TERMINATED for a kill switch (§108), FAILED otherwise (§67, §116)."""
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


def checkpoint_write(*, execution: Execution, step_id: str, completed: int, api_calls: int,
                     steps: int) -> RuntimeCheckpoint:
    """A chunk boundary: progress, usage against the budget, the runtime version and what a resume
    must re-validate (§49-§51)."""
    from django.db.models import F

    runtime = runtime_ensure(execution)
    now = timezone.now()
    RuntimeExecution.objects.for_tenant(execution.tenant_id).filter(pk=runtime.pk).update(
        last_heartbeat_at=now, api_calls=F("api_calls") + api_calls, steps=F("steps") + steps)
    return RuntimeCheckpoint.objects.create(
        tenant_id=execution.tenant_id, execution=execution, step_id=step_id, state_version=runtime.version,
        completed=completed, context_ref=f"{execution.plan.canonical_hash}:{execution.receipt_id}"[:200],
        created_at=now)


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
                  .filter(status__in=ACTIVE, execution__status="running"))
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
