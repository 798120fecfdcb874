"""Two questions in one message: "who's responsible for <entity> 318, and is it <state> yet?", "qual a
<campo> da 311 e ela já está <estado>?". Each clause is answered as the question it is (state_question,
question.field_question) — the second about the item the first named ("it", "ela") — and the answers are
given together. Only when the first clause is such a question; a list or a request is never split here.
"""

from __future__ import annotations

from . import lexicon
from .flow import rest
from .question import field_question
from .state_question import STATE_VERBS, state_question
from .statemachine import Status
from .turns import Turn

_JOINERS = frozenset(lexicon.tokens("and e"))
# What opens the second question: a question word or a state verb ("and is it …", "e quando …").
_OPENS = lexicon.OPEN_QUESTION_WORDS | STATE_VERBS
_PRONOUNS = lexicon.DEMONSTRATIVES | lexicon.CREATED


def split_questions(parts: list[str]) -> tuple[list[str], list[str]] | None:
    """The two clauses of "<question> and <question>" ("… e ela já está …": a pronoun may come first), or None."""
    at = next((i for i in range(1, len(parts) - 1) if parts[i] in _JOINERS and _opens(parts[i + 1:])), None)
    return (parts[:at], parts[at + 1:]) if at is not None else None


def _opens(rest: list[str]) -> bool:
    start = 1 if rest[0] in _PRONOUNS and len(rest) > 1 else 0
    return rest[start] in _OPENS


def two_questions(turn: Turn, parts: list[str]) -> bool:
    """Answer both questions; False (nothing done) when the first clause is not a question about an item."""
    clauses = split_questions(parts) if lexicon.asks(parts, turn.text) else None
    if clauses is None or not _answer(turn, clauses[0]):
        return False
    first = turn.response
    if first is None or first.get("type") != "answer":
        return True  # a clarification of the first
    turn.go(Status.UNDERSTANDING)  # (the answer left the conversation at rest: the second may ask which one)
    if not _answer(turn, clauses[1]):
        rest(turn)
        turn.response = first
        return True  # a second clause that asks nothing answerable: the first answer stands
    second = turn.response
    if second is not None and second is not first:
        second["message"] = f"{first['message']} {second['message']}"
    return True


def _answer(turn: Turn, clause: list[str]) -> bool:
    return state_question(turn, clause) or field_question(turn, clause)
