"""The watchdog (PRD-034 §45-§48), run by beat (`execution.watchdog` → `watchdog_sweep`): work nobody
is doing any more is recovered by one of three strategies (§48), chosen per step by `recovery_for`:

- **resume** — the step's worker died (its lease expired) or its message was lost (dispatched longer
  than a lease ago), and repeating it is safe: a read, an idempotent write, or a write whose API
  honours the idempotency key (the repeat carries the same `agent:{plan}:{step}` key). Back to
  pending and dispatched now; the next worker re-validates (receipt, live policy) before calling.
  A batch step always resumes: its items are the checkpoint, each with its own key.
- **retry** — the step's last outcome is a known-retryable failure (timeout, 429, 5xx…): a retry
  scheduled whose message never came, or a worker that died while retrying. Sent again under the
  capability's retry policy (its backoff from the attempt reached), recorded as a RETRY_SCHEDULED.
- **escalate** — the attempts are exhausted (a step that keeps losing its worker is not resumed
  forever), or a write that may have reached the API and is not safe to repeat died mid-call: its
  outcome is unknown, and invariant 8 forbids a blind repeat. The step becomes UNKNOWN, the
  execution NEEDS_REVIEW, the conversation gets an EXECUTION_PROGRESS event saying so, the metric
  counts it, a warning is logged; then the execution advances (stops, compensates or settles as
  for any unknown step), so the user is told.

A runtime whose heartbeat is older than its timeout is marked STALLED first (`runtime_watchdog`),
then its steps go through the same strategies. Every recovery is a conditional UPDATE on the step's
status and attempt under the execution's row lock: a worker that records its outcome at the same
moment wins, and two beats recover a step once. It sits above the engine (it advances executions),
and the tasks module is the only caller.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import structlog
from django.db import transaction
from django.db.models import F, Q
from prometheus_client import Counter

from planning.batch import BATCH_SOURCE
from registry.selectors import CapabilitySpec, registry_snapshot
from tenancy import clock

from . import rows
from .advance import advance
from .dispatch import dispatch
from .lane_store import store
from .limits import step_lease
from .models import (
    Execution,
    ExecutionStatus,
    RuntimeAdaptation,
    RuntimeExecution,
    RuntimeStatus,
    StepRun,
    StepStatus,
    TimelineType,
)
from .retry import RetryPolicy, budget_spend
from .runtime_state import adaptation_message, runtime_cas
from .states import STEP
from .timeline import conversation_event, timeline_add

log = structlog.get_logger(__name__)

RESUME, RETRY, ESCALATE = "resume", "retry", "escalate"
RECOVERIES = Counter("sst_agent_watchdog_recoveries", "Steps the watchdog recovered, by strategy and reason.",
                     ["strategy", "reason"])

# What the watchdog watches: a PAUSED runtime has no worker on purpose (its steps are parked), so no
# heartbeat is expected from it.
WATCHED = (RuntimeStatus.RUNNING, RuntimeStatus.DEGRADED, RuntimeStatus.WAITING, RuntimeStatus.REPLANNING)


@dataclass(frozen=True)
class Recovery:
    strategy: str
    reason: str


def _safe_to_repeat(spec: CapabilitySpec | None) -> bool:
    # A capability gone from the registry is never called again: the next worker fails it first.
    return spec is None or spec.kind != "write" or spec.idempotent or spec.honours_idempotency_key


def recovery_for(run: StepRun, spec: CapabilitySpec | None, *, batch: bool = False) -> Recovery:
    """The strategy for a step nobody works on any more (see the module docstring)."""
    policy = RetryPolicy.of(spec)
    last_class = (run.error or {}).get("class")
    if run.status == StepStatus.DISPATCHED:
        # Never claimed since it was sent: nothing of this attempt ran.
        return Recovery(RETRY, "RETRY_NOT_DELIVERED") if policy.retries(last_class) else Recovery(
            RESUME, "MESSAGE_LOST")
    if batch:
        return Recovery(RESUME, "LEASE_EXPIRED")
    if run.attempts >= policy.max_attempts:
        return Recovery(ESCALATE, "ATTEMPTS_EXHAUSTED")
    if not _safe_to_repeat(spec):
        return Recovery(ESCALATE, "OUTCOME_UNKNOWN")
    if policy.retries(last_class):
        return Recovery(RETRY, "RETRYABLE_OUTCOME")
    return Recovery(RESUME, "LEASE_EXPIRED")


def watchdog_sweep(*, now: datetime | None = None) -> int:
    """The beat's job: stalled runtimes, then stuck steps. How many things it recovered."""
    return len(runtime_watchdog(now=now)) + sum(step_watchdog(now=now).values())


