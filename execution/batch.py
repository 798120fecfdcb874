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
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

import structlog
from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from planning.models import PlanStep
from planning.references import MISSING, Ref, drop_nulls, get_path, resolve
from policy.services import revalidate
from registry.selectors import CapabilitySpec, RegistrySnapshot

from .control import CLOSED, OPEN, Envelope, Lane, call_timeout_ms, retry_delay_s
from .errors import ErrorClass, Outcome
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
from .replan import replan_after_s, replan_on_unavailable
from .runtime import read_facts, session_for
from .runtime_state import adaptation_record, runtime_ensure, runtime_transition
from .tool_runtime import ToolResult

log = structlog.get_logger(__name__)

IN_PROGRESS_CODE = "IDEMPOTENCY_IN_PROGRESS"
IN_PROGRESS_MAX_WAITS = 45  # × 2 s: beyond the API's 60 s staleness of an abandoned claim
_KIND = {ErrorClass.TIMEOUT: "timeout", ErrorClass.RATE_LIMIT: "rate_limit",
         ErrorClass.TEMPORARY_UNAVAILABLE: "server_error", ErrorClass.SERVER_ERROR: "server_error",
         ErrorClass.NETWORK: "server_error"}


def max_wait_s() -> float:
    """How long a batch waits for a resource with no fallback before it asks for human review (§116)."""
    return float(settings.RUNTIME_MAX_WAIT_SECONDS)


@dataclass
class Ctx:
    execution: Execution
    run: StepRun
    plan_step: PlanStep
    spec: CapabilitySpec
    snapshot: RegistrySnapshot
    envelope: Envelope
    stop: threading.Event
    stop_code: str | None = None
    inline: bool = False  # eager (embedded default): one thread, the caller's connection and transaction
    calls: int = 0
    call_ms: float = 0.0
    reported_calls: int = 0
    deadline_at: Any = None
    deferred: bool = False

    def halt(self, code: str) -> None:
        self.stop_code = self.stop_code or code
        self.stop.set()


def lane_for(ctx: Ctx, resource: str) -> Lane:
    return Lane(ctx.execution.tenant_id, ctx.spec.id, ctx.envelope.check_fallback(resource, ctx.spec.resource.key),
                ctx.envelope)


def perform_batch(execution: Execution, run: StepRun, plan_step: PlanStep, spec: CapabilitySpec,
                  snapshot: RegistrySnapshot, outcome: Any) -> Any:
    from .tasks import run_step_task

    ctx = Ctx(execution, run, plan_step, spec, snapshot, Envelope.of(spec), threading.Event(),
              inline=bool(run_step_task.app.conf.task_always_eager))
    runtime = runtime_ensure(execution)
    ctx.deadline_at = runtime.deadline_at
    if _over_items_budget(ctx, int(runtime.budget.get("max_items", 10**9))):
        ctx.halt("BUDGET_ITEMS")
        return _finish(ctx, outcome)
    if _held(ctx) == "PAUSED":  # its message arrived after a pause: park before writing any item
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


def _items(ctx: Ctx):
    return BatchItem.objects.for_tenant(ctx.execution.tenant_id).filter(execution=ctx.execution,
                                                                         step_id=ctx.plan_step.step_id)


def _heartbeat(ctx: Ctx) -> None:
    """Keep the step's lease (and its running items') alive; notice a takeover and stop (§46)."""
    from .engine import step_lease

    lease = step_lease()
    try:
        while not ctx.stop.wait(max(0.2, lease.total_seconds() / 4)):
            now = timezone.now()
            held = (StepRun.objects.for_tenant(ctx.execution.tenant_id)
                    .filter(pk=ctx.run.pk, status=StepStatus.RUNNING, attempts=ctx.run.attempts)
                    .update(lease_until=now + lease))
            if held != 1:
                ctx.halt("STEP_TAKEN_OVER")
                return
            _items(ctx).filter(status=ItemStatus.RUNNING).update(lease_until=now + lease)
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
        lane = _choose_lane(ctx)
        if lane is None:
            waited_since = waited_since or time.monotonic()
            waited = time.monotonic() - waited_since
            if not replanned and waited >= replan_after_s():
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
                                    resource=ctx.spec.resource.key)
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


def _leave_open_items(ctx: Ctx, error: dict[str, Any]) -> None:
    """Items not done when the step gives up on them: final, with the reason (never silently pending)."""
    _items(ctx).filter(status__in=[ItemStatus.PENDING, ItemStatus.RUNNING]).update(
        status=ItemStatus.FAILED, error=error, lease_until=None, finished_at=timezone.now())


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
    if timezone.now() >= runtime.deadline_at:
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


