"""One write said of several items — "aprova a 310 e a 311", "cancel 51 and 52", "tira o <filho> da 310 e da 330",
"aprova as duas" after two items were opened: one step per item, planned as one plan and confirmed once
(sequence.plan_steps). Before, the first item was taken and the others dropped without a word.

The items are the numbers listed right after the target's own number (joined by "e" or "and", with only
articles and prepositions between them), each naming one item of the target's type; or, with no number said, "as duas",
"both of them" — the conversation's last two items of that type (both_items.last_two). A capability the registry
repeats itself (a batch, a "<capability>Many" composite) is left to that. When the value depends on each item (an
amount added to its own, a date counted from its own) or a listed number names no single item, nothing is planned:
the user is asked to say one at a time — never one of them done silently.
(Hand-written: a list of numbers in a sentence is closed-class grammar; no kept library reads it.)
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from . import lexicon
from .both_items import both_span, last_two
from .extraction import Extraction, SlotValue
from .grammar import CapabilityGrammar
from .intents import is_target, repeated
from .numbers import numbers_in
from .sequence import counted_from_the_item, one_step_at_a_time, plan_steps
from .turns import Turn
from .understanding import Extractor

# The words that may stand between two listed numbers: "310 e a 311", "da 310 e da 330", "51, 52 and 57".
_BETWEEN = frozenset(lexicon.tokens("e and a as o os da das do dos de na nas no nos the also tambem também"))
_AND = frozenset(lexicon.tokens("e and"))


def each_item(turn: Turn, cap: CapabilityGrammar, extraction: Extraction, parts: list[str],
              extractor: Extractor) -> bool:
    """Plan the write once per item it is said of (module docstring); False (nothing done) for one item."""
    if cap.kind != "write" or cap.intent == "create" or cap.batch is not None or repeated(cap.id):
        return False
    names = [s.name for s in cap.slots if is_target(turn, cap, s.name)]
    if len(names) != 1 or not extraction.values.get(names[0]):
        return False
    slot = cap.slot(names[0])
    first = extraction.values[names[0]][0]
    listed = _listed(parts, extraction) if first.source == "text" else []
    items = _resolved(slot, listed, parts, extractor, extraction) if listed else _both(turn, parts, slot.type, first)
    if items is None:
        return one_step_at_a_time(turn)
    if not items:
        return False  # (a listed number that names nothing is the extraction's not_found: asked about)
    every = [first, *items] if listed else items
    if len({str(v.value) for v in every}) < 2:
        return False
    if counted_from_the_item(cap, extraction):
        return one_step_at_a_time(turn)
    plan_steps(turn, [(cap, replace(extraction, values={**extraction.values, names[0]: [v]})) for v in every])
    return True


def _listed(parts: list[str], extraction: Extraction) -> list[str]:
    """The numbers listed after the first number the extraction took (none used by another value, none with a
    unit): "aprova a 310 e a 311" → ["311"]."""
    numbers = {i: (digits, unit) for i, digits, unit in numbers_in(parts)}
    taken = [i for i in sorted(extraction.used) if i in numbers]
    if not taken:
        return []
    out, joined, i = [], False, taken[0] + 1
    while i < len(parts):
        if i in numbers and i not in extraction.used and not numbers[i][1]:
            out.append(parts[i])
        elif parts[i] not in _BETWEEN:
            break
        joined = joined or parts[i] in _AND
        i += 1
    return out if joined else []  # ("10.5" is two numbers side by side: no list)


def _resolved(slot: Any, numbers: list[str], parts: list[str], extractor: Extractor,
              extraction: Extraction) -> list[SlotValue] | None:
    """Each listed number as its one item of the slot's type; None when one names several, [] when one names none
    (the extraction then says it was not found: "aprova a 310 e a 999" is asked about, never half done)."""
    out = []
    for number in numbers:
        found = Extraction()
        extractor.resolve_number(slot, number, parts, found)
        if found.ambiguous.get(slot.name):
            return None
        if not found.values.get(slot.name):
            extraction.not_found[slot.name] = number
            return []
        out.append(found.values[slot.name][0])
    return out


def _both(turn: Turn, parts: list[str], type_: str, first: SlotValue) -> list[SlotValue]:
    """"aprova as duas", "cancel both of them": the last two items of the type, when the target was not said."""
    if first.source == "text" or both_span(parts) is None or any(p.isdigit() for p in parts):
        return []
    two = last_two(turn, parts) or []
    if any(ref.get("type") != type_ for ref in two):
        return []
    return [SlotValue(ref.get("id"), str(ref.get("label")), dict(ref), "context") for ref in reversed(two)]
