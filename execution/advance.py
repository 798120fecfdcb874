"""Advancing an execution after a step's outcome (PRD-006 §16-§18): dispatch every ready step
(independent ones in parallel, one UPDATE), cascade skips past failed dependencies, stop the plan
on a failure it does not allow — compensating what completed, or failing it — and settle when
nothing is left. Always under the execution's row lock, so the lock order is execution → step runs.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import F

from planning.models import PlanStep
from registry.selectors import registry_version_sql
from tenancy import clock

from . import rows
from .cancel import cancel_marker, cancel_resumed, cancel_settle
from .dispatch import dispatch, dispatch_compensation
from .limits import step_lease
from .models import IN_FLIGHT, Execution, ExecutionStatus, StepRun, StepStatus, TimelineEntry, TimelineType
from .outcome import Claim
from .rows import fetch_runs, plan_steps_cached, run_columns, step_runs
from .settle import plan_status_mirror, settle
from .states import EXECUTION, STEP
from .timeline import timeline_add

FAILED_DEPS = frozenset({StepStatus.SKIPPED, StepStatus.FAILED, StepStatus.UNKNOWN, StepStatus.COMPENSATED})


def advance(execution_id: Any, *, locked: Execution | None = None, runs: dict[str, StepRun] | None = None,
            inline: bool = False) -> Claim | None:
    """Dispatch every ready step, cascade skips, stop on failure, settle when nothing is left.

    `locked`: the execution row the caller already holds FOR UPDATE in its open transaction, and
    `runs` its step runs read after that lock. `inline`: claim one ready step for the caller to run
    itself after the commit (returned) instead of sending it.
    """
    compensate = False
    claimed = None
    with transaction.atomic(savepoint=False):
        execution = locked if locked is not None else rows.locked(execution_id)
        if execution is None or execution.status != ExecutionStatus.RUNNING:
            return None
        runs = runs if runs is not None else step_runs(execution)
        steps = plan_steps_cached(execution.tenant_id, execution.plan_id)
        failed = [r for r in runs.values() if r.status in (StepStatus.FAILED, StepStatus.UNKNOWN)]
        marker = cancel_marker(execution)
        if marker is not None:  # cancelled: only what it found calling ends (execution/cancel.py)
            claimed = _dispatch_ready(execution, cancel_resumed(marker, runs), inline=inline)
            compensate = cancel_settle(execution, runs, steps, marker)
        elif failed and (not execution.plan.allow_partial or _killed(failed)):
            compensate = _stop(execution, runs, steps, failed)
        else:
            _cascade_skips(execution, runs, steps)
            ready = [r for sid, r in runs.items() if r.status == StepStatus.PENDING
                     and all(runs[d].status == StepStatus.COMPLETED for d in steps[sid].depends_on)]
            claimed = _dispatch_ready(execution, ready, inline=inline)
            if not any(r.status in (StepStatus.PENDING, *IN_FLIGHT) for r in runs.values()):
                settle(execution, _final_status(execution, runs, steps))
    if compensate:
        dispatch_compensation(execution_id)
    return claimed


def _dispatch_ready(execution: Execution, ready: list[StepRun], *, inline: bool) -> Claim | None:
    """Mark the ready steps dispatched (one UPDATE) and send each after the commit; with `inline`, the
    first is instead claimed here (running, lease, STEP_STARTED) and returned. Only pending rows change:
    a step a stray message claimed meanwhile is left to its holder."""
    if not ready:
        return None
    now = clock.now()  # dispatched_at: when the step is marked dispatched, before it is sent or run
    own = ready[0] if inline else None
    if rows.fast_sql():
        claimed = _dispatch_one_statement(execution, ready, own, now)
    else:
        claimed = _dispatch_orm(execution, ready, own, now)
    for run in ready:
        if run is not own:
            run.status = StepStatus.DISPATCHED
            dispatch(execution.pk, run.step_id)
    if own is not None:
        own.status = StepStatus.RUNNING if claimed is not None else StepStatus.DISPATCHED
    return claimed


def _dispatch_orm(execution: Execution, ready: list[StepRun], own: StepRun | None, now) -> Claim | None:
    runs = StepRun.objects.for_tenant(execution.tenant_id)
    others = [r.pk for r in ready if r is not own]
    if others:
        runs.filter(pk__in=others, status__in=STEP.guard(StepStatus.DISPATCHED, StepStatus.PENDING)).update(
            status=StepStatus.DISPATCHED, dispatched_at=now)
    if own is None or runs.filter(pk=own.pk, status__in=STEP.guard(StepStatus.RUNNING, StepStatus.PENDING)).update(
            status=StepStatus.RUNNING, dispatched_at=now, started_at=now, attempts=F("attempts") + 1,
            lease_until=now + step_lease()) != 1:
        return None
    claimed = StepRun.objects.for_tenant(execution.tenant_id).get(pk=own.pk)
    timeline_add(execution=execution, type=TimelineType.STEP_STARTED, step_id=claimed.step_id, at=now,
                 data={"attempt": claimed.attempts, "inline": True})
    return Claim(claimed)


# `_dispatch_orm` in one statement: the ready rows to dispatched, the caller's own one to running with
# a lease, and its STEP_STARTED row. The WHERE clause is the transition guard: only pending rows move,
# and the table allows pending → dispatched and pending → running (checked here, at import).
STEP.guard(StepStatus.DISPATCHED, StepStatus.PENDING)
STEP.guard(StepStatus.RUNNING, StepStatus.PENDING)
_DISPATCH_SQL = f"""
WITH ready AS (
    UPDATE {StepRun._meta.db_table} AS s
       SET status = CASE WHEN s.id = %(own)s THEN %(running)s ELSE %(dispatched)s END,
           dispatched_at = %(now)s,
           started_at = CASE WHEN s.id = %(own)s THEN %(now)s ELSE s.started_at END,
           attempts = CASE WHEN s.id = %(own)s THEN s.attempts + 1 ELSE s.attempts END,
           lease_until = CASE WHEN s.id = %(own)s THEN %(lease)s ELSE s.lease_until END
     WHERE s.tenant_id = %(tenant)s AND s.execution_id = %(execution)s AND s.id = ANY(%(ids)s)
       AND s.status = %(pending)s
 RETURNING {run_columns("s")}
), started AS (
    INSERT INTO {TimelineEntry._meta.db_table} (tenant_id, execution_id, type, step_id, at, data)
    SELECT tenant_id, execution_id, %(started)s, step_id, %(now)s,
           jsonb_build_object('attempt', attempts, 'inline', true)
      FROM ready WHERE id = %(own)s
)
SELECT *, {registry_version_sql()} FROM ready WHERE id = %(own)s
"""


def _dispatch_one_statement(execution: Execution, ready: list[StepRun], own: StepRun | None, now) -> Claim | None:
    returned = fetch_runs(_DISPATCH_SQL, {
        "own": own.pk if own is not None else None, "running": StepStatus.RUNNING,
        "dispatched": StepStatus.DISPATCHED, "now": now, "lease": now + step_lease(), "tenant": execution.tenant_id,
        "execution": execution.pk, "ids": [r.pk for r in ready], "pending": StepStatus.PENDING,
        "started": TimelineType.STEP_STARTED})
    return Claim(returned[0][0], returned[0][1][0]) if returned else None


def _cascade_skips(execution: Execution, runs: dict[str, StepRun], steps: dict[str, PlanStep]) -> None:
    changed = True
    while changed:
        changed = False
        for step_id, run in runs.items():
            if run.status == StepStatus.PENDING and any(runs[d].status in FAILED_DEPS
                                                        for d in steps[step_id].depends_on):
                _skip(execution, run, "DEPENDENCY_NOT_COMPLETED")
                changed = True


def _skip(execution: Execution, run: StepRun, code: str) -> None:
    StepRun.objects.for_tenant(execution.tenant_id).filter(
        pk=run.pk, status__in=STEP.guard(StepStatus.SKIPPED, StepStatus.PENDING)).update(
        status=StepStatus.SKIPPED, error={"code": code}, finished_at=clock.now())
    run.status = StepStatus.SKIPPED
    timeline_add(execution=execution, type=TimelineType.STEP_SKIPPED, step_id=run.step_id, data={"code": code})


def _stop(execution: Execution, runs: dict[str, StepRun], steps: dict[str, PlanStep], failed: list[StepRun]) -> bool:
    """The plan cannot continue: skip what has not started; once nothing is in flight, compensate or fail."""
    for run in runs.values():
        if run.status == StepStatus.PENDING:
            _skip(execution, run, "PLAN_STOPPED")
    if any(r.status in IN_FLIGHT for r in runs.values()):
        return False
    codes = {(r.error or {}).get("code") for r in failed}
    unknown = any(r.status == StepStatus.UNKNOWN for r in failed)
    compensable = [r for r in runs.values() if r.status == StepStatus.COMPLETED and steps[r.step_id].compensation]
    first = min(failed, key=lambda r: r.finished_at or clock.now())
    error = {"code": "STEP_UNKNOWN" if unknown else (first.error or {}).get("code"), "step_id": first.step_id,
             "step_error": first.error}
    if unknown or "KILL_SWITCH" in codes or not compensable:
        # UNKNOWN: a human decides (undoing around an unknown effect could make it worse).
        settle(execution, ExecutionStatus.FAILED, error=error, needs_review=unknown)
        return False
    Execution.objects.for_tenant(execution.tenant_id).filter(
        pk=execution.pk, status__in=EXECUTION.guard(ExecutionStatus.COMPENSATING, execution.status)).update(
        status=ExecutionStatus.COMPENSATING, error=error)
    execution.status = ExecutionStatus.COMPENSATING
    plan_status_mirror(execution, "compensating")
    return True


def _killed(failed: list[StepRun]) -> bool:
    """A kill switch stops even a plan that allows partial success: what it stopped is not a step that
    failed on its own, and the execution ends failed (its runtime TERMINATED), never partially completed."""
    return any((r.error or {}).get("code") == "KILL_SWITCH" for r in failed)


def _final_status(execution: Execution, runs: dict[str, StepRun], steps: dict[str, PlanStep]) -> str:
    statuses = [r.status for r in runs.values()]
    if any(s in (StepStatus.FAILED, StepStatus.UNKNOWN) for s in statuses) or _items_failed(execution, steps):
        return (ExecutionStatus.PARTIALLY_COMPLETED if StepStatus.COMPLETED in statuses
                else ExecutionStatus.FAILED)
    return ExecutionStatus.COMPLETED


def _items_failed(execution: Execution, steps: dict[str, PlanStep]) -> bool:
    """A step with failed items (a batch, `for_each`) makes the execution partial: read once, when settling
    — and only for a plan that has such a step (no other step's result holds items)."""
    if not any(step.for_each for step in steps.values()):
        return False
    results = (StepRun.objects.for_tenant(execution.tenant_id).filter(execution=execution, result__has_key="failed")
               .values_list("result", flat=True))
    return any(isinstance(r, dict) and r.get("failed") for r in results)

