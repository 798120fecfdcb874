"""Cancelling a running execution (PRD-010 §18, ARCHITECTURE.md invariant 7: cancel stops what has
not finished; undo compensates what has).

A cancel, under the execution's row lock:
- skips every step not started: pending ones, and dispatched ones a worker has not claimed yet —
  the claim (execution/claim.py) moves only pending/dispatched rows, so the worker that receives
  such a step's message later finds it skipped and does nothing;
- leaves the steps already calling (running) to end, since a request that is out cannot be
  recalled: the execution stays running, marked by `error = {"code": "CANCEL_REQUESTED", …}`
  (read with the row lock `advance` already takes, so the hot path pays no extra query), starts
  nothing new and retries nothing;
- once nothing is in flight, settles CANCELLED — or, when the tenant's cancel rule
  (policy/cancel.py) says `compensate` and a step that finished after the cancel has a registered
  compensation, runs the saga of execution/compensation.py on those steps only, and then settles
  CANCELLED.

The marker and the final `error` carry the same facts — who, when, the rule, the steps cancelled
and the steps found in flight — so `cancel_outcome` tells the user what was cancelled, what had
been done and what was compensated, before and after the execution settles.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planning.models import PlanStep
from policy.cancel import COMPENSATE, FINISH, in_flight_rule
from tenancy import clock

from .models import IN_FLIGHT, STEP_DONE, Execution, ExecutionStatus, StepRun, StepStatus, TimelineType
from .rows import plan_steps_cached, step_runs
from .settle import plan_status_mirror, settle
from .states import EXECUTION, STEP
from .timeline import conversation_event, timeline_add

CANCEL_REQUESTED, CANCELLED = "CANCEL_REQUESTED", "CANCELLED"
_NOT_STARTED = STEP.guard(StepStatus.SKIPPED, StepStatus.PENDING, StepStatus.DISPATCHED)


def cancel_marker(execution: Execution) -> dict[str, Any] | None:
    """The cancel request of a running (or compensating) execution, if one came."""
    error = execution.error
    return error if isinstance(error, dict) and error.get("code") == CANCEL_REQUESTED else None


def cancel_facts(execution: Execution) -> dict[str, Any] | None:
    """The cancel's facts, requested or settled (None: this execution was never cancelled by a person)."""
    error = execution.error
    if isinstance(error, dict) and error.get("code") in (CANCEL_REQUESTED, CANCELLED) and "in_flight" in error:
        return error
    return None


def cancel_request(*, execution: Execution, actor: Any, reason: str, always: bool = False) -> None:
    """Skip what has not started; settle now if nothing is calling, else mark and let it end. Under
    the `finish` rule, a cancel that finds nothing to skip changes nothing (unless `always`: a kill).

    The caller holds `execution` FOR UPDATE, running or verifying, not cancelled yet. Which steps
    were skipped is read back after the UPDATE: a worker's claim racing it takes the step row
    first (then the step is in flight) or finds it skipped (then it runs nothing).
    """
    now = clock.now()
    StepRun.objects.for_tenant(execution.tenant_id).filter(execution=execution, status__in=_NOT_STARTED).update(
        status=StepStatus.SKIPPED, error={"code": CANCELLED}, finished_at=now)
    runs = step_runs(execution)
    cancelled = [sid for sid, r in runs.items() if r.status == StepStatus.SKIPPED
                 and (r.error or {}).get("code") == CANCELLED and r.finished_at == now]
    in_flight = [sid for sid, r in runs.items() if r.status in IN_FLIGHT]
    _skipped_events(execution, runs, cancelled, now)
    marker = {"code": CANCEL_REQUESTED, "by": getattr(actor, "pk", None), "reason": reason[:200],
              "requested_at": now.isoformat(), "rule": in_flight_rule(tenant=execution.tenant),
              "cancelled": cancelled, "in_flight": in_flight}
    if not cancelled and marker["rule"] == FINISH and not always:
        # Nothing left to stop and what is calling finishes anyway: the execution ends as it would
        # have (PRD-010 §18: "não pode mais ser interrompida… vou concluir esta etapa").
        return
    if not in_flight:
        settle(execution, ExecutionStatus.CANCELLED, error={**marker, "code": CANCELLED})
        return
    Execution.objects.for_tenant(execution.tenant_id).filter(pk=execution.pk, status=execution.status).update(
        error=marker)
    execution.error = marker


