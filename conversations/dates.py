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
from difflib import SequenceMatcher

from django.utils import timezone
from text_to_num import alpha2digit

from knowledge.text import fold, words
from tenancy import clock

from .spoken import couple_as_two, number_words_mended, punctuation_said, spoken_hundreds

WEEKDAYS = {
    "segunda": 0, "terca": 1, "quarta": 2, "quinta": 3, "sexta": 4, "sabado": 5, "domingo": 6,
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6,
}
MONTHS = {
    "janeiro": 1, "fevereiro": 2, "marco": 3, "abril": 4, "maio": 5, "junho": 6, "julho": 7, "agosto": 8,
    "setembro": 9, "outubro": 10, "novembro": 11, "dezembro": 12,
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12,
    # English abbreviations ("Feb 3rd", "3rd of Sept"); not pt-BR's: "set" and "out" are words of their own
    "jan": 1, "feb": 2, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}
UNIT_DAYS = {"dia": 1, "dias": 1, "day": 1, "days": 1, "semana": 7, "semanas": 7, "week": 7, "weeks": 7,
             "quinzena": 15, "quinzenas": 15, "fortnight": 14, "fortnights": 14}
MONTH_UNITS = {"mes", "meses", "month", "months"}

_N = r"(\d{1,3})"
# "in a fortnight", "a week from today", "daqui a um par de dias": an amount said as an article or a pair.
_AMOUNT = r"(\d{1,3}|an?|one|uma?|(?:a )?couple(?: of)?|(?:um|1) par de)"
# "daqui uns 25 dias", "in about 10 days": an amount said roughly is the amount
_ROUGHLY = r"(?:(?:uns|umas|cerca de|about|around|roughly|some) )?"
_UNIT = r"(dias?|semanas?|quinzenas?|fortnights?|mes|meses|days?|weeks?|months?)"
_WEEKDAY = "(" + "|".join(WEEKDAYS) + ")"
_MONTH = "(" + "|".join(MONTHS) + ")"
RULES: list[tuple[str, re.Pattern[str]]] = [
    ("iso", re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")),
    ("slash", re.compile(r"\b(\d{1,2})/(\d{1,2})(?:/(\d{2,4}))?\b")),
    # "12 de março de 2027", "the 3rd of February 2027", "3rd Feb, 2027" (a connector or an ordinal: "10 may" is none)
    ("day_month", re.compile(r"\b(?:the )?(\d{1,2})(?:(?:st|nd|rd|th)(?: of)?| of| de) " + _MONTH
                             + r"(?:(?: de|,)? (\d{4}))?\b")),
    ("month_day", re.compile(r"\b" + _MONTH + r" (\d{1,2})(?:st|nd|rd|th)?(?:,? (\d{4}))?\b")),
    ("day_of", re.compile(r"\b(?:dia (\d{1,2})|the (\d{1,2})(?:st|nd|rd|th))\b")),
    ("ahead", re.compile(r"\b(?:daqui a|daqui|dentro de|em|in|within|after) " + _ROUGHLY + _AMOUNT + " " + _UNIT
                         + r"\b")),
    ("from_now", re.compile(r"\b" + _ROUGHLY + _AMOUNT + " " + _UNIT
                            + r" (?:from now|from today|a partir de hoje|out|today)\b")),
    ("after_tomorrow", re.compile(r"\b(?:depois de amanha|(?:the )?day after tom+or+ow)\b")),
    ("tomorrow", re.compile(r"\b(?:amanha|tom+or+ow|tmrw|tmw)\b")),  # (tomorow, tommorow)
    ("today", re.compile(r"\b(?:hoje|today)\b")),
    # "end of next week", "fim da semana que vem": the last working day of that week (its Friday)
    ("end_of_next_week", re.compile(r"\b(?:(?:the )?end of next week|(?:no |o )?(?:fim|final) da (?:semana que vem"
                                    r"|proxima semana))\b")),
    ("next_week", re.compile(r"\b(?:semana que vem|proxima semana|next week)\b")),
    ("last_weekday", re.compile(r"\b(?:last " + _WEEKDAY + r"|(?:na |no |a |o )?" + _WEEKDAY
                                + r"(?:-feira| feira)? passad[ao])\b")),
    # "the Thursday after next", "na quinta depois da próxima": a week after the next one
    ("weekday_after_next", re.compile(r"\b(?:the |a |o |na |no )?" + _WEEKDAY
                                      + r"(?:-feira| feira)? (?:after next|depois da proxima|depois do proximo)\b")),
    # British: "Friday week" (a week after the next Friday), "a week on Monday", "a fortnight on Friday"
    ("weekday_week", re.compile(r"\b(?:on )?" + _WEEKDAY + r" week\b")),
    ("unit_on_weekday", re.compile(r"\b" + _AMOUNT + " " + _UNIT + r" on " + _WEEKDAY + r"\b")),
    ("weekday", re.compile(r"\b(?:(?:na |no |nesta |neste |next |this |on |a |o )?(?:proxima |proximo )?)"
                           + _WEEKDAY + r"(?:-feira| feira)?(?: que vem)?\b")),
]
# A shift of a date already known: "N units" said "by"/"em"/"por" or bare, or "N units later/earlier",
# never after a from-now marker ("daqui a 20 dias", "in 2 weeks" are dates from today). Whether the
# message moves a known date is the caller's (a capability that changes an existing entity's date).
SHIFT = re.compile(r"\b(?:(?:em|por|by) )?(?:mais )?" + _N + " (?:(?:more|mais|extra) )?" + _UNIT
                   + r"(?: (mais tarde|depois|later|after|antes|before|mais cedo|earlier|sooner))?\b")
_FROM_NOW_BEFORE = re.compile(r"\b(?:daqui a|daqui|dentro de|in|within|after|para|pra|to)\s*$")
_FROM_NOW_AFTER = ("from now", "from today", "a partir de hoje", "out", "today")  # "a fortnight out/today"
_ONE_UNIT = re.compile(r"\b(?:a|an|one|uma|um)\s+(dia|semana|quinzena|mes|day|week|fortnight|month)\b")
# "em -3 dias", "by 2.5 days": a shift amount that is not a whole number of units (the digits the
# shift rule sees are only what follows the sign or the decimal mark).
_SIGNED_OR_FRACTION = re.compile(r"(?:^|\s)(?:(-|\u2212)\s*\d+|\d+[.,](\d+)) " + _UNIT + r"\b")
_EARLIER = re.compile(r"\b(?:antecip\w*|adiant\w*|prepon\w*|bring|brought|forward|antes|mais cedo|earlier|sooner|cedo|"
                      r"(?:pull|move|bump)(?:s|ed|ing)? (?:\w+ ){0,2}?(?:in|up))\b")  # "pull 52 in", "move it up"


@dataclass(frozen=True)
class SaidDate:
    value: date
    words: str  # the folded words it came from (consumed: no other slot reads them)


# Masked from text2num: Portuguese weekdays, and an English ordinal that picks an item ("the first one", "the
# second ones") — no day of the month ("move the first one to the 12th" moves to the 12th).
_WEEKDAY_WORD = re.compile(r"\b(segunda|terca|quarta|quinta|sexta|(?:first|second|third|fourth|fifth)(?= ones?\b))\b")
_MASKED = re.compile(r"\bwd(segunda|terca|quarta|quinta|sexta|first|second|third|fourth|fifth)\b")


def _numbers(text: str, language: str, threshold: int = 0) -> str:
    """Number words as digits ("duas semanas" → "2 semanas"); Portuguese weekdays are ordinals to
    text2num ("sexta" → "6ª"), so they are masked around the call."""
    lang = "en" if language.startswith("en") else "pt"
    masked = _WEEKDAY_WORD.sub(r"wd\1", text)
    try:
        converted = alpha2digit(masked, lang, threshold=threshold)
    except Exception:  # noqa: BLE001 - text2num refuses odd input; the digits already there still count
        converted = masked
    return _MASKED.sub(r"\1", converted)


def add_months(day: date, months: int) -> date:
    month = day.month - 1 + months
    year, month = day.year + month // 12, month % 12 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def _next_day_of_month(today: date, day: int) -> date | None:
    for months in range(0, 3):
        candidate = add_months(today.replace(day=1), months)
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
        return _later(today, g[0], g[1])
    if kind == "last_weekday":
        behind = (today.weekday() - WEEKDAYS[g[0] or g[1]]) % 7 or 7
        return today - timedelta(days=behind)
    if kind in ("weekday_after_next", "weekday_week"):  # "the Friday after next", "Friday week"
        return _next_weekday(today, g[0]) + timedelta(days=7)
    if kind == "unit_on_weekday":  # "a week on Monday": that long after the next Monday
        return _later(_next_weekday(today, g[2]), g[0], g[1])
    if kind == "weekday":
        return _next_weekday(today, g[0])
    if kind == "end_of_next_week":  # the next Monday's week, its Friday
        return today + timedelta(days=7 - today.weekday() + _FRIDAY)
    return today + timedelta(days={"today": 0, "tomorrow": 1, "after_tomorrow": 2, "next_week": 7}[kind])


_FRIDAY = 4  # the last working day of a week (date.weekday)


def _next_weekday(today: date, weekday: str) -> date:
    return today + timedelta(days=(WEEKDAYS[weekday] - today.weekday()) % 7 or 7)


def _later(day: date, amount: str, unit: str) -> date:
    """`day` plus an amount said as digits, an article ("a week") or a pair ("a couple of days") of `unit`."""
    n = int(amount) if amount.isdigit() else 2 if "couple" in amount or "par" in amount else 1
    return add_months(day, n) if unit in MONTH_UNITS else day + timedelta(days=n * UNIT_DAYS[unit])


def date_in(text: str, today: date, language: str, *, moving: bool = False) -> SaidDate | None:
    """The first date the message says, resolved; None when it says none (or an impossible one).

    `moving`: the message changes a date the entity already has, so "em 3 dias" / "by 3 days" is a
    shift of it (shift_in), not a date from today."""
    folded = _numbers(fold(text), language)
    shifted = moving and shift_in(text, language) is not None
    found: list[tuple[int, int, SaidDate, int]] = []
    impossible: list[tuple[int, int]] = []
    for rank, (kind, pattern) in enumerate(RULES):
        for match in pattern.finditer(folded):
            if shifted and kind == "ahead" and match.group(0).startswith(("em ", "by ")):
                continue
            try:
                value = _resolve(kind, match, today, language)
            except (ValueError, KeyError):
                impossible.append(match.span())  # "31/02": no such day
                continue
            if value is not None:
                found.append((match.start(), match.end(), SaidDate(value, match.group(0)), rank))
    # A part of an impossible date ("dia 31" of "dia 31/02") is no date of its own: never another day silently.
    found = [f for f in found if not any(f[0] < end and start < f[1] for start, end in impossible)]
    # Of two readings of the same words, the more precise rule's (RULES' order: "28/02" over "dia 28").
    found = [f for f in found if not any(g[0] < f[1] and f[0] < g[1] and g[3] < f[3] for g in found)]
    return min(found, key=lambda f: f[0])[2] if found else None


_A_WORD = re.compile(r"[^\W_]+", re.UNICODE)  # knowledge.text.words' word


def date_from_word(text: str, word: int, today: date, language: str, *, moving: bool = False) -> SaidDate | None:
    """The first date said from the message's `word`-th word on (`words(fold(text))`), None when none is: "a que era
    daqui 10 dias, passa ela pra daqui 21 dias" — after its verb, the date the write asks for; the one before it
    told which item."""
    folded = fold(text)
    starts = [m.start() for m in _A_WORD.finditer(folded.casefold())]
    return date_in(folded[starts[word]:], today, language, moving=moving) if 0 < word < len(starts) else None


def date_spans(text: str, language: str | None = None) -> list[tuple[int, int]]:
    """Where the message says dates, as [start, end) word positions of `words(fold(text))` — "book it
    at Oficina 4 in two weeks" → [(7, 10)] — for every language when `language` is None. Number words
    become digits before the rules run ("two" → "2"), so positions are mapped back word by word."""
    folded = fold(text)
    original = words(folded)
    spans: set[tuple[int, int]] = set()
    for lang in ([language] if language else ["pt-BR", "en"]):
        converted = _numbers(folded, lang)
        back = _positions_back(original, words(converted))
        for _kind, pattern in RULES:
            for match in pattern.finditer(converted):
                first, last = len(words(converted[:match.start()])), len(words(converted[:match.end()]))
                mapped = [back[j] for j in range(first, min(last, len(back)))]
                if mapped:
                    spans.add((min(lo for lo, _ in mapped), max(hi for _, hi in mapped)))
    return sorted(spans)


def _positions_back(original: list[str], converted: list[str]) -> list[tuple[int, int]]:
    """For each converted word, the original words it came from ("2" ← "vinte e cinco")."""
    back: list[tuple[int, int]] = [(0, 0)] * len(converted)
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, original, converted, autojunk=False).get_opcodes():
        for j in range(j1, j2):
            back[j] = (i1 + j - j1, i1 + j - j1 + 1) if tag == "equal" else (i1, i2)
    return back


