"""Dates said in a message, in pt-BR and English, resolved against today (the server's clock).

"para o dia 12", "daqui a duas semanas", "em 3 dias", "amanhã", "next Friday", "12/03",
"2026-12-12", "15 de janeiro", "January 15": a slot whose manifest `parse` is `date` gets the ISO
date, and the words it came from are consumed so that nothing else reads them (a day number is
never an entity number). Shifts of a date already known ("adiar em 3 dias", "two days earlier")
are `shift_in`: the caller applies them to the entity's current value.

Written by hand, not with dateparser: on 2026-12-01 dateparser 1.2 returned nothing for "daqui a
10 dias", "para o dia 12", "daqui a duas semanas" and "próxima sexta", and its `search_dates`
(needed to find a date inside a sentence) took ~90 ms per message. Number words go through
text2num (`alpha2digit`), the kept library for them.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

from django.utils import timezone
from text_to_num import alpha2digit

from knowledge.text import fold
from tenancy import clock

WEEKDAYS = {
    "segunda": 0, "terca": 1, "quarta": 2, "quinta": 3, "sexta": 4, "sabado": 5, "domingo": 6,
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6,
}
MONTHS = {
    "janeiro": 1, "fevereiro": 2, "marco": 3, "abril": 4, "maio": 5, "junho": 6, "julho": 7, "agosto": 8,
    "setembro": 9, "outubro": 10, "novembro": 11, "dezembro": 12,
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12,
}
UNIT_DAYS = {"dia": 1, "dias": 1, "day": 1, "days": 1, "semana": 7, "semanas": 7, "week": 7, "weeks": 7}
MONTH_UNITS = {"mes", "meses", "month", "months"}

_N = r"(\d{1,3})"
_UNIT = r"(dias?|semanas?|mes|meses|days?|weeks?|months?)"
_WEEKDAY = "(" + "|".join(WEEKDAYS) + ")"
_MONTH = "(" + "|".join(MONTHS) + ")"
RULES: list[tuple[str, re.Pattern[str]]] = [
    ("iso", re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")),
    ("slash", re.compile(r"\b(\d{1,2})/(\d{1,2})(?:/(\d{2,4}))?\b")),
    ("day_month", re.compile(r"\b(\d{1,2}) de " + _MONTH + r"(?: de (\d{4}))?\b")),
    ("month_day", re.compile(r"\b" + _MONTH + r" (\d{1,2})(?:st|nd|rd|th)?(?:,? (\d{4}))?\b")),
    ("day_of", re.compile(r"\b(?:dia (\d{1,2})|the (\d{1,2})(?:st|nd|rd|th))\b")),
    ("ahead", re.compile(r"\b(?:daqui a|daqui|dentro de|em|in|within|after) " + _N + " " + _UNIT + r"\b")),
    ("from_now", re.compile(r"\b" + _N + " " + _UNIT + r" (?:from now|from today|a partir de hoje)\b")),
    ("after_tomorrow", re.compile(r"\b(?:depois de amanha|the day after tomorrow|day after tomorrow)\b")),
    ("tomorrow", re.compile(r"\b(?:amanha|tomorrow)\b")),
    ("today", re.compile(r"\b(?:hoje|today)\b")),
    ("next_week", re.compile(r"\b(?:semana que vem|proxima semana|next week)\b")),
    ("weekday", re.compile(r"\b(?:(?:na |no |nesta |neste |next |this |on |a |o )?(?:proxima |proximo )?)"
                           + _WEEKDAY + r"(?:-feira| feira)?(?: que vem)?\b")),
]
SHIFT = re.compile(r"\b(?:(adiar|adia|adie|postergar|posterga|empurrar|empurra|empurre|atrasar|atrasa|atrase|"
                   r"postpone|push|delay|antecipar|antecipa|antecipe|adiantar|adianta|adiante|bring)\w*"
                   r"(?: \w+){0,4}? (?:em |por |by )?" + _N + " " + _UNIT + r"|" + _N + " " + _UNIT +
                   r" (mais tarde|depois|later|antes|mais cedo|earlier|sooner))\b")
_EARLIER = ("antecip", "adiant", "bring", "antes", "mais cedo", "earlier", "sooner")


@dataclass(frozen=True)
class SaidDate:
    value: date
    words: str  # the folded words it came from (consumed: no other slot reads them)


_WEEKDAY_WORD = re.compile(r"\b(segunda|terca|quarta|quinta|sexta)\b")
_MASKED = re.compile(r"\bwd(segunda|terca|quarta|quinta|sexta)\b")


def _numbers(text: str, language: str) -> str:
    """Number words as digits ("duas semanas" → "2 semanas"); Portuguese weekdays are ordinals to
    text2num ("sexta" → "6ª"), so they are masked around the call."""
    lang = "en" if language.startswith("en") else "pt"
    masked = _WEEKDAY_WORD.sub(r"wd\1", text)
    try:
        converted = alpha2digit(masked, lang, threshold=0)
    except Exception:  # noqa: BLE001 - text2num refuses odd input; the digits already there still count
        converted = masked
    return _MASKED.sub(r"\1", converted)


def _add_months(day: date, months: int) -> date:
    month = day.month - 1 + months
    year, month = day.year + month // 12, month % 12 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def _next_day_of_month(today: date, day: int) -> date | None:
    for months in range(0, 3):
        candidate = _add_months(today.replace(day=1), months)
        if day <= calendar.monthrange(candidate.year, candidate.month)[1]:
            found = candidate.replace(day=day)
            if found >= today:
                return found
    return None


def _year(raw: str | None, today: date, month: int, day: int) -> int:
    if raw:
        year = int(raw)
        return year + 2000 if year < 100 else year
    # A date without a year is the next one to come.
    return today.year if (month, day) >= (today.month, today.day) else today.year + 1


def _resolve(kind: str, match: re.Match[str], today: date, language: str) -> date | None:
    g = match.groups()
    if kind == "iso":
        return date(int(g[0]), int(g[1]), int(g[2]))
    if kind == "slash":
        day, month = (int(g[1]), int(g[0])) if language.startswith("en") else (int(g[0]), int(g[1]))
        return date(_year(g[2], today, month, day), month, day)
    if kind == "day_month":
        month, day = MONTHS[g[1]], int(g[0])
        return date(_year(g[2], today, month, day), month, day)
    if kind == "month_day":
        month, day = MONTHS[g[0]], int(g[1])
        return date(_year(g[2], today, month, day), month, day)
    if kind == "day_of":
        return _next_day_of_month(today, int(g[0] or g[1]))
    if kind in ("ahead", "from_now"):
        amount, unit = int(g[0]), g[1]
        return _add_months(today, amount) if unit in MONTH_UNITS else today + timedelta(days=amount * UNIT_DAYS[unit])
    if kind == "weekday":
        ahead = (WEEKDAYS[g[0]] - today.weekday()) % 7 or 7
        return today + timedelta(days=ahead)
    return today + timedelta(days={"today": 0, "tomorrow": 1, "after_tomorrow": 2, "next_week": 7}[kind])


def date_in(text: str, today: date, language: str) -> SaidDate | None:
    """The first date the message says, resolved; None when it says none (or an impossible one)."""
    folded = _numbers(fold(text), language)
    found: list[tuple[int, SaidDate]] = []
    for kind, pattern in RULES:
        for match in pattern.finditer(folded):
            if SHIFT.search(folded) and kind in ("ahead", "from_now"):
                continue
            try:
                value = _resolve(kind, match, today, language)
            except (ValueError, KeyError):
                value = None
            if value is not None:
                found.append((match.start(), SaidDate(value, match.group(0))))
    return min(found, key=lambda f: f[0])[1] if found else None


def shift_in(text: str, language: str) -> tuple[int, str] | None:
    """(signed days, words) of a shift of a known date: "adiar em 3 dias" → 3, "two days earlier" → -2."""
    folded = _numbers(fold(text), language)
    match = SHIFT.search(folded)
    if match is None:
        return None
    verb, amount, unit, amount2, unit2, direction = match.groups()
    amount, unit = (amount, unit) if amount else (amount2, unit2)
    days = int(amount) * (30 if unit in MONTH_UNITS else UNIT_DAYS[unit])
    earlier = (verb or direction or "").startswith(_EARLIER)
    return (-days if earlier else days), match.group(0)


def today() -> date:
    """Today by the server's clock (the one test control moves), as the SST API counts it."""
    return timezone.localdate(clock.now())


def date_label(value: date, language: str) -> str:
    return value.isoformat() if language.startswith("en") else value.strftime("%d/%m/%Y")
