"""A read's filter no slot takes: "quantas <entidades> tem no <Lugar>?", "<entities> due next week".

A count or a list that left such words unread would answer another question: the unfiltered total, said as if
it were the answer. Two kinds are read here (hand-written: no kept library tells a filter from the rest of a
question):
- a name: the words no slot, verb or noun took, right after a preposition of place or owner and written as a
  name — a capital letter, not the message's first word, not in a message typed all in capitals ("no sistema",
  "ao todo" are no names). The capability's `parse: filter` slot takes them as typed; the API searches them as
  free text, and the answer says so ("Há 1 <noun> com “<texto>”.");
- a day, a month or a window of dates ("nos próximos 15 dias", "semana que vem", "in March", date_windows.py):
  the read's `window_from` / `window_to` slots take its first and last day, and the answer says them ("Há 3
  <nouns> entre 06/12/2026 e 21/12/2026.").
A filter the read cannot apply (no such slot) opens the answer — "Não consigo filtrar <nouns> por
“…”; sem esse filtro: há 7 <nouns>." — never the total alone.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .attributes import named_by_attribute
from .date_windows import date_window, window_days
from .dates import MONTHS, WEEKDAYS, date_label, date_spans, today
from .extraction import Extraction, SlotValue
from .freetext import char_spans
from .grammar import CapabilityGrammar
from .lexicon import tokens
from .turns import Turn

_BEFORE = frozenset(tokens("no na nos nas em num numa do da dos das pelo pela pra pro para at in on from for of"))
_ARTICLE = frozenset(tokens("the o a os as"))
# Between two capitalised words a name may hold a linking word: "Galpão de Cargas", "Port of Santos".
_LINKS = frozenset(tokens("de da do das dos e of the and"))
# "in March", "na Sexta": a day or a month is no free text the API searches — such a filter is refused.
_CALENDAR = frozenset(MONTHS) | frozenset(WEEKDAYS)


def filter_said(turn: Turn, parts: list[str], taken: set[int]) -> str | None:
    """The name the message filters by that no slot took, as typed, else None. `taken`: the positions of
    `parts` the verb, the entity noun and the slots consumed."""
    if turn.text.upper() == turn.text:
        return None
    spans = char_spans(turn.text, parts)
    if spans is None:
        return None
    dated = {i for start, end in date_spans(turn.text, turn.language) for i in range(start, end)}
    free = [i not in taken and i not in dated for i in range(len(parts))]
    for i in range(1, len(parts)):
        after = parts[i - 1] in _BEFORE or (i > 1 and parts[i - 1] in _ARTICLE and parts[i - 2] in _BEFORE)
        if not (free[i] and after and _named(turn.text, spans[i]) and len(parts[i]) > 2):  # "at (the) <Lugar>"
            continue
        end = i
        while end + 1 < len(parts) and free[end + 1] and _joined(turn.text, spans[end], spans[end + 1]):
            if _named(turn.text, spans[end + 1]) or parts[end + 1].isdigit():  # "Forno 2"
                end += 1
            elif (parts[end + 1] in _LINKS and end + 2 < len(parts) and free[end + 2]
                  and _named(turn.text, spans[end + 2])):
                end += 2
            else:
                break
        return turn.text[spans[i][0]:spans[end][1]]
    return None


def _named(text: str, span: tuple[int, int]) -> bool:
    return text[span[0]].isupper()


def _joined(text: str, one: tuple[int, int], two: tuple[int, int]) -> bool:
    """Only spaces between two words: a comma or a question mark ends a name."""
    return not text[one[1]:two[0]].strip()


def text_filter(turn: Turn, cap: CapabilityGrammar, extraction: Extraction, parts: list[str],
                verb: tuple[int, int] | None, skip: set[str]) -> str | None:
    """Put the filters the message names into the read's filter slots: a name into its `filter` slot, a window
    of dates into its `window_from` / `window_to` slots. A filter the read cannot apply is returned: the answer
    says it was not applied (`unfiltered`) before the total — never the total said as the answer."""
    if cap.kind != "read" or cap.intent not in ("count", "search", "list"):
        return None
    unread: list[str] = []
    # the positions the verb, the capability's own words and the slots consumed
    taken = extraction.used | set(range(*verb) if verb else ()) | {i for i, p in enumerate(parts) if p in skip}
    said = filter_said(turn, parts, taken) or _known_name(turn, cap, parts, taken)
    calendar_only = said is not None and set(tokens(said)) <= _CALENDAR | _LINKS  # "in March": a window, below
    slot = _slot(cap, "filter")
    if said is not None and not calendar_only:
        if slot is not None:
            extraction.values.setdefault(slot.name, [SlotValue(said, said)])
        else:
            unread.append(said)
    window = date_window(_clause_of(turn.text, parts, verb[0] if verb else None))
    days = window_days(window, today()) if window else None
    first, last = _slot(cap, "window_from"), _slot(cap, "window_to")
    if days is not None and first is not None and last is not None:  # "nos próximos 15 dias": the read's own filter
        for one, day in zip((first, last), days, strict=True):
            extraction.values.setdefault(one.name, [SlotValue(day.isoformat(), date_label(day, turn.language))])
    elif window or calendar_only:
        unread.append(window or said)
    return unread[0] if unread else None


def _known_name(turn: Turn, cap: CapabilityGrammar, parts: list[str], taken: set[int]) -> str | None:
    """A value of one of the entity's own fields that name it (the manifest's `named_by`, not a related item's
    name: those have slots of their own) said after a preposition of place in any case — "quantas <entidades> no
    <lugar em minúsculas>?" —, as typed; else None."""
    slot = next((s for c in turn.grammar.capabilities.values() for s in c.slots
                 if s.parse == "reference" and s.type == cap.entity and s.resolver and s.named_by), None)
    own = tuple(p for p in (slot.named_by if slot else ()) if "." not in p)
    spans = char_spans(turn.text, parts) if own else None
    if not spans:
        return None
    _items, at = named_by_attribute(turn.reader, replace(slot, named_by=own), parts, used=taken)
    first = min(at) if at else 0
    if not first or not (parts[first - 1] in _BEFORE or (first > 1 and parts[first - 1] in _ARTICLE
                                                           and parts[first - 2] in _BEFORE)):
        return None
    return turn.text[spans[first][0]:spans[max(at)][1]]


def _clause_of(text: str, parts: list[str], at: int | None) -> str:
    """The clause of the request's verb (word `at` of `parts`): "vou passar lá semana que vem, me lista as
    <entidades> deles" asks for the list, and the week is when the user goes — not a filter of it."""
    spans = char_spans(text, parts) if at is not None else None
    if not spans or at >= len(spans):
        return text
    where = spans[at][0]
    starts = [0] + [m.end() for m in _CLAUSE_END.finditer(text) if m.end() <= where]
    end = next((m.start() for m in _CLAUSE_END.finditer(text) if m.start() >= where), len(text))
    return text[starts[-1]:end]


_CLAUSE_END = re.compile(r"[,;.!?]\s")


def _slot(cap: CapabilityGrammar, parse: str):
    return next((s for s in cap.slots if s.parse == parse), None)