def _choose_lane(ctx: Ctx) -> Lane | None:
    """The primary while its breaker lets calls through; else a registered fallback (§21-§22); else wait."""
    primary = lane_for(ctx, ctx.spec.resource.key)
    if primary.state().breaker != OPEN or primary.admit() == "probe":
        return primary
    for resource in ctx.envelope.fallbacks:
        fallback = lane_for(ctx, resource)
        if fallback.state().breaker != OPEN or fallback.admit() == "probe":
            if _switched_to(ctx) != resource:
                runtime_transition(execution=ctx.execution, kind="RESOURCE", lane=ctx.spec.id,
                                   old=ctx.spec.resource.key, new=resource, reason="BREAKER_OPEN",
                                   timeline=TimelineType.RESOURCE_SWITCHED, status="DEGRADED")
            return fallback
    runtime_transition(execution=ctx.execution, status="WAITING", reason="RESOURCE_UNAVAILABLE", kind="STATUS",
                       once=True, data={"resource": ctx.spec.resource.key, "replan_after_s": replan_after_s(),
                                        "then": "REPLAN"})
    return None


def _switched_to(ctx: Ctx) -> str | None:
    last = (ctx.execution.adaptations.filter(kind="RESOURCE", lane=ctx.spec.id).order_by("-id")
            .values_list("new", flat=True).first())
    return last


def _claim(ctx: Ctx, size: int) -> list[BatchItem] | None:
    """Up to `size` claimable items (pending and due, or running with an expired lease); None when all done."""
    from .engine import step_lease

    now = timezone.now()
    with transaction.atomic():
        claimable = (_items(ctx).select_for_update(skip_locked=True)
                     .filter(Q(status=ItemStatus.PENDING) | Q(status=ItemStatus.RUNNING, lease_until__lt=now))
                     .filter(Q(not_before__isnull=True) | Q(not_before__lte=now)).order_by("position")[:size])
        ids = [item.pk for item in claimable]
        if not ids:
            left = _items(ctx).filter(status__in=[ItemStatus.PENDING, ItemStatus.RUNNING]).exists()
            return [] if left else None
        _items(ctx).filter(pk__in=ids).update(status=ItemStatus.RUNNING, attempts=F("attempts") + 1,
                                              lease_until=now + step_lease())
        return list(_items(ctx).filter(pk__in=ids).order_by("position"))


def _facts(ctx: Ctx) -> dict[str, Any]:
    session = session_for(user_id=ctx.execution.actor_id, tenant=ctx.execution.tenant)
    facts, results = read_facts(session=session, snapshot=ctx.snapshot, tenant=ctx.execution.tenant,
                                targets=ctx.plan_step.targets)
    ctx.calls += len(results)
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
            _run_item(ctx, item, facts, results.get(item.target_id, {}))
        return
    workers = max(1, min(len(chunk), ctx.envelope.max_concurrency))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for future in [pool.submit(_item_thread, ctx, item, facts, results.get(item.target_id, {}))
                       for item in chunk]:
            future.result()


def _item_thread(ctx: Ctx, item: BatchItem, facts: dict[str, Any], dep_results: dict[str, Any]) -> None:
    try:
        _run_item(ctx, item, facts, dep_results)
    except Exception:  # noqa: BLE001 - one item's bug fails that item, not the batch
        log.exception("batch_item_crashed", execution=str(ctx.execution.pk), item=item.pk)
        _item_done(ctx, item, ItemStatus.FAILED, error={"code": "INTERNAL_ERROR"})
    finally:
        connection.close()  # this thread's own connection; the thread ends here


def _release(ctx: Ctx, item: BatchItem) -> None:
    """Give an item back unrun (no attempt spent): the batch stopped or the lane is closed."""
    _items(ctx).filter(pk=item.pk, status=ItemStatus.RUNNING).update(
        status=ItemStatus.PENDING, attempts=F("attempts") - 1, lease_until=None)


def _held(ctx: Ctx) -> str | None:
    """A person paused or a resume's re-validation stopped the runtime: no new item starts (§44)."""
    status, reason = (RuntimeExecution.objects.for_tenant(ctx.execution.tenant_id).filter(execution=ctx.execution)
                      .values_list("status", "reason").first() or (None, ""))
    if status == "PAUSED":
        return "PAUSED"
    return (reason or "RUNTIME_STOPPED") if status in ("STOPPING", "TERMINATED") else None


