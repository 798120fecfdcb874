"""Resume ("continuar", the resume turn): ask the pending confirmation or clarification again, or
retry the failed operation."""

from __future__ import annotations

from . import messages
from .flow import pending_clarification, pending_confirmation, rest
from .models import Confirmation
from .retry import retry
from .state import clarification_view, confirmation_view
from .statemachine import Status
from .turns import Turn


def resume(turn: Turn) -> None:
    confirmation = pending_confirmation(turn)
    if confirmation is not None:
        turn.go(Status.CONFIRMATION_REQUIRED)
        return turn.reply("confirmation", confirmation.template, message=confirmation_question(turn, confirmation),
                          confirmation=confirmation_view(confirmation))
    clarification = pending_clarification(turn)
    if clarification is not None:
        turn.go(Status.CLARIFICATION_REQUIRED)
        return turn.reply("clarification", clarification.template, message=clarification.question,
                          clarification=clarification_view(clarification))
    if turn.resting_before == Status.FAILED:
        return retry(turn)
    rest(turn)
    turn.error("NOTHING_PENDING", "nothing.to_resume")


def confirmation_question(turn: Turn, confirmation: Confirmation) -> str:
    return messages.say(confirmation.template, turn.language, action=confirmation.summary,
                        risk=messages.RISK_WORDS[turn.language].get(confirmation.risk, confirmation.risk),
                        affected=messages.join_list([str(a.get("label")) for a in confirmation.affected],
                                                    turn.language))
