"""A read's filter no slot takes: "quantas <entidades> tem no <Lugar>?", "<entities> due next week".

A count or a list that left such words unread would answer another question: the unfiltered total, said as if
it were the answer. Two kinds are read here (hand-written: no kept library tells a filter from the rest of a
question):
- a name: the words no slot, verb or noun took, right after a preposition of place or owner and written as a
  name — a capital letter, not the message's first word, not in a message typed all in capitals ("no sistema",
  "ao todo" are no names). The capability's `parse: filter` slot takes them as typed; the API searches them as
  free text, and the answer says so ("Há 1 <noun> com “<texto>”.");
- a day, a month or a window of dates ("nos próximos 15 dias", "semana que vem", "in March").
A filter the read cannot apply (no such slot, or a date) opens the answer — "Não consigo filtrar <nouns> por
“…”; sem esse filtro: há 7 <nouns>." — never the total alone.
"""

from __future__ import annotations

import re
import unicodedata

from .dates import MONTHS, WEEKDAYS, date_spans
from .extraction import Extraction, SlotValue
from .freetext import char_spans
from .grammar import CapabilityGrammar
from .lexicon import tokens
from .turns import Turn

_BEFORE = frozenset(tokens("no na nos nas em num numa do da dos das pelo pela at in on from for of"))
# Between two capitalised words a name may hold a linking word: "Galpão de Cargas", "Port of Santos".
_LINKS = frozenset(tokens("de da do das dos e of the and"))
# "in March", "na Sexta": a day or a month is no free text the API searches — such a filter is refused.
_CALENDAR = frozenset(MONTHS) | frozenset(WEEKDAYS)
_UNIT = r"(?:dias?|semanas?|mes(?:es)?|anos?|days?|weeks?|months?|years?)"
_MONTH = "(?:" + "|".join(m for m in MONTHS if len(m) > 3) + ")"
_DAY = "(?:" + "|".join(WEEKDAYS) + ")(?:-feira)?"
_WINDOWS = re.compile(
    r"\b(?:(?:proxim|ultim)[oa]s|next|coming|last|past|within(?: the)?(?: next)?)\s+\w+\s+" + _UNIT + r"\b"
    r"|\b(?:n?est[ea]|n?ess[ea]|this|next|last|proxim[oa]|ultim[oa]|passad[oa])\s+(?:semana|mes|ano|week|month|year)\b"
    r"|\b(?:semana|mes|ano)\s+(?:que vem|passad[oa])\b"
    r"|\b(?:em|in|de|during|for)\s+" + _MONTH + r"\b"
    r"|\b(?:na|no|on|ate|until|by|for|pra|para)\s+(?:a\s+|o\s+)?" + _DAY + r"\b"
    r"|\b(?:depois de amanha|amanha|ontem|tomorrow|yesterday)\b")


def filter_said(turn: Turn, cap: CapabilityGrammar, extraction: Extraction, parts: list[str],
                taken: set[int]) -> str | None:
    """The filter the message names that no slot took, as typed, else None. `taken`: the positions of
    `parts` the verb, the entity noun and the slots consumed."""
    if cap.kind != "read" or cap.intent not in ("count", "search", "list") or turn.text.upper() == turn.text:
        return None
    spans = char_spans(turn.text, parts)
    if spans is None:
        return None
    dated = {i for start, end in date_spans(turn.text, turn.language) for i in range(start, end)}
    free = [i not in taken and i not in dated for i in range(len(parts))]
    for i in range(1, len(parts)):
        if not (free[i] and parts[i - 1] in _BEFORE and _named(turn.text, spans[i]) and len(parts[i]) > 2):
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


def filter_slot(cap: CapabilityGrammar):
    return next((s for s in cap.slots if s.parse == "filter"), None)


def text_filter(turn: Turn, cap: CapabilityGrammar, extraction: Extraction, parts: list[str],
                taken: set[int]) -> str | None:
    """Put the filter said as a name into the read's filter slot. The filter the read cannot apply (it has no
    such slot, or it is a day, a month or a window of dates) is returned: the answer says it was not applied
    (`unfiltered`) before the total — never the total said as the answer."""
    said = filter_said(turn, cap, extraction, parts, taken)
    slot = filter_slot(cap)
    if said is not None and slot is not None and not set(tokens(said)) <= _CALENDAR | _LINKS:
        extraction.values.setdefault(slot.name, [SlotValue(said, said)])
        return None
    if cap.kind != "read" or cap.intent not in ("count", "search", "list"):
        return None
    return said or date_window(turn.text)


def date_window(text: str) -> str | None:
    """A day, a month or a window of dates the message filters by ("nos próximos 15 dias", "semana que vem",
    "in March", "até sexta"), as typed; "hoje" / "today" alone is when the question is asked, no filter."""
    match = _WINDOWS.search(_folded_in_place(text))
    return text[match.start():match.end()] if match else None


def _folded_in_place(text: str) -> str:
    """The text lower-cased and without accents, character for character (positions stay the text's)."""
    out = []
    for ch in text:
        bare = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c)).lower()
        out.append(bare if len(bare) == 1 else ch.lower())
    return "".join(out)


def unfiltered(turn: Turn, cap: CapabilityGrammar, said: str) -> None:
    """Mark the read just operated: its answer opens with the filter it did not apply (hooks._message)."""
    for intent in (turn.conversation.active_intent, (turn.conversation.active_operation or {}).get("intent")):
        if isinstance(intent, dict) and intent.get("capability") == cap.id:
            intent["unfiltered"] = said
