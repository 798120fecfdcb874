"""Declining and cancelling: a pending confirmation ("não" declines it, "cancelar" cancels it; its
plan is cancelled either way), a pending clarification, or a running execution — the latter only
when every pending step's capability is cancellable."""

from __future__ import annotations

from typing import Any

from execution.models import Execution, StepRun
from execution.services import execution_cancel
from planning.models import PlanStep
from planning.services import IllegalTransition, plan_status_set

from .flow import close_clarification, pending_clarification, pending_confirmation, rest
from .models import Confirmation, PendingStatus
from .operations import plan_for
from .statemachine import Status
from .turns import Turn


def decline(turn: Turn) -> None:
    confirmation = pending_confirmation(turn)
    if confirmation is None:
        if pending_clarification(turn) is not None:
            return cancel(turn)
        rest(turn)
        return turn.error("NOTHING_PENDING", "nothing.pending")
    _cancel_confirmation(turn, confirmation, PendingStatus.DECLINED)
    turn.reply("answer", "confirmation.declined", values={})


def _cancel_confirmation(turn: Turn, confirmation: Confirmation, status: str) -> None:
    Confirmation.objects.for_tenant(turn.tenant).filter(pk=confirmation.pk).update(status=status,
                                                                                    decided_at=turn.now)
    confirmation.status = status
    plan = plan_for(turn, confirmation)
    if plan is not None:
        try:
            plan_status_set(plan=plan, status="cancelled")
        except IllegalTransition:
            pass
    operation = turn.conversation.active_operation or {}
    operation["status"] = "cancelled"
    turn.conversation.active_operation = operation
    turn.go(Status.CANCELLED)
    turn.event("EXECUTION_CANCELLED", {"confirmation_id": str(confirmation.pk), "plan_id": str(confirmation.plan_id),
                                       "before_execution": True}, operation_id=confirmation.operation_id)


def cancel(turn: Turn) -> None:
    confirmation = pending_confirmation(turn)
    if confirmation is not None:
        _cancel_confirmation(turn, confirmation, PendingStatus.CANCELLED)
        return turn.reply("answer", "cancel.done", values={})
    clarification = pending_clarification(turn)
    if clarification is not None:
        close_clarification(turn, clarification, PendingStatus.CANCELLED)
        turn.go(Status.CANCELLED)
        turn.event("EXECUTION_CANCELLED", {"clarification_id": str(clarification.pk), "before_execution": True})
        return turn.reply("answer", "clarification.cancelled", values={})
    operation = turn.conversation.active_operation or {}
    if turn.resting_before in (Status.EXECUTING, Status.CANCELLING) and operation.get("execution_id"):
        return cancel_running(turn, operation)
    rest(turn)
    turn.error("NOTHING_PENDING", "nothing.to_cancel")


def cancel_running(turn: Turn, operation: dict[str, Any]) -> None:
    execution = Execution.objects.for_tenant(turn.tenant).filter(pk=operation["execution_id"]).first()
    if execution is None or execution.finished_at is not None:
        rest(turn)
        return turn.error("NOTHING_PENDING", "nothing.to_cancel")
    pending = set(StepRun.objects.for_tenant(turn.tenant).filter(execution=execution, status="pending")
                  .values_list("step_id", flat=True))
    capabilities = PlanStep.objects.for_tenant(turn.tenant).filter(plan=execution.plan_id, step_id__in=pending) \
        .values_list("capability_id", flat=True)
    cancellable = bool(pending) and all(
        (spec := turn.snapshot.get(c, tenant=turn.tenant)) is not None and spec.cancellable for c in capabilities)
    if not cancellable:
        turn.go(Status.EXECUTING)
        return turn.reply("answer", "cancel.not_cancellable", values={})
    turn.go(Status.CANCELLING)
    execution_cancel(execution_id=execution.pk, tenant=turn.tenant, actor=turn.user, reason="user")
    turn.reply("execution", "cancel.running", values={},
               execution={"id": str(execution.pk), "status": "cancelled", "steps": []})
