"""Batch steps under the Adaptive Runtime Controller (PRD-034 §4-§6, §14-§51, §61-§71, §110-§117).

A batch step (planning.batch: `for_each: ${targets}`) runs its capability once per pinned target.
The worker holding the step runs a control loop, one chunk at a time:

  OBSERVE  fresh facts of the targets (one call of the entity's read-many capability), the lanes' state in Redis
  EVALUATE budget, deadline, runtime status (a STOPPING/TERMINATED runtime starts nothing)
  DECIDE   lane (primary, or a *registered* fallback while the primary's breaker is open), chunk
           size (the lane's batch, within the registry's max_batch), concurrency (the lane's AIMD
           limit, a Redis slot per call), timeout (lane's, cut to the deadline)
  ACT      per item: policy revalidation (kill switches, receipt, capability version — a step
           boundary, §108), then the call with `Idempotency-Key: agent:{plan}:{step}:{target}`
  VERIFY   classify, record the item (the checkpoint unit), feed the lane; write a checkpoint

A heartbeat thread extends the step's lease and the runtime's `last_heartbeat_at` while the loop
runs; a SIGKILLed worker stops heart-beating, the watchdog marks the runtime STALLED, and the next
worker takes the step over from its items: completed items never run again and a repeated write
carries the same key, so the API replays it (no duplicate effect, §109).

One item's boundary, call and record are in execution/batch_item.py.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import structlog
from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q

from planning.models import PlanStep
from registry.selectors import CapabilitySpec, RegistrySnapshot
from tenancy import clock

from .batch_item import Ctx, choose_lane, held, item_done, run_item, step_items
from .control import CLOSED, Envelope
from .dispatch import eager
from .envelope import EnvelopeSession, was_refused
from .facts import read_facts
from .limits import step_lease
from .models import (
    BatchItem,
    Execution,
    ExecutionStatus,
    ItemStatus,
    ReplanOutcome,
    RuntimeExecution,
    StepRun,
    StepStatus,
    TimelineType,
)
from .priority import dispatch_parked
from .replan import CONTRACT_CHANGED, replan_on_unavailable, replan_request
from .replan_triggers import CONTRACT_STALE, blocked_trigger, replan_due
from .runtime_state import checkpoint_write, runtime_ensure, runtime_stop, runtime_transition
from .states import ITEM, STEP

log = structlog.get_logger(__name__)

# bench/runtime_batch.py times the per-item pause check under this name.
_held = held


def max_wait_s() -> float:
    """How long a batch waits for a resource with no fallback before it asks for human review (§116)."""
    return float(settings.RUNTIME_MAX_WAIT_SECONDS)


def perform_batch(execution: Execution, run: StepRun, plan_step: PlanStep, spec: CapabilitySpec,
                  snapshot: RegistrySnapshot, outcome: Any) -> Any:
    ctx = Ctx(execution, spec, snapshot, Envelope.of(spec), run=run, plan_step=plan_step, inline=eager())
    runtime = runtime_ensure(execution)
    ctx.deadline_at = runtime.deadline_at
    if _over_items_budget(ctx, int(runtime.budget.get("max_items", 10**9))):
        ctx.halt("BUDGET_ITEMS")
        return _finish(ctx, outcome)
    if held(ctx) == "PAUSED":  # its message arrived after a pause: park before writing any item
        ctx.halt("PAUSED")
        return _finish(ctx, outcome)
    _items_ensure(ctx)
    beat = None if ctx.inline else threading.Thread(target=_heartbeat, args=(ctx,), daemon=True)
    if beat is not None:
        beat.start()
    try:
        _loop(ctx)
    finally:
        ctx.stop.set()
        if beat is not None:
            beat.join(timeout=5)
    if ctx.stop_code == CONTRACT_STALE:  # a newer version became ACTIVE mid-batch (replan_triggers.py)
        _contract_replanned(ctx)
    outcome.calls, outcome.call_ms = ctx.calls, ctx.call_ms
    return _finish(ctx, outcome)


def _items_ensure(ctx: Ctx) -> None:
    BatchItem.objects.bulk_create(
        [BatchItem(tenant_id=ctx.execution.tenant_id, execution=ctx.execution, step_id=ctx.plan_step.step_id,
                   position=i, target_id=t["id"]) for i, t in enumerate(ctx.plan_step.targets)],
        ignore_conflicts=True)


def _over_items_budget(ctx: Ctx, limit: int) -> bool:
    """The execution's batch items, this step's included, may not exceed `max_items` (§65, §69)."""
    others = (BatchItem.objects.for_tenant(ctx.execution.tenant_id).filter(execution=ctx.execution)
              .exclude(step_id=ctx.plan_step.step_id).count())
    return others + len(ctx.plan_step.targets) > limit


def _heartbeat(ctx: Ctx) -> None:
    """Keep the step's lease (and its running items') alive; notice a takeover and stop (§46)."""
    lease = step_lease()
    try:
        while not ctx.stop.wait(max(0.2, lease.total_seconds() / 4)):
            now = clock.now()
            held = (StepRun.objects.for_tenant(ctx.execution.tenant_id)
                    .filter(pk=ctx.run.pk, status=StepStatus.RUNNING, attempts=ctx.run.attempts)
                    .update(lease_until=now + lease))
            if held != 1:
                ctx.halt("STEP_TAKEN_OVER")
                return
            step_items(ctx).filter(status=ItemStatus.RUNNING).update(lease_until=now + lease)
            runtime_transition(execution=ctx.execution, heartbeat=True)
    finally:
        connection.close()


def _loop(ctx: Ctx) -> None:
    waited_since: float | None = None
    replanned = False
    while not ctx.stop.is_set():
        stop = _boundary(ctx)
        if stop:
            ctx.halt(stop)
            return
        lane = choose_lane(ctx)
        if lane is None:
            waited_since = waited_since or time.monotonic()
            waited = time.monotonic() - waited_since
            if not replanned and replan_due(ctx.execution, ctx.spec, waited):
                replanned = True
                if _replanned(ctx):
                    return
            if waited > max_wait_s():
                ctx.halt("RESOURCE_UNAVAILABLE")
                return
            ctx.stop.wait(0.2)
            continue
        if waited_since is not None and (lane.last or lane.state()).breaker == CLOSED:
            # Back only when the breaker closed: a half-open probe does not restart the wait (or the replan).
            waited_since = None
            runtime_transition(execution=ctx.execution, status="RUNNING", reason="RESOURCE_BACK",
                               kind="STATUS", timeline=TimelineType.EXECUTION_RESUMED)
        chunk = _claim(ctx, ctx.envelope.check_batch(lane.state().batch))
        if chunk is None:
            return  # nothing left
        if not chunk:
            ctx.stop.wait(0.05)  # items backing off or held by another worker
            continue
        facts = _facts(ctx)
        _run_chunk(ctx, chunk, facts)
        _checkpoint(ctx, len(chunk))


def _replanned(ctx: Ctx) -> bool:
    """Ask for a replan (§55-§60). True when this step's loop ends here: the rest of its items are
    deferred (non-material, the execution goes on) or replaced by a plan the user must confirm."""
    verdict = replan_on_unavailable(execution=ctx.execution, step_id=ctx.plan_step.step_id,
                                    resource=ctx.spec.resource.key, trigger=blocked_trigger(ctx.execution, ctx.spec))
    if verdict.outcome == ReplanOutcome.CONTINUED:
        ctx.deferred = True
        _leave_open_items(ctx, {"code": "DEFERRED", "reason": "RESOURCE_UNAVAILABLE", "replan": verdict.replan_id,
                                "resource": ctx.spec.resource.key})
        return True
    if verdict.outcome == ReplanOutcome.REAPPROVAL_REQUIRED:
        _leave_open_items(ctx, {"code": "REPLANNED", "replan": verdict.replan_id})
        ctx.halt("REPLANNED")
        return True
    if verdict.outcome == ReplanOutcome.REFUSED:
        ctx.halt(verdict.code if verdict.code.startswith("BUDGET_") or verdict.code == "DEPTH_LIMIT"
                 else "REPLAN_REFUSED")
        return True
    return False  # NO_ALTERNATIVE: keep waiting for the resource, then human review


def _contract_replanned(ctx: Ctx) -> None:
    """CONTRACT_CHANGED mid-batch: the rest on the ACTIVE version, as a plan the user confirms."""
    verdict = replan_request(execution=ctx.execution, step_id=ctx.plan_step.step_id, trigger=CONTRACT_CHANGED)
    if verdict.outcome == ReplanOutcome.REAPPROVAL_REQUIRED:
        _leave_open_items(ctx, {"code": "REPLANNED", "replan": verdict.replan_id, "trigger": CONTRACT_CHANGED})
        ctx.stop_code = "REPLANNED"  # instead of the stale version's refusal: the user is asked


def _leave_open_items(ctx: Ctx, error: dict[str, Any]) -> None:
    """Items not done when the step gives up on them: final, with the reason (never silently pending)."""
    step_items(ctx).filter(status__in=ITEM.guard(ItemStatus.FAILED, ItemStatus.PENDING, ItemStatus.RUNNING)).update(
        status=ItemStatus.FAILED, error=error, lease_until=None, finished_at=clock.now())


def _boundary(ctx: Ctx) -> str | None:
    """Budget, deadline and the runtime's own status, checked before every chunk (§61-§69, §91)."""
    runtime = runtime_ensure(ctx.execution)
    if runtime.status in ("STOPPING", "TERMINATED", "FAILED", "COMPLETED"):
        return runtime.reason or "RUNTIME_STOPPED"
    if runtime.status == "PAUSED":
        return "PAUSED"
    status = Execution.objects.for_tenant(ctx.execution.tenant_id).filter(pk=ctx.execution.pk).values_list(
        "status", flat=True).first()
    if status != ExecutionStatus.RUNNING:
        return "EXECUTION_NOT_RUNNING"
    if clock.now() >= runtime.deadline_at:
        return "DEADLINE_EXCEEDED"
    return budget_exceeded(runtime)


