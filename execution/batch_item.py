"""One item of a batch step under the Adaptive Runtime Controller (PRD-034 §14-§44, §108): the
per-item step boundary (runtime status, policy revalidation), the lane choice (primary, or a
registered fallback while the primary's breaker is open), the call under the capability's envelope
(execution/envelope.py, as a single step's: backpressure under the lane's AIMD limit, the deadline-
aware timeout, hedging for hedgeable reads), and the item's record — completed, retried within the
capability's attempts and the execution's one retry budget, or failed.

`Ctx` is what the control loop (execution/batch.py) hands each item: the envelope's Caller with the
step and its run.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db.models import F

from planning.batch import item_view
from planning.models import PlanStep
from planning.references import MISSING, Ref, drop_nulls, get_path, resolve
from tenancy import clock

from .control import Lane
from .envelope import Caller, EnvelopeSession, call_in_lane, open_lane
from .errors import Outcome
from .models import BatchItem, ItemStatus, RuntimeExecution, StepRun, TimelineType
from .outcome import StepOutcome
from .replan import replan_after_s
from .retry import IN_PROGRESS_CODE, IN_PROGRESS_WAIT_S, RetryPolicy, budget_spend, in_progress_wait
from .routing import revalidate_on_route, switch_reason
from .runtime_state import runtime_transition
from .states import ITEM
from .tool_runtime import ToolResult
from .verify import verify


@dataclass(kw_only=True)
class Ctx(Caller):
    """A batch step's caller (execution/envelope.py), with the step and its run; `stop` is shared
    by the loop, the item threads and the heartbeat."""

    run: StepRun
    plan_step: PlanStep
    reported_calls: int = 0
    deferred: bool = False


def step_items(ctx: Ctx):
    return BatchItem.objects.for_tenant(ctx.execution.tenant_id).filter(execution=ctx.execution,
                                                                         step_id=ctx.plan_step.step_id)


def choose_lane(ctx: Ctx) -> Lane | None:
    """The envelope's open lane (the primary, or a registered fallback while its breaker is open,
    §21-§22), the switch recorded; none: the runtime waits for the resource (then a replan)."""
    lane = open_lane(ctx)
    if lane is not None:
        if lane.resource != ctx.spec.resource.key and _switched_to(ctx) != lane.resource:
            runtime_transition(execution=ctx.execution, kind="RESOURCE", lane=ctx.spec.id,
                               old=ctx.spec.resource.key, new=lane.resource, reason=switch_reason(ctx),
                               timeline=TimelineType.RESOURCE_SWITCHED, status="DEGRADED")
        return lane
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
    check = revalidate_on_route(ctx, receipt_id=ctx.execution.receipt_id, actor=ctx.execution.actor,
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
    key = f"agent:{ctx.execution.plan_id}:{ctx.plan_step.step_id}:{item.target_id}"
    result = call_in_lane(ctx, lane, values, key=key)
    if result is None:
        return release(ctx, item)  # stopped while waiting for a slot
    if result.outcome != Outcome.SUCCEEDED:
        return _item_failed(ctx, item, result)
    failed = _unverified(ctx, values, result.body)
    if failed:  # the write answered, but what it must have done does not hold: never completed
        return item_done(ctx, item, ItemStatus.FAILED, result=result.body, error={"code": failed},
                         resource=lane.resource)
    item_done(ctx, item, ItemStatus.COMPLETED, result=result.body, resource=lane.resource)


def _unverified(ctx: Ctx, values: dict[str, Any], body: Any) -> str | None:
    """A write item is verified as a single step's write is (execution/verify.py); the error code
    when it is not (a batch item has no UNKNOWN status: one that cannot be told is not completed)."""
    check = StepOutcome("running")
    verdict = verify(ctx.spec, EnvelopeSession.of(ctx), ctx.snapshot, values, body, check)
    ctx.calls += check.calls
    ctx.call_ms += check.call_ms
    if verdict is True:
        return None
    return "VERIFICATION_FAILED" if verdict is False else "VERIFICATION_UNAVAILABLE"


def _input(ctx: Ctx, item: BatchItem, dep_results: dict[str, Any]) -> dict[str, Any] | None:
    """The item's input from the plan's template only; the target comes from the pinned list (§10)."""
    if any(dep not in dep_results for dep in ctx.plan_step.depends_on):
        return None
    pinned = {t["id"]: t for t in ctx.plan_step.targets}
    entity = (pinned.get(item.target_id) or {}).get("type")
    target = item_view(pinned.get(item.target_id) or {"type": entity, "id": item.target_id}, dep_results)

    def lookup(ref: Ref) -> Any:
        return get_path(target, ref.path) if ref.root == "item" else MISSING
    values = drop_nulls(resolve(ctx.plan_step.input, lookup))
    # The input must name the item through the capability's reference field of the item's type, and
    # only pinned targets: an input that names another entity, or none, is refused.
    fields = [name for name, kind in ctx.spec.reference_fields.items() if kind == entity]
    if not fields or any((pinned.get(values.get(name)) or {}).get("type") != entity for name in fields):
        raise PermissionError("target outside the plan's pinned scope")
    return values


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
