"""One item of a batch step under the Adaptive Runtime Controller (PRD-034 §14-§44, §108): the
per-item step boundary (runtime status, policy revalidation), the lane choice (primary, or a
registered fallback while the primary's breaker is open), backpressure under the lane's AIMD
limit, the deadline-aware call (hedged for hedgeable reads), and the item's record — completed,
retried within the capability's attempts and the execution's one retry budget, or failed.

`Ctx` is what the control loop (execution/batch.py) hands each item: the step, its capability and
envelope, and the stop signal shared by the loop, the item threads and the heartbeat.
"""

from __future__ import annotations

import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from django.db import connection
from django.db.models import F

from planning.models import PlanStep
from planning.references import MISSING, Ref, drop_nulls, get_path, resolve
from policy.services import revalidate
from registry.selectors import CapabilitySpec, RegistrySnapshot
from tenancy import clock

from .control import OPEN, Envelope, Lane, call_timeout_ms
from .errors import ErrorClass, Outcome
from .models import BatchItem, Execution, ItemStatus, RuntimeExecution, StepRun, TimelineType
from .replan import replan_after_s
from .retry import IN_PROGRESS_CODE, IN_PROGRESS_WAIT_S, RetryPolicy, backoff_s, budget_spend, in_progress_wait
from .runtime import session_for
from .runtime_state import adaptation_record, runtime_transition
from .states import ITEM
from .tool_runtime import ToolResult

_KIND = {ErrorClass.TIMEOUT: "timeout", ErrorClass.RATE_LIMIT: "rate_limit",
         ErrorClass.TEMPORARY_UNAVAILABLE: "server_error", ErrorClass.SERVER_ERROR: "server_error",
         ErrorClass.NETWORK: "server_error"}


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


def step_items(ctx: Ctx):
    return BatchItem.objects.for_tenant(ctx.execution.tenant_id).filter(execution=ctx.execution,
                                                                         step_id=ctx.plan_step.step_id)


def choose_lane(ctx: Ctx) -> Lane | None:
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


def item_move(ctx: Ctx, item: BatchItem, status: str, **fields: Any) -> int:
    """Move an item this worker is running (running is the only from-status: a takeover re-claims it
    with another attempt, and a lost item is not written), along the item table."""
    return step_items(ctx).filter(pk=item.pk, status__in=ITEM.guard(status, ItemStatus.RUNNING)).update(
        status=status, **fields)


def release(ctx: Ctx, item: BatchItem) -> None:
    """Give an item back unrun (no attempt spent): the batch stopped or the lane is closed."""
    item_move(ctx, item, ItemStatus.PENDING, attempts=F("attempts") - 1, lease_until=None)


def held(ctx: Ctx) -> str | None:
    """A person paused or a resume's re-validation stopped the runtime: no new item starts (§44)."""
    status, reason = (RuntimeExecution.objects.for_tenant(ctx.execution.tenant_id).filter(execution=ctx.execution)
                      .values_list("status", "reason").first() or (None, ""))
    if status == "PAUSED":
        return "PAUSED"
    return (reason or "RUNTIME_STOPPED") if status in ("STOPPING", "TERMINATED") else None


def run_item(ctx: Ctx, item: BatchItem, facts: dict[str, Any], dep_results: dict[str, Any]) -> None:
    if ctx.stop.is_set():
        return release(ctx, item)
    stopped = held(ctx)
    if stopped:
        ctx.halt(stopped)
        return release(ctx, item)
    check = revalidate(receipt_id=ctx.execution.receipt_id, actor=ctx.execution.actor,
                       tenant=ctx.execution.tenant, plan_id=ctx.execution.plan_id, step_id=ctx.plan_step.step_id,
                       capability=(ctx.plan_step.capability_id, ctx.plan_step.capability_version),
                       input=ctx.plan_step.input, facts=facts, execution_started_at=ctx.execution.started_at,
                       execution_id=ctx.execution.pk)
    if not check.ok:
        ctx.halt(check.code)  # a kill switch, a revoked permission…: nothing more starts (§108)
        return release(ctx, item)
    values = _input(ctx, item, dep_results)
    if values is None:
        return item_done(ctx, item, ItemStatus.FAILED, error={"code": "DEPENDENCY_NOT_COMPLETED"})
    lane = choose_lane(ctx)
    if lane is None:
        return release(ctx, item)
    token = _slot(ctx, lane)
    if token is None:
        return release(ctx, item)
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
        return item_done(ctx, item, ItemStatus.COMPLETED, result=result.body, resource=lane.resource)
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
        ctx.stop.wait(backoff_s(1, initial_ms=20, multiplier=2, max_ms=40, jitter="equal"))
    return None


def _call(ctx: Ctx, lane: Lane, values: dict[str, Any], item: BatchItem) -> ToolResult:
    spec = ctx.spec if lane.resource == ctx.spec.resource.key else replace(
        ctx.spec, resource=ctx.snapshot.resources[lane.resource])
    session = session_for(user_id=ctx.execution.actor_id, tenant=ctx.execution.tenant)
    key = f"agent:{ctx.execution.plan_id}:{ctx.plan_step.step_id}:{item.target_id}"
    remaining = (ctx.deadline_at - clock.now()).total_seconds() if ctx.deadline_at is not None else None
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


def item_done(ctx: Ctx, item: BatchItem, status: str, *, result: Any = None, error: Any = None,
               resource: str = "") -> None:
    item_move(ctx, item, status, result=result, error=error, resource=resource, finished_at=clock.now(),
              lease_until=None)


def _item_failed(ctx: Ctx, item: BatchItem, result: ToolResult) -> None:
    """The retry policy (execution/retry.py), as a single step of the capability gets it (§30-§31)."""
    error = {"code": result.error_code or str(result.error_class), "class": result.error_class,
             "status": result.status_code}
    if result.error_code == IN_PROGRESS_CODE:
        # A dead worker's request still holds our key: wait for it instead of calling it a conflict.
        waiting = in_progress_wait(item.error, error)
        if waiting is not None:
            item_move(ctx, item, ItemStatus.PENDING, error=waiting, lease_until=None, attempts=F("attempts") - 1,
                      not_before=clock.now() + timedelta(seconds=IN_PROGRESS_WAIT_S))
            return
    policy = RetryPolicy.of(ctx.spec)
    if policy.allows(attempts=item.attempts, error_class=result.error_class) and budget_spend(ctx.execution):
        delay = policy.delay_s(item.attempts)
        item_move(ctx, item, ItemStatus.PENDING, error=error, lease_until=None,
                  not_before=clock.now() + timedelta(seconds=delay))
        return
    item_done(ctx, item, ItemStatus.FAILED, error=error)
