"""Recording a step's outcome (PRD-006 §22, §29-§31): the final fields and timeline rows written
only if this worker still holds the step (a conditional UPDATE on status and attempt), or a retry
scheduled within the capability's attempts and the execution's one retry budget.

On PostgreSQL a final outcome is recorded together with the execution's row lock and the read of
the other step runs in one statement (`lock_and_record`); `record` is the ORM path writing the
same rows. Either runs inside the engine's `_finish` transaction.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.db.models import F

from planning.models import PlanStep
from registry.selectors import registry_snapshot
from tenancy import clock

from . import metrics
from .cancel import cancel_marker
from .dispatch import dispatch
from .errors import ErrorClass
from .models import IN_FLIGHT, Execution, StepRun, StepStatus, TimelineEntry, TimelineType
from .outcome import StepOutcome
from .retry import IN_PROGRESS_CODE, IN_PROGRESS_WAIT_S, RetryPolicy, budget_spend, in_progress_wait
from .rows import LOCK_FIELDS, RUN_STATE_FIELDS, fetch_runs, json_param, run_columns, step_runs
from .states import STEP
from .timeline import conversation_event, timeline_add_many

_FINAL_STATUS = {"completed": StepStatus.COMPLETED, "failed": StepStatus.FAILED, "skipped": StepStatus.SKIPPED,
                 "unknown": StepStatus.UNKNOWN}
_FINAL_ENTRY = {"completed": TimelineType.STEP_COMPLETED, "failed": TimelineType.STEP_FAILED,
                "skipped": TimelineType.STEP_SKIPPED, "unknown": TimelineType.STEP_UNKNOWN}


def _may_retry(execution: Execution, run: StepRun, plan_step: PlanStep,
               outcome: StepOutcome) -> tuple[float, bool] | None:
    """The retry policy (execution/retry.py) on a step's failed attempt: (the delay, whether the
    attempt counts), or None when it is not retried. An in-progress wait gives its attempt back."""
    error = outcome.error or {}
    if error.get("code") == IN_PROGRESS_CODE:
        waiting = in_progress_wait(run.error, error)
        if waiting is None:
            return None
        outcome.error = waiting
        return IN_PROGRESS_WAIT_S, False
    policy = RetryPolicy.of(registry_snapshot().get(plan_step.capability_id))
    if not policy.allows(attempts=run.attempts, error_class=error.get("class")) or not budget_spend(execution):
        return None
    return policy.delay_s(run.attempts), True


def _learns_how_it_ended(outcome: StepOutcome) -> bool:
    error = outcome.error or {}
    return error.get("code") == IN_PROGRESS_CODE or error.get("class") in (ErrorClass.TIMEOUT, ErrorClass.NETWORK)


def record(execution: Execution, run: StepRun, plan_step: PlanStep,
           outcome: StepOutcome) -> dict[str, StepRun] | None:
    """Persist the outcome if this worker still holds the step: the execution's step runs after it,
    or None when it lost the step (taken over) or scheduled a retry. Inside the engine's `_finish`
    transaction.

    The step's timeline rows (verification notes, then the final entry) are written after the
    conditional UPDATE that proves this worker still holds the step, in one INSERT.
    """
    now = clock.now()
    if outcome.status == "retry":
        # A cancelled execution lets a calling step end, never start again (execution/cancel.py): the
        # only repeat still made is one that learns how its call ended — after a timeout or a lost
        # connection (the same idempotency key replays the first answer) or while the API still runs
        # the key's first request. Marked failed instead, a write that did happen would be left out.
        ending = not cancel_marker(execution) or _learns_how_it_ended(outcome)
        retry = _may_retry(execution, run, plan_step, outcome) if ending else None
        if retry is not None:
            _reschedule(execution, run, plan_step, outcome, list(outcome.entries), retry, now)
            return None
        outcome.status = "failed"
    fields, entries = _final(run, outcome, now)
    base = StepRun.objects.for_tenant(execution.tenant_id).filter(pk=run.pk, status=StepStatus.RUNNING,
                                                                  attempts=run.attempts)
    if base.update(**fields, lease_until=None, calls=F("calls") + outcome.calls,
                   call_ms=F("call_ms") + outcome.call_ms) != 1:
        return None
    timeline_add_many(execution=execution, step_id=run.step_id, entries=entries)
    return step_runs(execution)


def _final(run: StepRun, outcome: StepOutcome, now) -> tuple[dict[str, Any], list]:
    """The step run's final fields and its timeline rows (verification notes, then the final entry).

    Both record paths move the step only from running (their WHERE clause, with this worker's
    attempt); the move to the final status is checked against the table here."""
    status = STEP.check(StepStatus.RUNNING, _FINAL_STATUS[outcome.status])
    data = {"attempt": run.attempts, **({"error": outcome.error} if outcome.error else {})}
    entries = [*outcome.entries, (_FINAL_ENTRY[outcome.status], data, now)]
    return {"status": status, "result": outcome.result, "error": outcome.error,
            "input": outcome.input, "finished_at": now}, entries


def _reschedule(execution: Execution, run: StepRun, plan_step: PlanStep, outcome: StepOutcome,
                entries: list, retry: tuple[float, bool], now) -> None:
    """Back to dispatched with RETRY_SCHEDULED, sent again after the delay (the budget was spent in
    this transaction); an attempt that does not count is given back, as a batch item's is."""
    delay, counted = retry
    base = StepRun.objects.for_tenant(execution.tenant_id).filter(
        pk=run.pk, status__in=STEP.guard(StepStatus.DISPATCHED, StepStatus.RUNNING), attempts=run.attempts)
    if base.update(status=StepStatus.DISPATCHED, error=outcome.error, dispatched_at=now,
                   attempts=F("attempts") - (0 if counted else 1),
                   calls=F("calls") + outcome.calls, call_ms=F("call_ms") + outcome.call_ms) != 1:
        transaction.set_rollback(True)  # taken over: give the retry budget back
        return
    entries.append((TimelineType.RETRY_SCHEDULED, {"attempt": run.attempts, "delay_ms": round(delay * 1000),
                                                   "error": outcome.error}, now))
    timeline_add_many(execution=execution, step_id=run.step_id, entries=entries)
    dispatch(execution.pk, run.step_id, countdown=delay)
    transaction.on_commit(metrics.STEP_RETRIES.labels(capability=plan_step.capability_id).inc)