def _stuck(now: datetime) -> Q:
    return (Q(status=StepStatus.RUNNING, lease_until__lt=now)
            | Q(status=StepStatus.DISPATCHED, dispatched_at__lt=now - step_lease()))


def step_watchdog(*, now: datetime | None = None, execution_id: Any = None) -> dict[str, int]:
    """Stuck steps of running executions (all, or one) → their strategy. Counts per strategy."""
    now = now or clock.now()
    counts = {RESUME: 0, RETRY: 0, ESCALATE: 0}
    stuck = StepRun.objects.all_tenants().filter(_stuck(now), execution__status=ExecutionStatus.RUNNING)
    if execution_id is not None:
        stuck = stuck.filter(execution_id=execution_id)
    for pk in stuck.values_list("execution_id", flat=True).distinct():
        for strategy in _recover_execution(pk, now):
            counts[strategy] += 1
    return counts


def _recover_execution(execution_id: Any, now: datetime) -> list[str]:
    done: list[str] = []
    with transaction.atomic():
        execution = rows.locked(execution_id)  # the engine's lock order: execution, then its steps
        if execution is None or execution.status != ExecutionStatus.RUNNING or _paused(execution):
            return done
        snapshot = registry_snapshot()
        steps = rows.plan_steps_cached(execution.tenant_id, execution.plan_id)
        for run in StepRun.objects.for_tenant(execution.tenant_id).filter(_stuck(now), execution=execution):
            plan_step = steps[run.step_id]
            spec = snapshot.get(plan_step.capability_id, tenant=execution.tenant)
            recovery = recovery_for(run, spec, batch=plan_step.for_each == BATCH_SOURCE)
            if _apply(execution, run, recovery, RetryPolicy.of(spec), now):
                done.append(recovery.strategy)
                RECOVERIES.labels(strategy=recovery.strategy, reason=recovery.reason).inc()
    if done:
        advance(execution_id)  # resumed steps are dispatched; an escalated one stops or settles the plan
    return done


def _paused(execution: Execution) -> bool:
    """A person paused it: its steps are parked (dispatched) on purpose until the resume sends them."""
    return RuntimeExecution.objects.for_tenant(execution.tenant_id).filter(
        execution=execution, status=RuntimeStatus.PAUSED).exists()


def _apply(execution: Execution, run: StepRun, recovery: Recovery, policy: RetryPolicy, now: datetime) -> bool:
    """The strategy's write, only if the step is still as the sweep saw it (status and attempt)."""
    data = {"steps": [run.step_id], "strategy": recovery.strategy, "reason": recovery.reason, "by": "watchdog"}
    if recovery.strategy == RESUME:
        if _move(execution, run, StepStatus.PENDING, lease_until=None) != 1:
            return False
        timeline_add(execution=execution, type=TimelineType.EXECUTION_RESUMED, data=data, at=now)
        return True
    if recovery.strategy == RETRY:
        return _retry(execution, run, policy, data, now)
    return _escalate(execution, run, recovery, now)


def _move(execution: Execution, run: StepRun, status: str, **fields: Any) -> int:
    return StepRun.objects.for_tenant(execution.tenant_id).filter(
        pk=run.pk, status__in=STEP.guard(status, run.status), attempts=run.attempts).update(status=status, **fields)


