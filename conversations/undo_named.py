"""What an undo says of what it undoes, checked against the last change — only that one can be undone
(undo.py): an item named by number that it was not on ("desfaz a mudança da 311" after a change on 310), or a
change named by its verb that it was not ("undo the reschedule" after an addition). Either is refused; the last
change is never undone in its place."""

from __future__ import annotations

from typing import Any

from . import lexicon
from .control_composed import UNDO_VERBS
from .flow import allowed_capabilities
from .ranking import same_family
from .state import hints_for
from .turns import Turn
from .understanding import rank


def another_item_said(turn: Turn, states: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The item the last change was on, when the message names items by number and none of them is it; else None."""
    said = {w for w in lexicon.tokens(turn.text) if w.isdigit()}
    items = [v["entity"] for state in states for values in (state.get("slots") or {}).values() for v in values
             if isinstance(v.get("entity"), dict) and str(v["entity"].get("label")).isdigit()]
    if not said or not items or said & {str(i.get("label")) for i in items}:
        return None
    return items[0]


# "undo that last change", "desfaz essa alteração": words for any change name none in particular
_ANY_CHANGE = frozenset(lexicon.tokens("change changes edit update mudanca mudancas alteracao alteracoes modificacao "
                                       "altera muda edita atualiza"))
_VERB_WITHIN = 2  # "undo the reschedule", "desfaz aquela remarcação": the change's verb right after the undo's


def another_change_named(turn: Turn, last: set[str]) -> bool:
    """The words after the undo verb name a write (by its verb) of another entity or intent than the last change's
    capabilities `last` ("undo the reschedule, keep the rest" after an addition)."""
    words = lexicon.tokens(turn.text)
    at = next((i for i, w in enumerate(words) if w in UNDO_VERBS), None)
    if at is None:
        return False
    rest = words[at + 1:]
    ranked = rank(turn.grammar, rest, allowed_capabilities(turn), hints_for(turn.conversation, with_topic=False))
    # (its verb as typed, right after the undo's: "desfaz isso" names no "issue", "o que acabou de fazer" no create)
    named = next((r.cap for r in ranked if r.verb is not None and r.cap.kind == "write" and r.verb_span is not None
                  and r.verb_span[0] <= _VERB_WITHIN and tuple(rest[r.verb_span[0]:r.verb_span[1]]) == r.verb.words
                  and not set(r.verb.words) <= _ANY_CHANGE), None)
    done = [c for c in (turn.grammar.capabilities.get(i) for i in last) if c is not None]
    # "undo the <child kind> one" after a change of another kind: a noun of what no last change touched
    types = {t for t, (a, b) in turn.grammar.types_named_in(rest).items()
             if tuple(rest[a:b]) in turn.grammar.synonyms.get(t, ())}  # said as such ("isso" is no slip of a noun)
    touched = {c.entity for c in done} | {s.type for c in done for s in c.slots}
    if types and not types & touched:
        return True
    return named is not None and not any(c.id == named.id or (c.entity == named.entity
                                                               and same_family(c.intent, named.intent)) for c in done)
