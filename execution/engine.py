"""The step engine's top: claim → perform (condition, fresh facts, policy revalidation, call,
classify, verify) → record → advance, for one step and, continuing inline, the plan's next ones
(PRD-006 §15-§28, ARCHITECTURE.md invariants 3, 8, 9).

Tasks carry ids only. Each transition is committed before the next step is dispatched
(`transaction.on_commit`), so a worker killed at any point leaves a checkpoint another worker
resumes from: a completed StepRun is never claimed again; a `running` one is taken over only once
its lease (≥ the broker's visibility timeout) has expired; a mutating call repeated after a crash
carries the same `Idempotency-Key` and is replayed by the API, not applied twice.

The parts live below this module, each importing only what is under it: claim.py (claiming and
taking over), perform.py and verify.py (the step's work), record.py (its outcome), advance.py
(what runs next), settle.py (how an execution ends), rows.py (the hot path's SQL helpers).
"""

from __future__ import annotations

import time
from typing import Any

import structlog
from django.db import transaction

from planning.models import PlanStep

from . import metrics, rows
from .advance import advance
from .claim import adopt_expired, claim_step, lease_left
from .limits import step_lease
from .models import Execution, StepRun
from .outcome import Claim, StepOutcome, step_error
from .perform import perform
from .record import lock_and_record, progress, record
from .rows import plan_steps_cached

log = structlog.get_logger(__name__)


def run_step(execution_id: Any, step_id: str, *, continue_for: float = 0.0,
             execution: Execution | None = None) -> float | None:
    """Run one step, and with `continue_for` > 0 the plan's next ready steps too, one at a time.

    Continuing inline: until `continue_for` seconds have passed since the first claim (at most half
    the step lease, which is the broker's visibility timeout: this task's message, acknowledged only
    at the end, must not be handed to another worker while the loop still runs), the transaction
    that records a step's outcome also claims ONE of the steps it makes ready (running, attempts+1,
    a lease, STEP_STARTED with `inline`) and this worker runs it right after the commit; every other
    ready step is sent through the broker as before, so independent steps still run in parallel.
    The claim happens under the execution lock with the execution still running, so a cancel is
    honoured at every step boundary, and each step re-runs the live policy checks (kill switches).
    Should the worker die, this task's unacknowledged message comes back and `adopt_expired` takes
    over the step whose lease ran out (the watchdog would too).

    Returns seconds to wait when another worker still holds the step's lease. `execution`: the row as
    its caller just wrote it (with its plan, tenant and actor), not read again.
    """
    if execution is None:
        execution = (Execution.objects.all_tenants().select_related("plan", "tenant", "actor")
                     .filter(pk=execution_id).first())
    if execution is None:
        return None
    with metrics.log_context(planId=str(execution.plan_id), tenantId=str(execution.tenant_id),
                             **({"conversationId": str(execution.conversation_id)} if execution.conversation_id
                                else {})) as log_ids:
        claim = claim_step(execution, step_id)
        if claim is None:
            wait = lease_left(execution, step_id)
            if wait is not None or not continue_for:
                return wait
            claim, wait = adopt_expired(execution)
            if claim is None:
                return wait
        deadline = time.monotonic() + min(continue_for, step_lease().total_seconds() / 2)
        while claim is not None:
            execution, claim = _run_claimed(execution, claim, log_ids, inline=time.monotonic() < deadline)
    return None


def _run_claimed(execution: Execution, claim: Claim, log_ids: dict[str, Any], *,
                 inline: bool) -> tuple[Execution, Claim | None]:
    """Perform a claimed step and record it; returns the execution as locked then and the step claimed inline."""
    run = claim.run
    metrics.log_rebind(log_ids, stepId=run.step_id)
    started = time.perf_counter()
    plan_step = plan_steps_cached(execution.tenant_id, execution.plan_id)[run.step_id]
    try:
        outcome = perform(execution, run, plan_step, registry_version=claim.registry_version)
    except Exception as exc:  # noqa: BLE001 - a bug in one step fails that step, it does not wedge the execution
        metrics.log_rebind(log_ids)
        log.exception("step_crashed", execution=str(execution.pk), step=run.step_id)
        outcome = StepOutcome("failed", error=step_error("INTERNAL_ERROR", detail=type(exc).__name__))
    metrics.log_rebind(log_ids)  # an in-process tool call ran the request middleware, which clears the context
    locked, next_run = _finish(execution, run, plan_step, outcome, inline=inline)
    elapsed = time.perf_counter() - started
    metrics.STEP_LATENCY.labels(capability=plan_step.capability_id, outcome=outcome.status).observe(elapsed)
    log.info("step_finished", capability=plan_step.capability_id, outcome=outcome.status,
             attempt=run.attempts, ms=round(elapsed * 1000, 2), next_inline=next_run.run.step_id if next_run else None)
    return locked, next_run


def _finish(execution: Execution, run: StepRun, plan_step: PlanStep, outcome: StepOutcome, *,
            inline: bool = False) -> tuple[Execution, Claim | None]:
    """Persist the outcome and advance in ONE transaction; returns (the locked execution, the step claimed inline).

    The execution row is locked first, as `advance`, `execution_cancel` and `execution_resume` do,
    so the lock order stays execution → step runs. The step runs are read after the lock (a parallel
    step recorded just before is seen). On PostgreSQL a final outcome takes one statement for the
    lock, the record and that read (`finished_at` is taken as it is sent). The next steps are sent
    only after this commit (`dispatch` uses on_commit), by this worker: no extra hop; with `inline`,
    one of them is claimed here instead.
    """
    # No savepoint inside a caller's transaction (a turn's reads, execution/inline.py): it rolls back
    # to its own savepoint if anything here fails; a worker's call is the outermost block anyway.
    with transaction.atomic(savepoint=False):
        if rows.fast_sql() and outcome.status != "retry":
            locked, runs = lock_and_record(execution, run, outcome)
        else:
            locked = rows.locked(execution.pk, like=execution) or execution
            runs = record(locked, run, plan_step, outcome)
        if runs is None:
            return locked, None
        progress(locked, plan_step, runs)
        return locked, advance(execution.pk, locked=locked, runs=runs, inline=inline)

