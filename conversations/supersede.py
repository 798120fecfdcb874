"""Intent replacement (issue #16 item 5): a new request answered while a confirmation (a review
included) or a clarification was on screen supersedes it explicitly — its row is closed, an
INTENT_UPDATED event says so, and the reply tells the user — so a later "sim" only ever answers the
question on screen. A message the agent did not understand supersedes nothing.
"""

from __future__ import annotations

from .flow import pending_clarification, pending_confirmation, rest
from .metrics import intent_replaced, task_close
from .models import Clarification, Confirmation, PendingStatus
from .statemachine import Status
from .turns import Turn

OnScreen = tuple[Confirmation | None, Clarification | None]


def on_screen(turn: Turn) -> OnScreen:
    return pending_confirmation(turn), pending_clarification(turn)


def supersede(turn: Turn, asked: OnScreen) -> None:
    """Close what was on screen before this turn's new request, unless the turn did not understand it."""
    response = turn.response or {}
    if not response or response.get("template") in ("clarify.unknown", "clarify.llm_unavailable"):
        return
    confirmation, clarification = asked
    notes: list[str] = []
    if confirmation is not None:
        if confirmation.status == PendingStatus.PENDING:
            Confirmation.objects.for_tenant(turn.tenant).filter(pk=confirmation.pk, status=PendingStatus.PENDING) \
                .update(status=PendingStatus.INVALIDATED, decided_at=turn.now)
            confirmation.status = PendingStatus.INVALIDATED
            turn.event("INTENT_UPDATED", {"invalidated_confirmation": str(confirmation.pk), "reason": "superseded"},
                       operation_id=confirmation.operation_id)
        notes.append(turn.say("pending.superseded_confirmation", action=confirmation.summary))
    if clarification is not None and clarification.status != PendingStatus.CONSUMED:
        if clarification.status == PendingStatus.PENDING:
            Clarification.objects.for_tenant(turn.tenant).filter(pk=clarification.pk, status=PendingStatus.PENDING) \
                .update(status=PendingStatus.INVALIDATED, closed_at=turn.now)
            clarification.status = PendingStatus.INVALIDATED
            turn.event("INTENT_UPDATED", {"invalidated_clarification": str(clarification.pk), "reason": "superseded"})
        notes.append(turn.say("pending.superseded_clarification"))
    for pending, superseded in (("confirmation", confirmation), ("clarification", clarification)):
        if superseded is not None and superseded.status == PendingStatus.INVALIDATED:
            intent_replaced(pending=pending)
    if notes:
        task_close(turn.conversation, outcome="replaced")
        response["message"] = " ".join(notes) + " " + str(response.get("message") or "")
    elif turn.resting_before in (Status.CONFIRMATION_REQUIRED, Status.CLARIFICATION_REQUIRED):
        task_close(turn.conversation, outcome="expired")  # its question expired before this new request
    _rest_truthfully(turn)


def _rest_truthfully(turn: Turn) -> None:
    """A question answered in the turn rested on the status of what was on screen before it was closed
    here: the status then says what is pending now (the rows just closed wait for nothing)."""
    status = turn.conversation.status
    stale = ((status == Status.CONFIRMATION_REQUIRED and pending_confirmation(turn) is None)
             or (status == Status.CLARIFICATION_REQUIRED and pending_clarification(turn) is None))
    if stale:
        turn.go(Status.UNDERSTANDING)
        rest(turn)