def _run_item(ctx: Ctx, item: BatchItem, facts: dict[str, Any], dep_results: dict[str, Any]) -> None:
    if ctx.stop.is_set():
        return _release(ctx, item)
    held = _held(ctx)
    if held:
        ctx.halt(held)
        return _release(ctx, item)
    check = revalidate(receipt_id=ctx.execution.receipt_id, actor=ctx.execution.actor,
                       tenant=ctx.execution.tenant, plan_id=ctx.execution.plan_id, step_id=ctx.plan_step.step_id,
                       capability=(ctx.plan_step.capability_id, ctx.plan_step.capability_version),
                       input=ctx.plan_step.input, facts=facts, execution_started_at=ctx.execution.started_at,
                       execution_id=ctx.execution.pk)
    if not check.ok:
        ctx.halt(check.code)  # a kill switch, a revoked permission…: nothing more starts (§108)
        return _release(ctx, item)
    values = _input(ctx, item, dep_results)
    if values is None:
        return _item_done(ctx, item, ItemStatus.FAILED, error={"code": "DEPENDENCY_NOT_COMPLETED"})
    lane = _choose_lane(ctx)
    if lane is None:
        return _release(ctx, item)
    token = _slot(ctx, lane)
    if token is None:
        return _release(ctx, item)
    try:
        result = _call(ctx, lane, values, item)
    finally:
        lane.release(token)
    kind = "ok" if result.outcome == Outcome.SUCCEEDED else _KIND.get(result.error_class, "error")
    timeout = (lane.last or lane.state()).timeout_ms
    if kind == "ok" and result.latency_ms > timeout:
        kind = "timeout"  # late: an in-process call cannot be cut, but the runtime counts it as timed out
    _observe(ctx, lane, kind, result.latency_ms)
    if result.outcome == Outcome.SUCCEEDED:
        return _item_done(ctx, item, ItemStatus.COMPLETED, result=result.body, resource=lane.resource)
    _item_failed(ctx, item, result)


def _input(ctx: Ctx, item: BatchItem, dep_results: dict[str, Any]) -> dict[str, Any] | None:
    """The item's input from the plan's template only; the target comes from the pinned list (§10)."""
    if any(dep not in dep_results for dep in ctx.plan_step.depends_on):
        return None
    pinned = {t["id"]: t["type"] for t in ctx.plan_step.targets}
    entity = pinned.get(item.target_id)
    target = {"type": entity, "id": item.target_id, "results": dep_results}

    def lookup(ref: Ref) -> Any:
        return get_path(target, ref.path) if ref.root == "item" else MISSING
    values = drop_nulls(resolve(ctx.plan_step.input, lookup))
    # The input must name the item through the capability's reference field of the item's type, and
    # only pinned targets: an input that names another entity, or none, is refused.
    fields = [name for name, kind in ctx.spec.reference_fields.items() if kind == entity]
    if not fields or any(pinned.get(values.get(name)) != entity for name in fields):
        raise PermissionError("target outside the plan's pinned scope")
    return values


def _slot(ctx: Ctx, lane: Lane) -> str | None:
    """Backpressure (§43): wait, with jitter, for a slot under the lane's shared limit."""
    while not ctx.stop.is_set():
        token = lane.acquire(lease_s=max(5.0, ctx.envelope.timeout_max_ms / 1000 * 2))
        if token is not None:
            return token
        ctx.stop.wait(retry_delay_s(1, base_ms=20, max_ms=40))
    return None


def _call(ctx: Ctx, lane: Lane, values: dict[str, Any], item: BatchItem) -> ToolResult:
    spec = ctx.spec if lane.resource == ctx.spec.resource.key else replace(
        ctx.spec, resource=ctx.snapshot.resources[lane.resource])
    session = session_for(user_id=ctx.execution.actor_id, tenant=ctx.execution.tenant)
    key = f"agent:{ctx.execution.plan_id}:{ctx.plan_step.step_id}:{item.target_id}"
    remaining = (ctx.deadline_at - timezone.now()).total_seconds() if ctx.deadline_at is not None else None
    timeout_ms = call_timeout_ms(lane.last or lane.state(), ctx.envelope, remaining)  # deadline-aware (§34)
    if timeout_ms is None:
        ctx.halt("DEADLINE_EXCEEDED")
        return ToolResult(outcome=Outcome.FAILED, status_code=None, body=None, error_class=ErrorClass.TIMEOUT,
                          error_code="DEADLINE_EXCEEDED", latency_ms=0.0)
    if ctx.envelope.hedgeable and not ctx.inline:
        result = _hedged(ctx, spec, values, timeout_ms)
    else:
        result = session.invoke(capability=spec, input=values, idempotency_key=key, timeout_ms=timeout_ms)
    ctx.calls += 1
    ctx.call_ms += result.latency_ms
    return result