def shift_in(text: str, language: str) -> tuple[int, str] | None:
    """(signed days, words) of a shift of a known date: "adiar em 3 dias" → 3, "two days earlier" → -2,
    "push it back by a week" → 7, "bring it forward a week" → -7."""
    folded = _NEXT_DAY.sub(_next_day, _ONE_UNIT.sub(r"1 \1", _numbers(fold(text), language)))
    for match in SHIFT.finditer(folded):
        amount, unit, direction = match.groups()
        # ("pull 52 in by a week": a shift said with its own "by" follows no "in" of a date from now; "pra 1 dia
        # antes", "to 3 days after its date": a direction said makes it a shift, whatever stands before it)
        led = match.group(0).startswith(("by ", "em ", "por ")) or direction is not None
        if (not led and _FROM_NOW_BEFORE.search(folded[:match.start()])) or folded[match.end():].lstrip().startswith(
                _FROM_NOW_AFTER):
            continue
        days = int(amount) * (30 if unit in MONTH_UNITS else UNIT_DAYS[unit])
        earlier = direction is not None and direction.startswith(("antes", "before", "mais cedo", "earlier", "sooner"))
        return (-days if earlier or _EARLIER.search(folded) else days), match.group(0)
    return None


# "the day before", "o dia anterior", "na véspera", "the day after", "o dia seguinte": a day from the item's own date
_NEXT_DAY = re.compile(r"\b(?:the day (before|after)|dia (anterior|seguinte)|(?:n?a )?(vespera))\b")


