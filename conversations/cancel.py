"""Declining and cancelling: a pending confirmation ("não" declines it, "cancelar" cancels it; its
plan is cancelled either way), a pending clarification, or a running execution of this user: its
steps not started are cancelled, a step already calling ends (kept or undone as the tenant's cancel
rule says, policy/cancel.py). A cancel after the execution ended says so and what it had done."""

from __future__ import annotations

from typing import Any

from execution.cancel import cancel_facts
from execution.models import Execution
from execution.services import ExecutionError, execution_cancel
from planning.services import IllegalTransition, plan_status_set

from .cancel_report import cancel_text, settled_text
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
    execution = _own_execution(turn, operation)
    if execution is None:
        rest(turn)
        return turn.error("NOTHING_PENDING", "nothing.to_cancel")
    if turn.resting_before in (Status.EXECUTING, Status.CANCELLING) and not execution.settled:
        return cancel_running(turn, operation, execution)
    rest(turn)
    _settled_reply(turn, operation, execution)


def _own_execution(turn: Turn, operation: dict[str, Any]) -> Execution | None:
    """The operation's write execution, if this user ran it in this tenant ("missing" and "not
    yours" alike: nothing to cancel). A read has nothing to cancel either."""
    if not operation.get("execution_id"):
        return None
    execution = (Execution.objects.for_tenant(turn.tenant).select_related("plan", "tenant")
                 .filter(pk=operation["execution_id"], actor=turn.user).first())
    return None if execution is None or execution.plan.risk == "read" else execution


def _settled_reply(turn: Turn, operation: dict[str, Any], execution: Execution) -> None:
    text = settled_text(execution=execution, intent=operation.get("intent") or {}, language=turn.language)
    turn.reply("answer", "cancel.already_settled", message=text)  # this turn ran nothing: no execution


def cancel_running(turn: Turn, operation: dict[str, Any], execution: Execution) -> None:
    """Steps not started are cancelled; a step already calling ends, kept or undone as the
    tenant's cancel rule says (policy/cancel.py); the reply says which is which."""
    again = execution.error is not None and (execution.error or {}).get("code") == "CANCEL_REQUESTED"
    try:
        execution = execution_cancel(execution_id=execution.pk, tenant=turn.tenant, actor=turn.user, reason="user")
    except ExecutionError:
        rest(turn)
        return turn.error("NOTHING_PENDING", "nothing.to_cancel")
    if execution.settled and execution.status != "cancelled":  # it ended just before the cancel got the lock
        turn.go(Status.EXECUTING)  # the completion hook moves the conversation on, as for any execution
        return _settled_reply(turn, operation, execution)
    if cancel_facts(execution) is None:  # nothing left to stop; what is calling finishes (rule finish)
        turn.go(Status.EXECUTING)
        return turn.reply("answer", "cancel.not_cancellable", values={})
    turn.go(Status.CANCELLING)  # the completion hook moves it to CANCELLED once the execution settles
    text = cancel_text(execution=execution, intent=operation.get("intent") or {}, language=turn.language,
                       opening="cancel.already_requested" if again else "cancel.stopped")
    turn.reply("execution", "cancel.running", message=text,
               execution={"id": str(execution.pk), "status": execution.status, "steps": []})
