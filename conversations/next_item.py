"""The next item by its date, asked with no list on screen: "when is the next <entity> of <owner>?", "qual a
próxima <entidade>?", "which <entity> is coming up next?".

The entity's list read (the registry's read that lists it with no required input), filtered by what the message
says (the normal extraction of that read's slots) and by the state a "next" item is in (the enum value whose
synonyms say "upcoming" or "next": manifest data), gives the items; the one whose date (the entity's one date
field, picked.orderable) is the soonest from today is answered with the field asked — its date when none is.
Only a question: "reschedule the next one" is a request read as before. Nothing here knows an entity.
(Hand-written: a closed list of "next" words; no kept library picks an item by a relative order.)
"""

from __future__ import annotations

from typing import Any

from . import lexicon
from .dates import today
from .picked import orderable
from .plurals import plural_types
from .question import field_answer, field_asked
from .references import NEXT
from .turns import Turn
from .understanding import Extractor

_COMING = (("coming", "up"), ("coming", "next"), ("vem", "agora"))


def next_item(turn: Turn, parts: list[str], allowed: set[str], extractor: Extractor) -> bool:
    """Answer about the next item of the type the question names (module docstring); False when it asks no such."""
    if not lexicon.asks(parts, turn.text):
        return False
    for type_, (start, end) in turn.grammar.types_named_in(parts).items():
        said_next = set(parts[max(0, start - 2):start]) & NEXT or any(
            tuple(parts[i:i + 2]) in _COMING for i in range(end, min(len(parts), end + 4)))
        dates = [f for f, kind in orderable(turn.grammar, type_).items() if kind == "date"]
        listing = turn.reader.list_capability(type_)
        if not said_next or len(dates) != 1 or listing is None or listing not in allowed \
                or type_ in plural_types(turn.grammar, parts):  # ("which <entities> are coming up?" lists them)
            continue
        item = _soonest(turn, listing, parts, extractor, dates[0])
        show = next((c for c in turn.grammar.capabilities.values() if c.kind == "read" and c.intent == "show"
                     and c.entity == type_), None)
        slot = next((s for s in show.slots if s.parse == "reference" and s.type == type_), None) if show else None
        body = turn.reader.entity(type_, item.get("id")) if item is not None and slot is not None else None
        if body is None:
            return False
        field = field_asked(show.fields, parts, body) or dates[0]
        field_answer(turn, slot, body, field if field in body else dates[0], parts)
        return True
    return False


def _soonest(turn: Turn, listing: str, parts: list[str], extractor: Extractor, day: str) -> dict[str, Any] | None:
    """The listed item whose `day` is the soonest from today, among those the message's filters keep."""
    cap = turn.grammar.capabilities[listing]
    said = extractor.extract(cap, parts)
    params = {(s.field or s.name): said.values[s.name][0].value for s in cap.slots
              if s.name in said.from_text and said.values.get(s.name)}
    for slot in cap.slots:  # the state a next item is in: the enum value said "upcoming" / "next"
        upcoming = [v for v, phrases in slot.value_phrases.items() if any(set(p) & NEXT for p in phrases)]
        if len(upcoming) == 1 and (slot.field or slot.name) not in params:
            params[slot.field or slot.name] = upcoming[0]
    rows = [r for r in turn.reader.children(listing, params) if str(r.get(day) or "") >= today().isoformat()]
    rows.sort(key=lambda r: str(r[day]))
    if not rows or (len(rows) > 1 and rows[0][day] == rows[1][day]):
        return None  # none ahead, or two on the same day: no one "next"
    return rows[0]