def _hedged(ctx: Ctx, spec: CapabilitySpec, values: dict[str, Any], timeout_ms: int) -> ToolResult:
    """A read that is slower than the lane's P50 × 3 gets a second request; the first answer wins (§36-§38)."""
    threshold_s = max(0.05, min(timeout_ms, 3 * max(1.0, _p50(ctx))) / 1000)

    def one() -> ToolResult:
        try:
            return session_for(user_id=ctx.execution.actor_id, tenant=ctx.execution.tenant).invoke(
                capability=spec, input=values, timeout_ms=timeout_ms)
        finally:
            connection.close()
    pool = ThreadPoolExecutor(max_workers=2)
    try:
        first = pool.submit(one)
        done, _ = wait([first], timeout=threshold_s)
        if done:
            return first.result()
        second = pool.submit(one)
        done, _ = wait([first, second], return_when=FIRST_COMPLETED)
        ctx.calls += 1
        return next(iter(done)).result()
    finally:
        pool.shutdown(wait=False)


def _p50(ctx: Ctx) -> float:
    window = lane_for(ctx, ctx.spec.resource.key).state().window
    latencies = sorted(latency for kind, latency in window if kind == "ok")
    return latencies[len(latencies) // 2] if latencies else 100.0


def _observe(ctx: Ctx, lane: Lane, kind: str, latency_ms: float) -> None:
    _, changes = lane.observe(kind, latency_ms)
    for change in changes:
        adaptation_record(execution=ctx.execution, lane=f"{ctx.spec.id}@{lane.resource}", change=change,
                          resource_label=lane.resource)


def _item_done(ctx: Ctx, item: BatchItem, status: str, *, result: Any = None, error: Any = None,
               resource: str = "") -> None:
    _items(ctx).filter(pk=item.pk, status=ItemStatus.RUNNING).update(
        status=status, result=result, error=error, resource=resource, finished_at=timezone.now(), lease_until=None)


def _item_failed(ctx: Ctx, item: BatchItem, result: ToolResult) -> None:
    """Retry a transient failure only within the capability's attempts and the execution's one budget (§30-§31)."""
    error = {"code": result.error_code or str(result.error_class), "class": result.error_class,
             "status": result.status_code}
    if result.error_code == IN_PROGRESS_CODE:
        # A dead worker's request still holds our key (the API lets it go stale after a minute): wait
        # for it instead of calling it a conflict. Not a retry of a failure, so no budget is spent.
        waits = int((item.error or {}).get("in_progress_waits", 0)) + 1
        if waits <= IN_PROGRESS_MAX_WAITS:
            _items(ctx).filter(pk=item.pk, status=ItemStatus.RUNNING).update(
                status=ItemStatus.PENDING, error={**error, "in_progress_waits": waits}, lease_until=None,
                attempts=F("attempts") - 1, not_before=timezone.now() + timedelta(seconds=2))
            return
    max_attempts = int((ctx.spec.retry_policy or {}).get("max_attempts", 1))
    if result.retryable and item.attempts < max_attempts and _spend_retry(ctx):
        delay = retry_delay_s(item.attempts)
        _items(ctx).filter(pk=item.pk, status=ItemStatus.RUNNING).update(
            status=ItemStatus.PENDING, error=error, lease_until=None,
            not_before=timezone.now() + timedelta(seconds=delay))
        return
    _item_done(ctx, item, ItemStatus.FAILED, error=error)


def _spend_retry(ctx: Ctx) -> bool:
    return Execution.objects.for_tenant(ctx.execution.tenant_id).filter(
        pk=ctx.execution.pk, retry_budget__gt=0).update(retry_budget=F("retry_budget") - 1) == 1


def _checkpoint(ctx: Ctx, items: int) -> None:
    from .runtime_state import checkpoint_write

    delta, ctx.reported_calls = ctx.calls - ctx.reported_calls, ctx.calls
    checkpoint_write(execution=ctx.execution, step_id=ctx.plan_step.step_id,
                     completed=_items(ctx).filter(status=ItemStatus.COMPLETED).count(), api_calls=delta, steps=items)


def _finish(ctx: Ctx, outcome: Any) -> Any:
    rows = list(_items(ctx).values_list("target_id", "status", "result", "error"))
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
        from .runtime_state import runtime_stop

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
    from .priority import dispatch_parked

    parked = StepRun.objects.for_tenant(ctx.execution.tenant_id).filter(
        pk=ctx.run.pk, status=StepStatus.RUNNING, attempts=ctx.run.attempts).update(
        status=StepStatus.DISPATCHED, lease_until=None, dispatched_at=timezone.now(), error={"code": "PAUSED"})
    still = RuntimeExecution.objects.for_tenant(ctx.execution.tenant_id).filter(
        execution=ctx.execution, status="PAUSED").exists()
    if parked and not still:
        dispatch_parked(ctx.execution)


def item_results(execution: Execution, step_id: str) -> Mapping[int, Any]:
    return dict(BatchItem.objects.for_tenant(execution.tenant_id).filter(
        execution=execution, step_id=step_id, status=ItemStatus.COMPLETED).values_list("target_id", "result"))