# `rows.locked` + `record` (ORM path) in one statement: the execution row locked first (the InitPlans
# on `locked` gate the step-run scans, so the lock order stays execution → step runs), the step's
# conditional UPDATE, its timeline rows (only if the UPDATE took the row: a step lost to a takeover
# writes nothing) and the execution's other step runs — as of the statement's start, which may be
# before a wait on the lock: see `lock_and_record`.
_LOCK_AND_RECORD_SQL = f"""
WITH locked AS (
    SELECT {", ".join(LOCK_FIELDS)} FROM {Execution._meta.db_table}
     WHERE id = %(execution)s AND tenant_id = %(tenant)s FOR UPDATE
), done AS (
    UPDATE {StepRun._meta.db_table}
       SET status = %(status)s, result = %(result)s::jsonb, error = %(error)s::jsonb, input = %(input)s::jsonb,
           finished_at = %(finished_at)s, lease_until = NULL, calls = calls + %(calls)s, call_ms = call_ms + %(call_ms)s
     WHERE id = %(run)s AND tenant_id = %(tenant)s AND status = %(running)s AND attempts = %(attempts)s
       AND EXISTS (SELECT 1 FROM locked)
 RETURNING {run_columns(fields=RUN_STATE_FIELDS)}
), entries AS (
    INSERT INTO {TimelineEntry._meta.db_table} (tenant_id, execution_id, type, step_id, at, data)
    SELECT %(tenant)s, %(execution)s, e.type, %(step)s, e.at, e.data
      FROM unnest(%(types)s::text[], %(ats)s::timestamptz[], %(datas)s::jsonb[]) WITH ORDINALITY AS e(type, at, data, n)
     WHERE EXISTS (SELECT 1 FROM done)
     ORDER BY e.n
), others AS (
    SELECT {run_columns(fields=RUN_STATE_FIELDS)} FROM {StepRun._meta.db_table}
     WHERE tenant_id = %(tenant)s AND execution_id = %(execution)s AND id <> %(run)s AND EXISTS (SELECT 1 FROM locked)
)
SELECT runs.*, locked.* FROM (SELECT * FROM done UNION ALL SELECT * FROM others) AS runs, locked
"""


def lock_and_record(execution: Execution, run: StepRun,
                    outcome: StepOutcome) -> tuple[Execution, dict[str, StepRun] | None]:
    """`rows.locked` and `record` for a final outcome, in one statement (PostgreSQL). Updates `execution`."""
    fields, entries = _final(run, outcome, clock.now())
    rows = fetch_runs(_LOCK_AND_RECORD_SQL, {
        **fields, "result": json_param(fields["result"]), "error": json_param(fields["error"]),
        "input": json_param(fields["input"]),
        "calls": outcome.calls, "call_ms": outcome.call_ms, "run": run.pk, "tenant": execution.tenant_id,
        "running": StepStatus.RUNNING, "attempts": run.attempts, "execution": execution.pk, "step": run.step_id,
        "types": [t for t, _, _ in entries], "ats": [at for _, _, at in entries],
        "datas": [json.dumps(data or {}) for _, data, _ in entries]}, fields=RUN_STATE_FIELDS)
    if rows:
        status, needs_review, finished_at, error = rows[0][1]
        execution.status, execution.needs_review, execution.finished_at = status, needs_review, finished_at
        execution.error = None if error is None else json.loads(error)
    runs = sorted((r for r, _ in rows), key=lambda r: r.position)
    if not any(r.pk == run.pk for r in runs):  # the UPDATE did not take the row: the step was lost
        return execution, None
    if any(r.status in IN_FLIGHT for r in runs if r.pk != run.pk):
        # Another step was running or sent: it may have been recorded (or resumed) by a transaction
        # this statement waited for on the lock, after its snapshot. Read the runs again, now that
        # the lock is held. Otherwise nothing but a claim of a pending step can have changed them
        # meanwhile, and the dispatch UPDATE (pending rows only) re-checks that: a chain needs no re-read.
        runs = [r for r, _ in fetch_runs(_RUNS_SQL, {"tenant": execution.tenant_id, "execution": execution.pk},
                                         fields=RUN_STATE_FIELDS)]
    return execution, {r.step_id: r for r in runs}


_RUNS_SQL = (f"SELECT {run_columns(fields=RUN_STATE_FIELDS)} FROM {StepRun._meta.db_table} "
             "WHERE tenant_id = %(tenant)s AND execution_id = %(execution)s ORDER BY position")


_DONE_FOR_PROGRESS = (StepStatus.COMPLETED, StepStatus.SKIPPED, StepStatus.FAILED, StepStatus.UNKNOWN)


def progress(execution: Execution, plan_step: PlanStep, runs: Mapping[str, StepRun]) -> None:
    if execution.conversation_id is None:
        return
    conversation_event(execution=execution, type="EXECUTION_PROGRESS", payload={
        "step_id": plan_step.step_id, "capability": plan_step.capability_id, "label": plan_step.label,
        "status": runs[plan_step.step_id].status, "total": len(runs),
        "done": sum(1 for r in runs.values() if r.status in _DONE_FOR_PROGRESS)})