def _next_day(match: re.Match[str]) -> str:
    earlier = (match.group(1) or match.group(2) or match.group(3)) in ("before", "anterior", "vespera")
    if match.group(1) is not None:
        return f"1 day {'before' if earlier else 'after'}"
    return f"1 dia {'antes' if earlier else 'depois'}"


def numbers_as_digits(text: str, language: str) -> str:
    """"a <entidade> trezentos e dez", "sessenta dias": numbers of three or more in words, as digits
    (one and two stay words: "um <item>" is an article, not a quantity)."""
    spoken = couple_as_two(spoken_hundreds(number_words_mended(punctuation_said(_spoken_fractions(text, language)))))
    converted = _numbers(spoken, language, threshold=3)
    # a message in one language may say its numbers in the other ("assign <pessoa> as … for fifty seven")
    converted = _numbers(converted, "pt" if language.startswith("en") else "en", threshold=3)
    converted = text if _ORDINAL.search(converted) else converted
    # "twelve and a half days", "10 e meio": a fraction, said so — never the whole number alone
    converted = _ZERO.sub("0", converted)  # "pra zero", "ops, zero": a value (out of range), never no number
    converted = _FROM_NOW_MINUS.sub(_minus, converted)  # "daqui menos dois dias": a negative amount, asked about
    converted = _MINUS_FROM_NOW.sub(_minus, converted)  # "to minus 4 days from today": the same, said after
    converted = _NUMBER_OWNS.sub(r"\1", converted)  # "double 311's <campo>": 311's is 311 (no stray "s" word)
    return _AND_A_HALF.sub(r"\1.5", _UNIT_AND_A_HALF.sub(_unit_and_a_half, converted))