def budget_exceeded(runtime: Any) -> str | None:
    """The first of the execution's budgets (§66) that is spent, or None. API calls and steps stop at
    their maximum; LLM calls and replans are taken one by one below theirs, so only a plan that
    arrived over it (an LLM-planned plan with no LLM budget) trips them here."""
    budget = runtime.budget or {}

    def limit(key: str) -> int:
        return int(budget.get(key, 10**9))
    if runtime.api_calls >= limit("max_api_calls"):
        return "BUDGET_API_CALLS"
    if runtime.steps >= limit("max_steps"):
        return "BUDGET_STEPS"
    if runtime.llm_calls > limit("max_llm_calls"):
        return "BUDGET_LLM_CALLS"
    if runtime.replans > limit("max_replans"):
        return "BUDGET_REPLANS"
    return None


# Claimed to running: a pending item, or (a takeover) one running under an expired lease.
_CLAIMABLE = ITEM.guard(ItemStatus.RUNNING, ItemStatus.PENDING, ItemStatus.RUNNING)


def _claim(ctx: Ctx, size: int) -> list[BatchItem] | None:
    """Up to `size` claimable items (pending and due, or running with an expired lease); None when all done."""
    now = clock.now()
    with transaction.atomic():
        claimable = (step_items(ctx).select_for_update(skip_locked=True)
                     .filter(Q(status=ItemStatus.PENDING) | Q(status=ItemStatus.RUNNING, lease_until__lt=now))
                     .filter(Q(not_before__isnull=True) | Q(not_before__lte=now)).order_by("position")[:size])
        ids = [item.pk for item in claimable]
        if not ids:
            left = step_items(ctx).filter(status__in=[ItemStatus.PENDING, ItemStatus.RUNNING]).exists()
            return [] if left else None
        # The rows are locked (FOR UPDATE above) in one of these statuses: the guard only names them.
        step_items(ctx).filter(pk__in=ids, status__in=_CLAIMABLE).update(
            status=ItemStatus.RUNNING, attempts=F("attempts") + 1, lease_until=now + step_lease())
        return list(step_items(ctx).filter(pk__in=ids).order_by("position"))


