""""Which one's further out?", "e qual é a mais próxima?", "qual delas tem mais dias?" right after a list: the item
the order picks (picked.py), answered with the value it was picked by — read now, the item then in focus.
Only a question that says nothing but the pick (question words, "one", the list's noun): anything more is a
request or a field question, read as before.
"""

from __future__ import annotations

from typing import Any

from . import lexicon
from .picked import picked_by_value
from .question import field_answer
from .turns import Turn

# The words a "which one?" may hold besides the pick: asking which, pointing at the list, linking.
_ONLY_ASKING = frozenset(lexicon.tokens(
    "which one ones s is the of them those these qual quais e a o as os das dos delas deles dessas desses "
    "essas esses sao eh é esta ta tá fica ficou tem has have got com with"))


def picked_question(turn: Turn, parts: list[str]) -> bool:
    found = _picked(turn, parts) if lexicon.asks(parts, turn.text) else None
    if found is None:
        return False
    slot_type, (ref, at, field) = found
    nouns = {w for phrase in turn.grammar.synonyms.get(slot_type, ()) for w in phrase}
    if any(p not in _ONLY_ASKING and p not in nouns for i, p in enumerate(parts) if i not in at):
        return False
    slot = next((s for c in turn.grammar.capabilities.values() if c.kind == "read" and c.intent == "show"
                 for s in c.slots if s.parse == "reference" and s.type == slot_type), None)
    body = turn.reader.entity(slot_type, ref.get("id")) if slot is not None else None
    if body is None or field not in body:
        return False
    field_answer(turn, slot, body, field, parts)
    return True


def picked_words(turn: Turn, parts: list[str]) -> frozenset[int]:
    """The positions of the words that pick an item of the last list by one of its values, else none."""
    found = _picked(turn, parts)
    return frozenset(found[1][1]) if found is not None else frozenset()


def _picked(turn: Turn, parts: list[str]) -> tuple[str, tuple[dict[str, Any], set[int], str]] | None:
    """(the type, picked_by_value's pick) of the first type of the last list a value of the message picks in."""
    listed = list((turn.conversation.context or {}).get("listed") or [])
    for slot_type in dict.fromkeys(str(r.get("type")) for r in listed):
        picked = picked_by_value(turn.grammar, listed, slot_type, parts, turn.text, turn.language)
        if picked is not None:
            return slot_type, picked
    return None