_ZERO = re.compile(r"\bzero\b", re.IGNORECASE)
# "daqui menos dois dias", "in minus 3 days": a from-now amount said negative — never the amount without its sign
_FROM_NOW_MINUS = re.compile(r"(?i)\b(daqui a|daqui|in|within)\s+(?:menos|minus)\s+([^\W_]+)")
_MINUS_FROM_NOW = re.compile(r"(?i)\b(to|for|para|pra|pro)\s+(?:menos|minus)\s+([^\W_]+)"
                             r"(?=\s+(?:days?|dias?|weeks?|semanas?)\s+(?:from|a partir|depois|after))")


def _minus(match: re.Match[str]) -> str:
    for digits in (match.group(2), *(alpha2digit(match.group(2), lang, threshold=0) for lang in ("pt", "en"))):
        if digits.isdigit():
            return f"{match.group(1)} -{digits}"
    return match.group(0)


_NUMBER_OWNS = re.compile(r"(\d)['’]s\b")


# "uma semana e meia", "a week and a half", "2 dias e meio": the half after the unit — never the whole alone
_UNIT_AND_A_HALF = re.compile(r"\b(\d+|[^\W\d_]+) (dias?|semanas?|m[eê]s(?:es)?|days?|weeks?|months?) "
                              r"(?:and a half|e meia|e meio)\b", re.IGNORECASE)


