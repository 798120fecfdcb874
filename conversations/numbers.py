"""Numbers in a message: which one names an entity, which one is a value, and which are not valid.

Tokens lose signs and decimal marks ("-5" → "5", "2,5" → "2", "5"), so a value must be checked
against the raw text before it is used: a number is never changed silently (issue: "-5 dias" had
become 5). `raw_numbers` aligns every digit token with the number it came from; a negative, a
fraction or a value outside the slot's schema range is `invalid` and gets a clarification.

Hand-written: text2num reads numbers in words (see dates.py), but no kept library aligns folded
tokens with the raw text's numerals.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .increments import MORE_AFTER
from .lexicon import DAY_UNITS, tokens

# A numeral as typed: an optional sign (only at a word start, so ISO dates keep their dashes),
# digits, an optional decimal part ("2,5", "2.5").
_NUMERAL = re.compile(r"(?P<sign>(?:(?<=\s)|(?<=^)|(?<=[(:]))[-−]\s?)?(?P<int>\d+)(?P<frac>[.,]\d+)?")
_DIGITS = re.compile(r"\d+")
# Words that introduce the value rather than the entity: "para 40", "com 20 dias", "to 40".
VALUE_MARKERS = frozenset({"para", "pra", "pro", "com", "em", "por", "to", "for", "at", "by", "de"})
_OF_THE = frozenset({"da", "do", "na", "no"})
# "make <person> the <field> on 311", "add <x> on 52": the item a change is made on — never an amount.
_ON = frozenset({"on", "onto"})


def on_an_item(parts: list[str], at: int) -> bool:
    """The bare number at `at` follows "on": it names the item something is done on, not a quantity."""
    return at > 0 and parts[at - 1] in _ON and not (at + 1 < len(parts) and parts[at + 1] in DAY_UNITS)


@dataclass(frozen=True)
class Numeral:
    text: str  # as typed, e.g. "-5" or "2,5"
    value: float
    whole: bool

    @property
    def valid_count(self) -> bool:
        return self.whole and self.value >= 0


def raw_numbers(text: str) -> list[Numeral]:
    """Every numeral in the raw text, one entry per digit group it covers ("2,5" → two entries)."""
    out: list[Numeral] = []
    for match in _NUMERAL.finditer(text):
        sign = -1 if match.group("sign") else 1
        frac = match.group("frac")
        value = sign * float(match.group("int") + ("." + frac[1:] if frac else ""))
        numeral = Numeral(match.group(0).replace(" ", ""), value, whole=not frac)
        out.extend([numeral] * len(_DIGITS.findall(match.group(0))))
    return out


def numerals_of(parts: list[str], text: str) -> dict[int, Numeral]:
    """Token index → the numeral it came from. `parts` may be the tail of the message (a correction's
    remainder), so tokens and numerals are aligned from the end."""
    digit_indices = [i for i, p in enumerate(parts) if p.isdigit()]
    numerals = raw_numbers(text)
    if len(numerals) < len(digit_indices):
        return {}
    tail = numerals[len(numerals) - len(digit_indices):]
    return dict(zip(digit_indices, tail, strict=True))


def value_problem(numeral: Numeral | None, digits: str, schema: Mapping[str, Any] | None) -> str | None:
    """Why a number cannot be used as it is ("negative", "fraction", "range"), or None."""
    if numeral is not None and numeral.value < 0:
        return "negative"
    if numeral is not None and not numeral.whole:
        return "fraction"
    value = int(digits)
    schema = schema or {}
    low, high = schema.get("minimum"), schema.get("maximum")
    if (low is not None and value < low) or (high is not None and value > high):
        return "range"
    return None


_WEEKS = re.compile(r"\b(?:(?P<n>\d+|two|dois|duas)(?P<more>\s+(?:more|extra|additional))?"
                    r"|(?P<by>(?:by|por|em|mais|more|for|de|com|another|outra|knock|take|shave|trim|add|tira|corta"
                    r"|soma|acrescenta)\s+)"
                    r"(?:a|one|uma)(?:\s+(?:more|extra|additional))?"
                    r"|(?P<by_one>another|outra|mais uma|one more|one extra))\s+"
                    r"(?P<unit>sema?nas?|we?eks?|quinzenas?|fortnights?)\b(?!\s+(?:que vem|from|a partir))",
                    re.IGNORECASE)
# Days in one unit a week-like word counts ("uma quinzena" is fifteen days in pt-BR, a fortnight fourteen).
_UNIT_DAYS = (("quinzena", 15), ("fortnight", 14), ("", 7))


def weeks_as_days(text: str) -> str:
    """"extend 311 by a week", "mais 2 semanas", "duas quinzenas", "two more weeks": weeks (and fortnights) said as
    the days every day field counts in ("by 7 days", "mais 14 dias"); "next week", "a semana que vem" and "in a week"
    stay dates."""
    def days(match: re.Match[str]) -> str:
        n = int(match.group("n")) if (match.group("n") or "x").isdigit() else 2 if match.group("n") else 1
        word = match.group("unit").lower()
        unit = "dias" if word.startswith(("semana", "semna", "quinzena")) else "days"
        by = match.group("by") or (match.group("by_one") + " " if match.group("by_one") else "")
        more = match.group("more") or ""  # "two more weeks": "14 more days"
        lead = by.lower().strip()
        if lead in ("one more", "one extra"):  # "one more week": "7 more days"
            by, more = "", " more"
        elif lead == "outra":  # "outra semana": "mais 7 dias"
            by = "mais "
        return f"{by}{next(d for w, d in _UNIT_DAYS if word.startswith(w)) * n}{more} {unit}"
    def by_one(match: re.Match[str]) -> str:
        english = match.group(2).lower().startswith(("w", "f"))
        return f"{match.group(1)} {'by a' if english else 'em uma'} {match.group(2)}"
    return _FEW_DAYS.sub(_few_days, _WEEKS.sub(days, _ITEM_THEN_ONE.sub(by_one, months_as_days(text))))


# "<campo> de 2 meses", "<field> for a month", "mais um mês": an amount of months, as the 30 days a month counts
# for in a day field (the proposal then says "60 dias": never "2" read as days). A date said in months stays a
# date, counted by the calendar (dates.py): "daqui a um mês", "in 2 months", "um mês depois", "next month".
# (numbers from three on are digits by now: dates.numbers_as_digits runs first)
_MONTHS = re.compile(r"(?i)\b(?P<n>\d+|um|uma|one|an?|dois|duas|two)\s+(?P<unit>m[eê]s|meses|months?)\b"
                     r"(?!\s+(?:que vem|from|a partir|depois|after|later|antes|before|ago|atr[aá]s))")
_DATE_LEADS = re.compile(r"(?i)\b(?:daqui(?:\s+a)?|in|within|dentro\s+de|ap[oó]s|after|h[aá])\s*$")
_FEW = {"um": 1, "uma": 1, "one": 1, "a": 1, "an": 1, "dois": 2, "duas": 2, "two": 2}


def months_as_days(text: str) -> str:
    def days(match: re.Match[str]) -> str:
        if _DATE_LEADS.search(text[:match.start()]):
            return match.group(0)
        said = match.group("n").lower()
        n = int(said) if said.isdigit() else _FEW[said]
        english = match.group("unit").lower().startswith("month")
        return f"{30 * n} {'days' if english else 'dias'}"
    return _MONTHS.sub(days, text)


# Units no day field counts in: a number said with one ("48 horas", "3 shifts", "20%") is asked about, never read
# as that many days.
_OTHER_UNITS = frozenset(tokens("hora horas hour hours hrs minuto minutos minute minutes min turno turnos shift "
                                "shifts plantao plantoes ano anos year years percent porcento pct"))


def other_unit_after(parts: list[str], at: int, text: str) -> str | None:
    """The unit said right after the number at `at` when no day field counts in it ("48 horas"), else None."""
    following = parts[at + 1:at + 3]
    if following[:1] and following[0] in _OTHER_UNITS:
        return f"{parts[at]} {following[0]}"
    if following == ["por", "cento"] or re.search(rf"(?<![\d.,]){parts[at]}\s*%", text):
        return f"{parts[at]}%"
    return None


# "dois dias antes disso", "só um dia", "by one day": one or two days in words (numbers_as_digits leaves words
# below three: "um"/"a" is an article elsewhere) — as digits where the amount is plainly one ("só", "by")
_FEW_DAYS = re.compile(r"(?i)\b(?:(?P<two>dois|two)|(?P<lead>s[oó]|just|only|apenas|mais|more|by|em|por)\s+"
                       r"(?:um|one|a))\s+(?P<unit>dias?|days?)\b")


def _few_days(match: re.Match[str]) -> str:
    lead = f"{match.group('lead')} " if match.group("lead") else ""
    return f"{lead}{2 if match.group('two') else 1} {match.group('unit')}"


# "estica a 310 uma semana", "push 62 a week": one unit right after the item's number is an amount ("by a week"),
# unless what follows makes it a date ("uma semana depois", "a week from now").
_ITEM_THEN_ONE = re.compile(r"(?i)\b(\d+)\s+(?:uma|a|one)\s+(sema?nas?|we?eks?|quinzenas?|fortnights?)\b"
                            r"(?!\s+(?:que vem|from|a partir|depois|after|later|antes|before|ago|atr[aá]s|out))")


def numbers_in(parts: list[str]) -> list[tuple[int, str, bool]]:
    """(index, digits, followed by a day unit — "3 dias", "3 more days") for each number in the message."""
    def unit_after(i: int) -> bool:
        following = parts[i + 1:i + 3]
        return bool(following) and (following[0] in DAY_UNITS or (following[0] in MORE_AFTER and following[1:2] != []
                                                                  and following[1] in DAY_UNITS))
    return [(i, p, unit_after(i)) for i, p in enumerate(parts) if p.isdigit()]



def reference_number(parts: list[str], used: set[int], *, takes_value: bool,
                     named_at: list[int], after: int | None = None) -> tuple[int, str] | None:
    """The number that names an entity, when the capability also takes a numeric value.

    A number right after the entity's noun names it (`named_at`: indices preceded by a synonym).
    Of several bare numbers with no value to take, the first after the verb.
    Otherwise, when the message has a value with a unit ("20 dias") or a value after a marker
    ("para 40"), the other bare number names the entity: "deixa a 456 com 20 dias".
    """
    numbers = [(i, d, unit) for i, d, unit in numbers_in(parts) if i not in used]
    for i, digits, unit in numbers:
        if i in named_at and not unit:
            return i, digits
    bare = [(i, d) for i, d, unit in numbers if not unit]
    if not takes_value:
        # "vi a 311 ontem, agora cancela a 312": of several, the one after the verb (`after`: where it ends) is its
        # object; one said before it is context ("a 311, cancela ela" has no other)
        later = [(i, d) for i, d in bare if after is not None and i >= after]
        return later[0] if later and len(bare) > 1 else (bare[0] if bare else None)
    # "muda o <campo> da 310", "tira 5 dias da 312": "da"/"do" (of + article) before a number names an
    # item — a quantity takes no article ("<campo> de 45 dias")
    # ("the <field> of 311", "change <field> of 312" too; "a <field> of 45" is a quantity)
    owned = [(i, d) for i, d in bare if (i > 0 and parts[i - 1] in _OF_THE) or on_an_item(parts, i)
             or (i > 1 and parts[i - 1] == "of" and "a" not in parts[max(0, i - 3):i - 1]
                 and "an" not in parts[max(0, i - 3):i - 1])]
    if len(owned) == 1:
        return owned[0]
    if len(bare) == 1 and len(bare) < len(numbers):  # "dá mais 10 dias pra 310": the value has its unit
        return bare[0]
    values = [i for i, _, unit in numbers if unit or (i > 0 and parts[i - 1] in VALUE_MARKERS)]
    others = [(i, d) for i, d in bare if i not in values]
    if values and others:
        return others[0]
    if len(bare) >= 2 and not values:
        return bare[0]
    return None
