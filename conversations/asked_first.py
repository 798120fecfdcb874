"""A question about an item's field, then a request, in one message: "qual a <campo> da 312? e já aumenta em
5 dias", "Which <field> is 318 under? Also extend it to 14 days." Both are answered in one reply — the field's
value read now, then the request's proposal ("<Campo> da <entidade> 312: 45 dias. Deseja …?") —, never the
question alone with the request dropped.

Only a field question (answered from the item's data in the turn, no plan) that names its item by number and asks
for nothing to be done is answered this way, and only when what follows its question mark names a write by its own
verb, not hedged ("I might move it"); a question said with its question word and no mark ends at the "então"/"so"
that opens the request. The request is understood as a message of its own, and its "it"/"dela" is the item the
question was about (the answer made it the one in focus).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from . import lexicon
from .question import field_question
from .ranking import rank
from .state import hints_for
from .statemachine import Status
from .turns import Turn

# where a question said without its "?" ends and the request after it starts
_THEN_SAID = re.compile(r"(?i)\b(?:ent[aã]o|so|and then|e a[ií]|a[ií] ent[aã]o)\s+(?=\w)")

Understand = Callable[[Turn, list[str], set[str]], None]


def question_then_request(turn: Turn, allowed: set[str], understand: Understand) -> bool:
    """Answer the field question and plan the request after it; False (nothing done) when the message is not so."""
    cut = turn.text.find("?")
    then = _THEN_SAID.search(turn.text) if cut < 0 else None
    if then is not None and any(p in lexicon.OPEN_QUESTION_WORDS for p in lexicon.tokens(turn.text[:then.start()])):
        cut = then.start() - 1  # "a 310 tá com quantos dias mesmo, trinta né então aumenta ela pra 45"
    head, tail = turn.text[:cut + 1], turn.text[cut + 1:]
    asked, told = lexicon.strip_filler(lexicon.tokens(head)), lexicon.strip_filler(lexicon.tokens(tail))
    if (cut < 0 or not any(p.isdigit() for p in asked) or not told or _requests(turn, asked, allowed)
            or not _requests(turn, told, allowed) or set(told) & lexicon.HEDGES):
        return False  # (a question naming its item by number; "dá pra adiar a 60?" is itself the request)
    text = turn.text
    try:
        turn.text = head
        if not field_question(turn, asked):
            return False
        answer = turn.response or {}
        if answer.get("type") != "answer":
            return True  # the question is asked back first (which item?): no request is planned on a guess
        turn.text = tail
        turn.go(Status.UNDERSTANDING)  # (the answer left the conversation at rest)
        understand(turn, told, allowed)
    finally:
        turn.text = text
    reply = turn.response or {}
    reply["message"] = f"{answer.get('message', '')} {reply.get('message', '')}".strip()
    return True


def _requests(turn: Turn, words: list[str], allowed: set[str]) -> bool:
    """The words name a write by its own verb."""
    ranked = rank(turn.grammar, words, allowed, hints_for(turn.conversation, with_topic=False))
    return bool(ranked) and ranked[0].verb is not None and ranked[0].cap.kind == "write"