def _unit_and_a_half(match: re.Match[str]) -> str:
    """In days, as a value is checked: "um mês e meio" is 45 dias, "uma semana e meia" 10.5 dias (no whole number)."""
    unit = fold(match.group(2))
    per = 30 if unit.startswith(("m", "mo")) else 7 if unit.startswith(("s", "w")) else 1
    whole = _whole_said(match.group(1))  # ("dois dias e meio": a small number in words too)
    if whole is None:
        return match.group(0)
    days = (whole + 0.5) * per
    shown = str(int(days)) if days == int(days) else str(days)
    return f"{shown} {'days' if unit.startswith(('day', 'week', 'month')) else 'dias'}"


def _whole_said(word: str) -> int | None:
    if word.isdigit():
        return int(word)
    if fold(word) in ("uma", "um", "a", "an", "one"):
        return 1
    digits = next((d for lang in ("pt", "en") if (d := alpha2digit(word, lang, threshold=0)).isdigit()), None)
    return int(digits) if digits is not None else None


_AND_A_HALF = re.compile(r"\b(\d+)\s+(?:and a half|e meio|e meia)\b", re.IGNORECASE)
# "dois vírgula cinco", "two point five", "dois e meio" (dictated): a fraction in words, small numbers too —
# the whole number alone would be a value silently changed
_SPOKEN_FRACTION = re.compile(r"\b([^\W\d_]+|\d+)\s+(?:(and a half|e mei[oa])|(?:v[ií]rgula|ponto|point)\s+"
                              r"([^\W\d_]+|\d+))\b", re.IGNORECASE)


def _spoken_fractions(text: str, language: str) -> str:
    def digits(match: re.Match[str]) -> str:
        whole = _numbers(match.group(1), language)
        part = "5" if match.group(2) else _numbers(match.group(3), language)
        return f"{whole}.{part}" if whole.isdigit() and part.isdigit() else match.group(0)

    return _SPOKEN_FRACTION.sub(digits, text)


_ORDINAL = re.compile(r"\d+(?:ª|º|st|nd|rd|th)\b")


def shift_said_wrong(text: str) -> tuple[str, str] | None:
    """("negative" or "fraction", the amount as typed: "-2 dias") when the message shifts a date so, else None."""
    match = _SIGNED_OR_FRACTION.search(fold(text))
    if match is None:
        return None
    return ("negative" if match.group(1) else "fraction"), match.group(0).strip()


def today() -> date:
    """Today by the server's clock (the one test control moves), as the SST API counts it."""
    return timezone.localdate(clock.now())


def date_label(value: date, language: str) -> str:
    return value.isoformat() if language.startswith("en") else value.strftime("%d/%m/%Y")