def _facts(ctx: Ctx) -> dict[str, Any]:
    facts, results = read_facts(session=EnvelopeSession.of(ctx), snapshot=ctx.snapshot, tenant=ctx.execution.tenant,
                                targets=ctx.plan_step.targets)
    ctx.calls += sum(not was_refused(result) for result in results)
    return facts


def _dependency_results(ctx: Ctx, chunk: list[BatchItem]) -> dict[int, dict[str, Any]]:
    deps = ctx.plan_step.depends_on
    if not deps:
        return {}
    rows = (BatchItem.objects.for_tenant(ctx.execution.tenant_id)
            .filter(execution=ctx.execution, step_id__in=deps, target_id__in=[i.target_id for i in chunk],
                    status=ItemStatus.COMPLETED).values_list("target_id", "step_id", "result"))
    results: dict[int, dict[str, Any]] = {}
    for target_id, step_id, result in rows:
        results.setdefault(target_id, {})[step_id] = result
    return results


def _run_chunk(ctx: Ctx, chunk: list[BatchItem], facts: dict[str, Any]) -> None:
    results = _dependency_results(ctx, chunk)
    if ctx.inline:
        for item in chunk:
            run_item(ctx, item, facts, results.get(item.target_id, {}))
        return
    workers = max(1, min(len(chunk), ctx.envelope.max_concurrency))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for future in [pool.submit(_item_thread, ctx, item, facts, results.get(item.target_id, {}))
                       for item in chunk]:
            future.result()