def _retry(execution: Execution, run: StepRun, policy: RetryPolicy, data: dict[str, Any], now: datetime) -> bool:
    if run.status == StepStatus.DISPATCHED:
        # A scheduled retry never delivered: its attempt and budget were taken when it was scheduled,
        # and its backoff has long passed (dispatched over a lease ago): sent again now.
        delay = 0.0
        if _move(execution, run, StepStatus.PENDING, lease_until=None) != 1:
            return False
    else:
        # Its worker died while retrying a retryable failure: one more retry, as the engine would
        # schedule it — from the execution's budget, after the policy's backoff.
        if not budget_spend(execution):
            return _escalate(execution, run, Recovery(ESCALATE, "RETRY_BUDGET_SPENT"), now)
        delay = policy.delay_s(max(1, run.attempts))
        if _move(execution, run, StepStatus.DISPATCHED, lease_until=None, dispatched_at=now) != 1:
            # A worker recorded it meanwhile: the retry taken from the budget is given back.
            Execution.objects.for_tenant(execution.tenant_id).filter(pk=execution.pk).update(
                retry_budget=F("retry_budget") + 1)
            return False
        dispatch(execution.pk, run.step_id, countdown=delay)
    timeline_add(execution=execution, type=TimelineType.RETRY_SCHEDULED, step_id=run.step_id, at=now,
                 data={**data, "attempt": run.attempts, "delay_ms": round(delay * 1000), "error": run.error})
    return True


def _escalate(execution: Execution, run: StepRun, recovery: Recovery, now: datetime) -> bool:
    error = {"code": "WATCHDOG_ESCALATED", "reason": recovery.reason, "class": None, "attempts": run.attempts,
             "last_error": run.error}
    if _move(execution, run, StepStatus.UNKNOWN, lease_until=None, finished_at=now, error=error) != 1:
        return False
    Execution.objects.for_tenant(execution.tenant_id).filter(pk=execution.pk).update(needs_review=True)
    timeline_add(execution=execution, type=TimelineType.STEP_UNKNOWN, step_id=run.step_id, at=now,
                 data={"error": error, "by": "watchdog"})
    conversation_event(execution=execution, type="EXECUTION_PROGRESS", payload={
        "step_id": run.step_id, "status": StepStatus.UNKNOWN, "needs_review": True, "reason": recovery.reason})
    log.warning("watchdog_escalated", execution=str(execution.pk), step=run.step_id, reason=recovery.reason,
                attempts=run.attempts)
    return True


def runtime_watchdog(*, now: datetime | None = None) -> list[str]:
    """Runtimes whose heartbeat is older than their timeout → STALLED → their steps recovered.

    Two beats running at once do not double the work: a short Redis lock lets one sweep at a time,
    and each STALLED transition is a CAS, so one execution is recovered once per stall.
    """
    if not store().lock("rt:watchdog", ttl_s=5):
        return []
    now = now or clock.now()
    recovered = []
    candidates = (RuntimeExecution.objects.all_tenants().select_related("execution")
                  .filter(status__in=WATCHED, execution__status="running"))
    for runtime in candidates:
        if runtime.last_heartbeat_at + timedelta(seconds=runtime.heartbeat_timeout_s) > now:
            continue
        if _stall(runtime, now):
            # Recovery from the checkpoint (the items): the next worker re-validates and continues. A
            # fresh heartbeat as grace: the worker that takes the step over beats from here on.
            runtime_cas(runtime=runtime, status=RuntimeStatus.RUNNING, reason="RECOVERED", last_heartbeat_at=now)
            step_watchdog(now=now, execution_id=runtime.execution_id)
            advance(runtime.execution_id)
            recovered.append(str(runtime.execution_id))
    return recovered


def _stall(runtime: RuntimeExecution, now: datetime) -> bool:
    execution = runtime.execution
    stalled_s = round((now - runtime.last_heartbeat_at).total_seconds(), 1)
    with transaction.atomic():
        if not runtime_cas(runtime=runtime, status=RuntimeStatus.STALLED, reason="HEARTBEAT_TIMEOUT"):
            return False
        RuntimeAdaptation.objects.create(
            tenant_id=runtime.tenant_id, execution=execution, kind="STATUS", old="RUNNING", new="STALLED",
            reason="HEARTBEAT_TIMEOUT", metrics={"stalled_s": stalled_s}, runtime_version=runtime.version, at=now,
            message=adaptation_message("STATUS", "RUNNING", "STALLED", "HEARTBEAT_TIMEOUT", "-",
                                       {"stalled_s": stalled_s}))
        timeline_add(execution=execution, type=TimelineType.EXECUTION_STALLED, data={"stalled_s": stalled_s},
                     at=now)
    return True
