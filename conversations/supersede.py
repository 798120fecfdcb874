"""Intent replacement (issue #16 item 5): a new request answered while a confirmation (a review
included) or a clarification was on screen supersedes it explicitly — its row is closed, an
INTENT_UPDATED event says so, and the reply tells the user — so a later "sim" only ever answers the
question on screen. A message the agent did not understand supersedes nothing.
"""

from __future__ import annotations

from .flow import pending_clarification, pending_confirmation
from .models import Clarification, Confirmation, PendingStatus
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
    if notes:
        response["message"] = " ".join(notes) + " " + str(response.get("message") or "")
