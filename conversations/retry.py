"""Retry ("tente de novo", "try again"): a failed operation again (§41), as a new plan."""

from __future__ import annotations

import uuid

from .flow import rest
from .operations import plan_and_decide
from .statemachine import Status
from .turns import Turn


def retry(turn: Turn) -> None:
    """A failed operation again (§41): re-validated as a new plan; a still-valid soft confirmation of the
    same plan hash is reused, anything stronger is asked again (invariant 4)."""
    operation = turn.conversation.active_operation or {}
    last = turn.conversation.last_result or {}
    failed = turn.resting_before == Status.FAILED or last.get("status") in ("failed", "compensated")
    if not failed or not operation.get("intent"):
        rest(turn)
        return turn.error("NOTHING_PENDING", "nothing.to_retry")
    state = dict(operation["intent"])
    state["id"] = str(uuid.uuid4())
    for _name, values in (state.get("slots") or {}).items():
        for value in values:
            entity = value.get("entity")
            if entity and turn.reader.read_capability(str(entity.get("type"))):
                if turn.reader.entity(str(entity.get("type")), value.get("value")) is None:
                    rest(turn)
                    return turn.error("NOT_FOUND", "clarify.entity_not_found", number=value.get("label"),
                                      **turn.nouns(str(entity.get("type"))))
    action = str(operation.get("summary") or "")
    plan_and_decide(turn, state, reuse_soft_of=operation.get("confirmation_id"),
                    lead=turn.say("retry.asks_again", action=action) if action else "")
