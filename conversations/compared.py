"""An item named only to compare with: "a mesma <campo> da 312", "the same <field> as 310", "a week before
<entity> 60", "depois da 57". That number says whose value is meant, never which item the request acts on: its
positions are masked like data (request.understand) and left out of a correction's numbers
(corrections.correction_apply). A copy asked ("cria uma <entidade> igual à 310", clone.py) is no comparison: there
the number is the source.

`values_compared`: "Deixa a 311 com a mesma <campo> da 312" acts on 311 with 312's value of that field, read now.
A value said relative to another item ("3 dias a mais do que a 310") is asked, never guessed, and so is one whose
item is not one (a number two owners share).
(Hand-written: a few comparison markers of two languages; no kept library reads them.)
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from .clone import clone_said
from .dates import date_label
from .extraction import SlotValue
from .lexicon import tokens
from .ranking import number_positions
from .reads import entity_ref

# The verbs that ask for a new item: with a copy's word ("igual", "same") they ask for a copy.
_MAKE = frozenset(tokens("cria crie criar criem faz faca fazer nova novo new create make copy copia copie copiar clone "
                         "clona clonar duplica duplicar duplique duplicate emite emitir abre abrir open another outra"))
_UNITS = r"(?:dias?|semanas?|mes(?:es)?|days?|weeks?|months?|d)\b"
# "<marker> [up to 4 words] <link> [article] [noun] <number>", the number not followed by a unit ("depois de 3 dias"
# is an amount of time, not an item).
_COMPARED = re.compile(
    r"\b(?:(?:same|mesm[ao]s?|igual|identic[ao])\b(?:\s+\w+){0,4}?\s+"
    r"(?:as|that of|d[aoe]s?|que (?:[ao]|n[ao])|a|ao|[aà])"
    r"|before|after|antes d[aoe]s?|depois d[aoe]s?|match(?:es|ing)?)"
    r"\s+(?:(?:the|a|o)\s+)?(?!(?:that|this|isso|disso|which|then)\b)(?:[a-z]+\s+)?(\d+)\b(?!\s+" + _UNITS + ")")


def compared_numbers(text: str) -> set[str]:
    """The numbers a message names only to compare with."""
    folded = " ".join(tokens(text))
    return {m.group(1) for m in _COMPARED.finditer(folded)}


def compared_positions(parts: list[str], text: str) -> frozenset[int]:
    """The positions in `parts` of the numbers named only to compare with — none when the message names no other
    item and asks for a copy ("faz uma igual à 310 mas com 20 dias": 310 is the copy's source)."""
    numbers = compared_numbers(text)
    at = frozenset(i for i, p in enumerate(parts) if p in numbers)
    others = [i for i, _digits, unit in number_positions(parts) if not unit and i not in at]
    copy = clone_said(parts) and any(p in _MAKE for p in parts)
    return at if at and (others or not copy) else frozenset()


_SAME = re.compile(r"\b(?:same|mesm[ao]s?|igual|identic[ao]|match(?:es|ing)?)\b")


def values_compared(turn: Any, cap: Any, extraction: Any) -> None:
    """Fill the write's missing values from the one item the message compares with, when it says "the same"."""
    numbers = compared_numbers(turn.text)
    if cap.kind != "write" or cap.intent == "create" or len(numbers) != 1 or not _SAME.search(
            " ".join(tokens(turn.text))):
        return
    own = next((s for s in cap.slots if s.parse == "reference" and s.type == cap.entity), None)
    if own is None:
        return
    _the_other_number_is_the_target(turn, cap, own, extraction, numbers)
    items = turn.reader.search(own, next(iter(numbers)))
    if len(items) != 1:
        return  # none, or one per owner: never a guess of whose value (the value is asked)
    for slot in cap.slots:
        value = items[0].get(slot.field or slot.name)
        if slot.parse not in ("integer", "date") or slot.from_context or extraction.values.get(slot.name) or (
                value is None):
            continue
        label = date_label(date.fromisoformat(value), turn.language) if slot.parse == "date" else str(value)
        extraction.values[slot.name] = [SlotValue(value, label)]
        extraction.missing = [m for m in extraction.missing if m != slot.name]
        extraction.invalid.pop(slot.name, None)


def _the_other_number_is_the_target(turn: Any, cap: Any, own: Any, extraction: Any, compared: set[str]) -> None:
    """"Deixa a 311 com a mesma <campo> da 312": the value comes from 312, so neither number is a value of the
    write, and the one bare number left is the item it is on — when the message names no item otherwise (one
    item of that number, never a guess). A value this leaves unsaid is asked unless the compared item gives it."""
    said = extraction.values.get(own.name) or []
    bare = [d for _, d, unit in number_positions(tokens(turn.text)) if not unit and d not in compared]
    items = turn.reader.search(own, bare[0]) if len(bare) == 1 and not (said and said[0].source == "text") else []
    if len(items) == 1:
        ref = entity_ref(cap.entity, items[0], label_field="number")
        extraction.values[own.name] = [SlotValue(ref["id"], ref["label"], ref, "text")]
        extraction.missing = [m for m in extraction.missing if m != own.name]
    numbers = compared | set(bare[:1] if len(items) == 1 else [])
    for slot in cap.slots:
        if slot.parse != "integer":
            continue
        if any(str(v.value) in numbers for v in extraction.values.get(slot.name) or []):
            del extraction.values[slot.name]
        if str((extraction.invalid.get(slot.name) or {}).get("said")) in numbers:
            extraction.invalid.pop(slot.name)
        if slot.required and slot.name not in extraction.values and slot.name not in extraction.missing:
            extraction.missing.append(slot.name)