def _skipped_events(execution: Execution, runs: Mapping[str, StepRun], cancelled: list[str], now: Any) -> None:
    """STEP_SKIPPED on the timeline and the conversation's EXECUTION_PROGRESS for each step the cancel skipped."""
    steps = plan_steps_cached(execution.tenant_id, execution.plan_id)
    done = sum(1 for r in runs.values() if r.status in STEP_DONE)
    for step_id in cancelled:
        timeline_add(execution=execution, type=TimelineType.STEP_SKIPPED, step_id=step_id, at=now,
                     data={"code": CANCELLED})
        conversation_event(execution=execution, type="EXECUTION_PROGRESS", payload={
            "step_id": step_id, "capability": steps[step_id].capability_id, "label": steps[step_id].label,
            "status": StepStatus.SKIPPED, "total": len(runs), "done": done})


def cancel_resumed(marker: Mapping[str, Any], runs: Mapping[str, StepRun]) -> list[StepRun]:
    """Steps the cancel found calling and a resume put back to pending (their holder died): they
    may have had their effect, so they finish — sent again with the same idempotency key."""
    return [runs[sid] for sid in marker["in_flight"] if sid in runs and runs[sid].status == StepStatus.PENDING]


def cancel_settle(execution: Execution, runs: Mapping[str, StepRun], steps: Mapping[str, PlanStep],
                  marker: Mapping[str, Any]) -> bool:
    """`advance` on a cancelled execution: once nothing is in flight, settle it or start the saga of
    the steps that finished after the cancel (True: the caller dispatches the compensation)."""
    if any(r.status in IN_FLIGHT for r in runs.values()):
        return False
    StepRun.objects.for_tenant(execution.tenant_id).filter(
        execution=execution, status__in=STEP.guard(StepStatus.SKIPPED, StepStatus.PENDING)).update(
        status=StepStatus.SKIPPED, error={"code": CANCELLED}, finished_at=clock.now())
    finished = [sid for sid in marker["in_flight"] if runs[sid].status == StepStatus.COMPLETED]
    if marker.get("rule") == COMPENSATE and any(steps[sid].compensation for sid in finished):
        Execution.objects.for_tenant(execution.tenant_id).filter(
            pk=execution.pk, status__in=EXECUTION.guard(ExecutionStatus.COMPENSATING, execution.status)).update(
            status=ExecutionStatus.COMPENSATING)
        execution.status = ExecutionStatus.COMPENSATING
        plan_status_mirror(execution, "compensating")
        return True
    settle(execution, ExecutionStatus.CANCELLED, error={**marker, "code": CANCELLED})
    return False


def cancel_saga_end(execution: Execution, marker: Mapping[str, Any], *, all_done: bool) -> None:
    """A cancel's saga ends cancelled; a compensation that could not run leaves it FAILED for review."""
    if all_done:
        settle(execution, ExecutionStatus.CANCELLED, error={**marker, "code": CANCELLED})
    else:
        settle(execution, ExecutionStatus.FAILED, error={**marker, "code": "CANCEL_COMPENSATION_FAILED"},
               needs_review=True)


def cancel_outcome(*, execution: Execution) -> dict[str, Any]:
    """What the user is told, by step id: `cancelled` (never started), `done` (before the cancel),
    `in_flight` (still calling), `kept` (finished after the cancel, effect kept), `compensated`
    (finished after it and undone), `failed` (calling, then failed or unknown: never retried after a
    cancel); `settled_before`: it had ended before anyone cancelled it."""
    facts = cancel_facts(execution)
    runs = step_runs(execution)
    calling = list((facts or {}).get("in_flight") or [])
    completed = [sid for sid, r in runs.items() if r.status == StepStatus.COMPLETED]
    return {"settled_before": facts is None and execution.settled, "status": execution.status,
            "rule": (facts or {}).get("rule"), "cancelled": list((facts or {}).get("cancelled") or []),
            "done": [sid for sid in completed if sid not in calling],
            "in_flight": [sid for sid in calling if runs[sid].status in (StepStatus.PENDING, *IN_FLIGHT)],
            "kept": [sid for sid in calling if runs[sid].status == StepStatus.COMPLETED],
            "compensated": [sid for sid in calling if runs[sid].status == StepStatus.COMPENSATED],
            "failed": [sid for sid in calling if runs[sid].status in (StepStatus.FAILED, StepStatus.UNKNOWN)]}
