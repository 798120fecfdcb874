"""Confirmation ("sim", or the confirm button with its id): consume the pending confirmation and
start its plan under an ALLOW receipt (invariant 3). An expired one is asked again with a fresh
plan (§17); one waiting for a human review is not the user's to confirm; a UI selection that moved
since planning is pointed out first (§29)."""

from __future__ import annotations

import uuid
from typing import Any

from tenancy.db import update_row_deferred

from .flow import pending_clarification, rest
from .metrics import stale_context_observe
from .models import Confirmation, PendingStatus
from .operations import approve_and_start, plan_and_decide, plan_and_steps_for
from .state import clarification_view, confirmation_view
from .statemachine import Status
from .turns import Turn


def confirm(turn: Turn, *, confirmation_id: Any = None) -> None:
    confirmation = turn.conversation.pending_confirmation
    if confirmation_id is not None and (confirmation is None or str(confirmation.pk) != str(confirmation_id)):
        stale_context_observe(reason="confirmation_replaced", at="confirm")
        rest(turn)
        return turn.error("CONFIRMATION_STALE", "confirmation.stale_id")
    if confirmation is None or confirmation.status not in (PendingStatus.PENDING, PendingStatus.EXPIRED):
        rest(turn)
        question = pending_clarification(turn)
        if confirmation_id is None and question is not None:  # "sim" to "which of the two?": the question stands
            return turn.reply("clarification", question.template, message=question.question,
                              clarification=clarification_view(question))
        return turn.error("NOTHING_PENDING", "nothing.pending")
    if confirmation.status == PendingStatus.EXPIRED:
        return reask_expired(turn, confirmation)
    if confirmation.level == "human_review":
        rest(turn)
        return turn.error("REVIEW_REQUIRED", "confirmation.review_waiting")
    if stale_context(turn, confirmation):
        return
    update_row_deferred(Confirmation, where={"tenant": turn.tenant.pk, "id": confirmation.pk},
                        values={"status": PendingStatus.CONSUMED, "decided_at": turn.now, "decided_by": turn.user.pk})
    confirmation.status = PendingStatus.CONSUMED
    turn.event("CONFIRMATION_RECEIVED", {"confirmation_id": str(confirmation.pk), "plan_id": str(confirmation.plan_id)},
               actor="user", operation_id=confirmation.operation_id)
    known = turn.pending_plan
    plan, rows = (known if known is not None and known[0].pk == confirmation.plan_id
                  else plan_and_steps_for(turn, confirmation))
    if plan is None:
        turn.go(Status.FAILED)
        return turn.error("NOT_FOUND", "nothing.pending")
    approve_and_start(turn, plan, confirmation, rows=rows)


def reask_expired(turn: Turn, confirmation: Confirmation) -> None:
    """After expiry: say so and ask again with a fresh plan and policy decision (§17)."""
    if turn.conversation.active_operation and str(turn.conversation.active_operation.get("confirmation_id")) != str(
            confirmation.pk):
        rest(turn)
        return turn.error("NOTHING_PENDING", "nothing.pending")
    state = dict(confirmation.intent)
    state["id"] = str(uuid.uuid4())
    plan_and_decide(turn, state, lead=turn.say("confirmation.expired"))
    if turn.response and turn.response.get("type") == "confirmation":
        turn.response["error"] = {"code": "CONFIRMATION_EXPIRED", "detail": turn.say("confirmation.expired")}


def stale_context(turn: Turn, confirmation: Confirmation) -> bool:
    """The UI selection moved since the plan was prepared: keep the plan's target and ask first (§29)."""
    snapshot = confirmation.ui_snapshot or {}
    current = (turn.conversation.context or {}).get("selection") or {}
    if confirmation.stale_warned or not snapshot or not current:
        return False
    if (snapshot.get("type"), str(snapshot.get("id"))) == (current.get("type"), str(current.get("id"))):
        return False
    Confirmation.objects.for_tenant(turn.tenant).filter(pk=confirmation.pk).update(stale_warned=True)
    confirmation.stale_warned = True
    stale_context_observe(reason="selection_changed", at="confirm")
    target = next((a for a in confirmation.affected if a.get("type") == snapshot.get("type")), None) or snapshot
    turn.event("STALE_CONTEXT_DETECTED", {"confirmation_id": str(confirmation.pk),
                                          "planned": {"type": snapshot.get("type"), "id": str(snapshot.get("id"))},
                                          "selected": {"type": current.get("type"), "id": str(current.get("id"))}},
               operation_id=confirmation.operation_id)
    turn.go(Status.CONFIRMATION_REQUIRED)
    nouns = turn.nouns(str(target.get("type") or snapshot.get("type")))
    turn.reply("confirmation", "stale.context", values={"label": target.get("label"), **nouns},
               confirmation=confirmation_view(confirmation),
               error={"code": "STALE_CONTEXT", "detail": turn.say("stale.context", label=target.get("label"),
                                                                   **nouns)})
    return True
