"""A window of dates a list or count is filtered by: "nos próximos 15 dias", "next week", "semana que vem", "this
month", "em março de 2027", "amanhã", "até sexta", "on Friday" — found as typed (`date_window`) and turned into its
first and last day (`window_days`). "hoje" / "today" alone is when the question is asked, no filter. A week runs
Monday to Sunday; "em março" without a year is the next March to come (this one while it lasts).
(Hand-written: dateparser reads one day, not a span of days.)
"""

from __future__ import annotations

import calendar
import re
import unicodedata
from datetime import date, timedelta

from .dates import MONTHS, WEEKDAYS, add_months

_UNIT = r"(?:dias?|semanas?|mes(?:es)?|days?|weeks?|months?)"
_MONTH = "(?:" + "|".join(m for m in MONTHS if len(m) > 3) + ")"
_DAY = "(?:" + "|".join(WEEKDAYS) + ")(?:-feira)?"
_SPAN = re.compile(r"\b(?:((?:proxim)[oa]s|next|coming|within(?: the)?(?: next)?)|((?:ultim)[oa]s|last|past))\s+"
                   r"(\w+)\s+(" + _UNIT + r")\b")
# "e nos próximos 25?": a number alone, ending the message, counts days ("as próximas 3 <entidades>" does not)
_SPAN_BARE = re.compile(r"\b(?:((?:proxim)[oa]s|next|coming)|((?:ultim)[oa]s|last|past))\s+(\d+)()\s*[?.!]*\s*$")
_WEEK_OR_MONTH = re.compile(r"\b(?:(n?est[ea]|n?ess[ea]|this)|(next|proxim[oa])|(last|ultim[oa]|passad[oa]))\s+"
                            r"(semana|mes|week|month)\b|\b(semana|mes)\s+(que vem|passad[oa])\b")
_IN_MONTH = re.compile(r"\b(?:em|in|de|during|for)\s+(" + _MONTH + r")\b(?:\s+(?:de\s+)?(\d{4}))?")
_BY_DAY = re.compile(r"\b(?:(ate|until|by)|na|no|on|pra|para)\s+(?:a\s+|o\s+)?(" + _DAY + r")\b")
_NEAR = re.compile(r"\b(depois de amanha|amanha|ontem|tomorrow|yesterday)\b")
_WINDOWS = (_SPAN, _SPAN_BARE, _WEEK_OR_MONTH, _IN_MONTH, _BY_DAY, _NEAR)
_SMALL = {"um": 1, "uma": 1, "one": 1, "a": 1, "dois": 2, "duas": 2, "two": 2}
_NEAR_DAYS = {"depois de amanha": 2, "amanha": 1, "ontem": -1, "tomorrow": 1, "yesterday": -1}


def date_window(text: str) -> str | None:
    """The window of dates the message names, as typed, else None."""
    folded = _folded_in_place(text)
    found = [m for pattern in _WINDOWS if (m := pattern.search(folded))]
    first = min(found, key=lambda m: m.start(), default=None)
    return text[first.start():first.end()] if first else None


def window_days(said: str, today: date) -> tuple[date, date] | None:
    """The first and last day of the window `said` names (date_window's phrase), else None."""
    folded = _folded_in_place(said)
    if (m := _SPAN.search(folded) or _SPAN_BARE.search(folded)) is not None:
        amount = int(m.group(3)) if m.group(3).isdigit() else _SMALL.get(m.group(3))
        if amount is None:
            return None
        unit = m.group(4) or "dias"
        end = (add_months(today, amount) if unit.startswith(("mes", "month"))
               else today + timedelta(days=amount * (7 if unit.startswith(("semana", "week")) else 1)))
        return (today, end) if m.group(1) else (today - (end - today), today)
    if (m := _WEEK_OR_MONTH.search(folded)) is not None:
        shift = 1 if (m.group(2) or m.group(6) == "que vem") else -1 if (m.group(3) or m.group(6)) else 0
        return _week(today, shift) if (m.group(4) or m.group(5)) in ("semana", "week") else _month(today, shift)
    if (m := _IN_MONTH.search(folded)) is not None:
        month = MONTHS[m.group(1)]
        year = int(m.group(2)) if m.group(2) else today.year + (month < today.month)
        return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])
    if (m := _BY_DAY.search(folded)) is not None:
        weekday = WEEKDAYS[m.group(2).removesuffix("-feira")]
        day = today + timedelta(days=(weekday - today.weekday()) % 7 or 7)
        return (today, day) if m.group(1) else (day, day)
    if (m := _NEAR.search(folded)) is not None:
        day = today + timedelta(days=_NEAR_DAYS[m.group(1)])
        return day, day
    return None


def _week(today: date, shift: int) -> tuple[date, date]:
    monday = today - timedelta(days=today.weekday()) + timedelta(weeks=shift)
    return monday, monday + timedelta(days=6)


def _month(today: date, shift: int) -> tuple[date, date]:
    first = add_months(today.replace(day=1), shift)
    return first, first.replace(day=calendar.monthrange(first.year, first.month)[1])


def _folded_in_place(text: str) -> str:
    """The text lower-cased and without accents, character for character (positions stay the text's)."""
    out = []
    for ch in text:
        bare = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c)).lower()
        out.append(bare if len(bare) == 1 else ch.lower())
    return "".join(out)
