"""A question asked of the two items the conversation has just been on: "lista os <filhos> das duas", "qual das duas
vence antes?", "what are the <campo> of both of them?". The two are the last two recent entities of one type (the
type of the latest, or the one the message names); the question, without the words that say "the two", is asked
of each as a field question (question.field_question) — the older first — and both answers are given together.
Nothing is written; when either cannot be answered so, the message is read as before.
(Hand-written: a few closed-class phrases of two languages for "the two"; no kept library reads them.)
"""

from __future__ import annotations

from typing import Any

from . import lexicon
from .flow import pending_clarification, pending_confirmation, rest
from .grammar import find_phrase
from .question import field_question
from .statemachine import Status
from .turns import Turn

_BOTH = [lexicon.tokens(p) for p in (
    "entre as duas", "entre os dois", "dessas duas", "destas duas", "desses dois", "destes dois", "das duas",
    "dos dois", "nas duas", "nos dois", "as duas", "os dois", "ambas", "ambos",
    "between the two of them", "the two of them", "both of them", "of those two", "of these two", "of the two",
    "between the two", "those two", "these two", "the two", "both")]


def both_asked(turn: Turn, parts: list[str]) -> bool:
    """Answer the question for each of the last two items (module docstring); False (nothing done) otherwise."""
    if pending_confirmation(turn) is not None or pending_clarification(turn) is not None:
        return False
    span = both_span(parts)
    if span is None or any(p.isdigit() for p in parts):
        return False
    two = last_two(turn, parts)
    question = parts[:span[0]] + parts[span[1]:]
    if two is None or len(question) < 2:
        return False
    context = dict(turn.conversation.context or {})
    answers: list[str] = []
    for ref in reversed(two):
        if answers:
            turn.go(Status.UNDERSTANDING)  # (the first answer left the conversation at rest)
        # (the item as the one in view: no selection on screen stands before it)
        turn.conversation.context = {**context, "active_entity": dict(ref), "selection": None,
                                     "recent_entities": [dict(ref), *context.get("recent_entities", [])]}
        if not field_question(turn, question) or (turn.response or {}).get("type") != "answer":
            turn.conversation.context = context
            if answers or turn.response is not None:  # a part answered: the message is read again from rest
                turn.response = None
                rest(turn)
            return False
        answers.append(turn.response["message"])
    turn.conversation.context = context
    turn.response["message"] = " ".join(answers)
    return True


def both_span(parts: list[str]) -> tuple[int, int] | None:
    """Where the message says "the two" ("as duas", "both of them"), if it does."""
    return next((at for phrase in _BOTH if (at := find_phrase(parts, phrase)) is not None), None)


def last_two(turn: Turn, parts: list[str]) -> list[dict[str, Any]] | None:
    recent = list((turn.conversation.context or {}).get("recent_entities") or [])
    if not recent:
        return None
    # (a type the message names that two recent items have — else the latest's: "os <filhos> das duas")
    for kind in [*turn.grammar.types_named_in(parts), recent[0].get("type")]:
        same = [r for r in recent if r.get("type") == kind]
        if len(same) >= 2:
            return same[:2]
    return None
