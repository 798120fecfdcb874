"""An item picked from the list just answered by one of its values: "a de 15 dias, aumenta mais 10", "the one
with 30 days", "the 15-day one", "which one's further out?", "abre a mais próxima". The list's refs keep the
values of the entity's orderable fields (a <campo> said in a unit, a date: the manifest's slots), so the next
turn picks among what the user saw — never a guess: one item must hold the amount said, or stand alone at
the end of the order asked. (Hand-written: a closed list of pointing words and of superlatives.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .dates import date_in, today
from .grammar import Grammar, find_phrase
from .lexicon import DAY_UNITS, tokens

# "a de 15 dias", "the one with 30 days", "na de 15 dias": the words before "de/com/with <n> <unit>" that point
_POINTERS = frozenset(tokens("a o as os the one aquela aquele essa esse that na no da do pela pelo"))
_OF = frozenset(tokens("de com with"))
_ONE = frozenset(tokens("one ones"))
# "which one's further out?", "a mais próxima": the order asked — (field kind, the end of the order)
_SUPERLATIVES = {
    ("date", "max"): "further out|furthest|farthest|latest|mais longe|mais distante|mais tarde|mais pra frente"
                     "|mais para frente|mais adiante",
    ("date", "min"): "soonest|earliest|nearest|closest|mais proxima|mais proximo|mais cedo|mais perto",
    ("amount", "max"): "longest|most days|more days|mais dias|mais longa|mais longo",
    ("amount", "min"): "shortest|fewest days|least days|fewer days|less days|menos dias|mais curta|mais curto",
}
_ORDERS = [(order, tuple(tokens(phrase))) for order, said in _SUPERLATIVES.items() for phrase in said.split("|")]
_BEFORE_ORDER = frozenset(tokens("one ones which qual quais a o the aquela aquele s is com tem with has have delas "
                                  "deles them"))
_COURTESY = ("at", "the")  # "at the earliest" is no pick


def orderable(grammar: Grammar, entity_type: str) -> dict[str, str]:
    """The entity's fields a list item can be picked by: field → "amount" (said in a unit) or "date"."""
    fields: dict[str, str] = {}
    for cap in grammar.capabilities.values():
        if cap.entity != entity_type:
            continue
        for slot in cap.slots:
            if slot.parse == "date":
                fields.setdefault(slot.field, "date")
            elif slot.parse == "integer" and slot.unit:
                fields.setdefault(slot.field, "amount")
    return fields


def with_values(grammar: Grammar, ref: dict[str, Any], row: Mapping[str, Any]) -> dict[str, Any]:
    """`ref` with the values of its entity's orderable fields as the list read them (kept for the next turn)."""
    values = {f: row[f] for f in orderable(grammar, str(ref.get("type"))) if row.get(f) is not None}
    return {**ref, "values": values} if values else ref


def picked_by_value(grammar: Grammar, listed: list[dict[str, Any]], slot_type: str, parts: list[str],
                    text: str = "", language: str = "pt-BR") -> tuple[dict[str, Any], set[int], str] | None:
    """The item of `slot_type` of the last list the message picks by a value, the positions of the words that
    say it (never a value of the request) and the field it was picked by, else None."""
    items = [r for r in listed if r.get("type") == slot_type and r.get("values")]
    if len(items) < 2:
        return None
    fields = orderable(grammar, slot_type)
    return _by_amount(items, fields, parts) or _by_order(items, fields, parts) or _by_day(items, fields, parts,
                                                                                          text, language)


# "abre a que tá marcada pra daqui 14 dias", "cancel the one that's 30 days out": the words between the pointing
# word and the day
_TO_THE_DAY = frozenset(tokens("que ta esta is s that marcada marcado agendada agendado scheduled set pra para for "
                               "on de in due"))


def _by_day(items: list[dict[str, Any]], fields: dict[str, str], parts: list[str], text: str,
            language: str) -> tuple[dict[str, Any], set[int], str] | None:
    days = [f for f, kind in fields.items() if kind == "date"]
    said = date_in(text, today(), language) if text and len(days) == 1 else None
    found = find_phrase(parts, tuple(tokens(said.words))) if said is not None else None
    if not found:
        return None
    start = found[0]
    while start > 0 and parts[start - 1] in _TO_THE_DAY:
        start -= 1
    if start == 0 or parts[start - 1] not in _POINTERS:
        return None
    hits = [r for r in items if str(r["values"].get(days[0])) == said.value.isoformat()]
    return (hits[0], set(range(start - 1, found[1])), days[0]) if len(hits) == 1 else None


def _by_amount(items: list[dict[str, Any]], fields: dict[str, str],
               parts: list[str]) -> tuple[dict[str, Any], set[int], str] | None:
    amounts = [f for f, kind in fields.items() if kind == "amount"]
    for i, part in enumerate(parts):
        if not part.isdigit() or i + 1 >= len(parts) or parts[i + 1] not in DAY_UNITS:
            continue
        pointed = (i >= 2 and parts[i - 1] in _OF and parts[i - 2] in _POINTERS) or parts[i + 2:i + 3] == ["one"]
        hits = [(r, f) for r in items for f in amounts if str(r["values"].get(f)) == part]
        if pointed and len(hits) == 1:
            start = i - 2 if parts[i - 1] in _OF else i
            at = set(range(start, i + 2)) | ({i + 2} if parts[i + 2:i + 3] == ["one"] else set())
            return hits[0][0], at, hits[0][1]
    return None


def _by_order(items: list[dict[str, Any]], fields: dict[str, str],
              parts: list[str]) -> tuple[dict[str, Any], set[int], str] | None:
    for (kind, end), phrase in _ORDERS:
        found = find_phrase(parts, phrase)
        if not found:
            continue
        start, stop = found
        before = parts[max(0, start - 2):start]
        if tuple(before) == _COURTESY or not (set(before) & _BEFORE_ORDER or set(parts[stop:stop + 1]) & _ONE):
            continue
        ordered = [f for f, k in fields.items() if k == kind]
        if len(ordered) != 1:
            continue
        valued = [r for r in items if r["values"].get(ordered[0]) is not None]
        if len(valued) < 2:
            return None
        key = sorted({str(r["values"][ordered[0]]) for r in valued}, key=_order_key)
        best = key[-1] if end == "max" else key[0]
        hits = [r for r in valued if str(r["values"][ordered[0]]) == best]
        return (hits[0], set(range(start, stop)), ordered[0]) if len(hits) == 1 else None
    return None


def _order_key(value: str) -> tuple[int, str]:
    """Amounts by their number, dates (ISO) as text."""
    return (int(value), "") if value.lstrip("-").isdigit() else (0, value)