def _item_thread(ctx: Ctx, item: BatchItem, facts: dict[str, Any], dep_results: dict[str, Any]) -> None:
    try:
        run_item(ctx, item, facts, dep_results)
    except Exception:  # noqa: BLE001 - one item's bug fails that item, not the batch
        log.exception("batch_item_crashed", execution=str(ctx.execution.pk), item=item.pk)
        item_done(ctx, item, ItemStatus.FAILED, error={"code": "INTERNAL_ERROR"})
    finally:
        connection.close()  # this thread's own connection; the thread ends here


def _checkpoint(ctx: Ctx, items: int) -> None:
    delta, ctx.reported_calls = ctx.calls - ctx.reported_calls, ctx.calls
    checkpoint_write(execution=ctx.execution, step_id=ctx.plan_step.step_id,
                     completed=step_items(ctx).filter(status=ItemStatus.COMPLETED).count(), api_calls=delta,
                     steps=items)


def _finish(ctx: Ctx, outcome: Any) -> Any:
    rows = list(step_items(ctx).values_list("target_id", "status", "result", "error"))
    done = {str(t): r for t, s, r, _ in rows if s == ItemStatus.COMPLETED}
    failed = [{"target_id": t, "error": e} for t, s, _, e in rows if s == ItemStatus.FAILED]
    open_items = [t for t, s, _, _ in rows if s in (ItemStatus.PENDING, ItemStatus.RUNNING)]
    outcome.input = {"targets": len(rows)}
    outcome.result = {"items": done, "count": len(done), "failed": failed}
    if ctx.stop_code == "STEP_TAKEN_OVER":
        outcome.status = "retry"
        outcome.error = {"code": "STEP_TAKEN_OVER", "class": None}
        return outcome
    if ctx.stop_code == "PAUSED":
        # Not an outcome: the step no longer belongs to this worker, so the engine records nothing
        # (its conditional UPDATE finds the step parked — or taken over — as for a takeover).
        _park(ctx)
        outcome.status = "retry"
        outcome.error = {"code": "PAUSED", "class": None}
        return outcome
    if ctx.stop_code:
        runtime_stop(execution=ctx.execution, code=ctx.stop_code)
        outcome.status, outcome.error = "failed", {"code": ctx.stop_code, "class": None,
                                                  "open_items": len(open_items), "completed": len(done)}
        return outcome
    outcome.status = "completed" if done else "failed"
    if not done:
        outcome.error = {"code": "DEFERRED" if ctx.deferred else "BATCH_ALL_FAILED", "class": None,
                         "failed": len(failed)}
    return outcome


def _park(ctx: Ctx) -> None:
    """PAUSED: hand the step back (dispatched, no task, marked PAUSED) so no worker waits on it.

    Its attempt stays counted: the engine's conditional UPDATE must not match a later claim of the
    same step. A resume that came in while this step was parking found nothing to send: send it now."""
    parked = StepRun.objects.for_tenant(ctx.execution.tenant_id).filter(
        pk=ctx.run.pk, status__in=STEP.guard(StepStatus.DISPATCHED, StepStatus.RUNNING),
        attempts=ctx.run.attempts).update(status=StepStatus.DISPATCHED, lease_until=None,
                                          dispatched_at=clock.now(), error={"code": "PAUSED"})
    still = RuntimeExecution.objects.for_tenant(ctx.execution.tenant_id).filter(
        execution=ctx.execution, status="PAUSED").exists()
    if parked and not still:
        dispatch_parked(ctx.execution)


def item_results(execution: Execution, step_id: str) -> Mapping[int, Any]:
    return dict(BatchItem.objects.for_tenant(execution.tenant_id).filter(
        execution=execution, step_id=step_id, status=ItemStatus.COMPLETED).values_list("target_id", "result"))
