"""A no to the proposal on screen, then a question: "não não. quem é o <campo> dela mesmo?", "cancel that. what's its
<campo> btw?". The no is heard — the proposal is set aside, as for any new request (supersede.py) — and the
question is answered; before, the question was dropped with the proposal. A hold ("pera, quantos dias ela tem?")
keeps the proposal and is answer_remark.py's; a new request to act after the no is a correction, not this."""

from __future__ import annotations

from . import lexicon
from .answer_remark import CLAUSES, commands, control_of
from .cancel import cancel, decline
from .flow import allowed_capabilities, pending_confirmation
from .turns import Turn


def question_after_no(turn: Turn, text: str) -> str | None:
    """The question after the no that opens the message, with a confirmation pending; else None."""
    if pending_confirmation(turn) is None:
        return None
    clauses = [c.strip() for c in CLAUSES.split(text) if c.strip()]
    said = 0
    while (said < len(clauses) - 1 and control_of(lexicon.phrase(clauses[said])) in (decline, cancel)
           and not set(lexicon.tokens(clauses[said])) <= lexicon.HOLDS):  # ("pera": a hold keeps the proposal)
        said += 1
    if not said:
        return None
    question = text[_end_of(text, said):].lstrip(" ,;.!?—–-")
    words = lexicon.tokens(question)
    if not lexicon.asks(words, question) or commands(turn, words, allowed_capabilities(turn), reads=False):
        return None
    return question


def _end_of(text: str, clauses: int) -> int:
    """Where the first `clauses` clauses of `text` end."""
    at = 0
    for piece in CLAUSES.split(text):
        if not piece.strip():
            continue
        at = text.index(piece, at) + len(piece)
        clauses -= 1
        if not clauses:
            break
    return at
