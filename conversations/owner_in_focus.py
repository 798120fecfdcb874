"""An owner said through the item in focus: "quantas <entidades> a <dona> dela tem?", "how many <entities> does
that <owner> have?", "a mesma <dona> dessa". The slot's noun (the manifest's synonyms of its type), said with a
word that points at the item in focus, is that item's own value of the slot's type (its ref carries it, as
`<tipo>: {id, name}`). Never a guess: no item in focus, or one without that value, is no value."""

from __future__ import annotations

from .extraction import Situation, SlotValue
from .grammar import Grammar, SlotSpec
from .lexicon import tokens
from .word_match import find_phrase

# After the noun: "a <dona> dela/dessa/desta"; before it: "that/this/its/same <owner>", "a mesma <dona>".
_POINTING_AFTER = frozenset(tokens("dela dele dessa desse desta deste daquela daquele"))
_POINTING_BEFORE = frozenset(tokens("that this its same mesma mesmo essa esse esta este aquela aquele"))


def owner_in_focus(grammar: Grammar, situation: Situation, slot: SlotSpec, parts: list[str]) -> SlotValue | None:
    focus = situation.active or situation.selection
    owner = focus.get(slot.type) if isinstance(focus, dict) else None
    if not isinstance(owner, dict) or owner.get("id") is None or not _pointed(grammar, slot.type, parts):
        return None
    label = str(owner.get("name") or owner.get("label") or owner["id"])
    return SlotValue(owner["id"], label, {"type": slot.type, **owner}, "context")


def _pointed(grammar: Grammar, slot_type: str, parts: list[str]) -> bool:
    for phrase in grammar.synonyms.get(slot_type, ()):
        at = find_phrase(parts, phrase)
        if at is None:
            continue
        before, after = parts[max(0, at[0] - 2):at[0]], parts[at[1]:at[1] + 1]
        if set(before) & _POINTING_BEFORE or set(after) & _POINTING_AFTER:
            return True
    return False
