"""A question or a navigation, and a write, in one message — in either order, joined by "e"/"and"/"then":
"qual a <campo> da 312 e aumenta ela em 5 dias", "open 52 and reschedule it for next friday", "adia ela mais uma
semana e me diz quem é o <campo>". Both are done in one reply: the question answered
(or the page opened) from data read now, then the write proposed — never one of them dropped, nor the write run
without its confirmation. Only a question a field answers (read in the turn) is answered so: a list or a count is
a plan whose answer comes after the turn — such a message is read as before, one request.

Each clause is understood as a message of its own. A question before the write is answered first, and the write's
"it"/"nela" is then the item the question or the navigation was about (it is the one in focus). A question after
the write is about the write's item ("… and tell me who's responsible for it"): that item is put in focus, the
question answered, then the write proposed. When the first part does not settle (an item asked back, an error),
nothing more is done: the write is never planned on a guess. Only two clauses, the write named by its own verb and
not hedged ("I might move it"); two writes are conversations.sequence's, a condition conversations.compound's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import lexicon
from .compound_said import clause_ranges
from .question import field_question
from .ranking import rank
from .sequence import clause_text
from .settle import settle_reads_here
from .state import entity_activate, hints_for
from .statemachine import Status
from .turns import Turn
from .understanding import Extractor, masked

_PLANNED_READS = frozenset({"list", "search", "count"})
_RELATIVE = frozenset(lexicon.tokens("que that which who"))
Understand = Callable[[Turn, list[str], set[str]], None]
Chooser = Callable[..., tuple[Any, Any]]



def read_and_write(turn: Turn, parts: list[str], spans: frozenset[int], allowed: set[str], understand: Understand,
                   extractor: Extractor, choose: Chooser) -> bool:
    """Answer (or open) and propose, as the module says; False (nothing done) when the message is not so."""
    view = masked(parts, spans)
    ranges = clause_ranges(view)
    if len(ranges) != 2 or lexicon.HEDGES & set(parts):
        return False
    if view[ranges[1][0]:ranges[1][0] + 1] and view[ranges[1][0]] in _RELATIVE:
        return False  # "abre a que tá marcada pra …": a clause that says which one, no second request
    kinds = [_kind(turn, view[a:b], allowed) for a, b in ranges]
    if kinds[1] == "write" and kinds[0] in ("navigation", "question"):
        (first, then), asked = ranges, kinds[0]
    elif kinds[0] == "write" and kinds[1] == "question":
        (then, first), asked = ranges, kinds[1]
        if not _focus_on(turn, parts, then, allowed, extractor, choose):
            return False
    else:
        return False
    text, texts = turn.text, (clause_text(turn, parts, first), clause_text(turn, parts, then))
    try:
        turn.text = texts[0]
        if asked == "navigation":
            understand(turn, parts[first[0]:first[1]], allowed)
        elif not field_question(turn, parts[first[0]:first[1]]) and not _read_settled(
                turn, parts[first[0]:first[1]], allowed, understand):
            return False  # neither a field's question nor a list or a count answered here — as before
        said = dict(turn.response or {})
        if said.get("type") not in ("answer", "navigation"):
            return True  # asked back (which item?), refused, an error: the write waits for it
        turn.text = texts[1]
        turn.go(Status.UNDERSTANDING)  # (the answer left the conversation at rest)
        understand(turn, parts[then[0]:then[1]], allowed)
    finally:
        turn.text = text
    reply = turn.response or {}
    reply["message"] = f"{said.get('message', '')} {reply.get('message', '')}".strip()
    if said.get("navigation") and not reply.get("navigation"):
        reply["navigation"] = said["navigation"]  # the page asked for is opened as the proposal is shown
    return True


def _kind(turn: Turn, clause: list[str], allowed: set[str]) -> str | None:
    """"write" or "navigation" when the clause names one by its own verb (one action: no second verb in it),
    "question" when it asks (a question word, and no verb but a read's), else None."""
    if all(p in lexicon.OPENING for p in clause):
        return None  # "go ahead and …", "vai lá e …": words that only open the request
    ranked = rank(turn.grammar, clause, allowed, hints_for(turn.conversation, with_topic=False))
    if ranked and ranked[0].verb is not None and ranked[0].verb_span is not None:
        kind = ranked[0].cap.kind
        if kind == "write" and ranked[0].cap.intent != "create":
            return "write"
        if kind in ("read", "navigation") and any(r.cap.kind == "write" and r.verb_span is not None
                                                  and r.verb_span[0] != ranked[0].verb_span[0] for r in ranked):
            return None  # "abre a 802, adicione X nela": a write's verb inside it too — two actions in one clause
        if kind == "navigation":
            return kind
        if kind == "read":  # a question, answered from a field or by a list or a count settled in the turn
            return "question" if any(p in lexicon.OPEN_QUESTION_WORDS for p in clause) or ranked[
                0].cap.intent in _PLANNED_READS else None
    return "question" if any(p in lexicon.OPEN_QUESTION_WORDS for p in clause) else None


def _read_settled(turn: Turn, clause: list[str], allowed: set[str], understand: Understand) -> bool:
    """A list or a count asked before the write, planned and settled in this turn (settle.py), so its answer
    comes first; False (nothing done) when the clause is no such read, or an earlier operation still runs. A read
    that cannot settle here (over its budget) answers after the turn: the write then waits, never proposed under
    a reply that would replace it."""
    ranked = rank(turn.grammar, clause, allowed, hints_for(turn.conversation, with_topic=False))
    if (not ranked or ranked[0].cap.kind != "read" or ranked[0].cap.intent not in _PLANNED_READS
            or turn.conversation.status in (Status.EXECUTING, Status.CANCELLING)):
        return False
    understand(turn, clause, allowed)
    if turn.started_read and not turn.read_settled:
        settle_reads_here(turn, None)
    if turn.started_read and not turn.read_settled:
        turn.response = {**(turn.response or {}), "type": "execution"}  # (not an answer: the write waits)
    return True


def _focus_on(turn: Turn, parts: list[str], at: tuple[int, int], allowed: set[str], extractor: Extractor,
              choose: Chooser) -> bool:
    """The write's item made the one in focus, so the question after it ("… who's responsible for it?") is about
    it; False when the write names no item."""
    own = parts[at[0]:at[1]]
    ranked = rank(turn.grammar, own, allowed, hints_for(turn.conversation, with_topic=True))
    if not ranked:
        return False
    best, extraction = choose(turn, ranked, own, extractor, allowed)
    items = [v.entity for s in best.cap.slots if s.parse == "reference" for v in extraction.values.get(s.name, ())
             if v.entity and v.entity.get("type")]
    if not items:  # ("adia ela …": its item is the one in focus already)
        return bool(extractor.situation.active) and any(p in lexicon.POINTING for p in own)
    entity_activate(turn.conversation, items[0], version=turn.version)
    return True
