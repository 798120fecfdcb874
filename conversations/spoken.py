"""Numbers as people dictate or type them fast, read as the digits they mean before text2num reads the rest.

- English reads a three-digit number as its hundreds digit, then the rest: "three ten" (310), "three-oh-five"
  (305), "three twenty-five" (325). Two words in a row are one number only when the second is ten to ninety-nine
  (or "oh" and a digit) and no unit follows ("three ten days" stays two amounts).
- Punctuation said aloud, as dictation writes it: "registra um <item> na sessenta vírgula <descrição>" (a
  comma between the item and the value, not a decimal mark: "dois vírgula cinco" was read as a fraction before).
- "a couple of days", "a couple more days", "um par de dias": two, said as an amount of a unit (only before a
  unit: "a couple of <items>" is no amount this reads); "meia dúzia de dias", "a dozen days": six and twelve.
- A number word with one slip, as speech-to-text and fast typing leave them ("tresentos", "sinquenta",
  "cessenta"): long Portuguese number words only (seven letters or more), so no short word of the language is
  taken for one.

Hand-written: text2num (`alpha2digit`, dates.py) reads well-formed number words; it has no notion of these habits.
"""

from __future__ import annotations

import re

from rapidfuzz.distance import OSA

_DIGIT_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_DIGIT = "|".join(_DIGIT_WORDS)
_REST = rf"(?:{'|'.join(_TEENS)}|(?:{'|'.join(_TENS)})(?:[\s-](?:{_DIGIT}))?)"
_UNIT_AFTER = r"(?!\s+(?:days?|weeks?|months?|years?|hours?|more|extra|dias?|semanas?|meses|anos?)\b)"
_HUNDREDS = re.compile(rf"\b({_DIGIT})(?:-|\s+)(?:(oh)(?:-|\s+)({_DIGIT})|({_REST}))\b{_UNIT_AFTER}", re.IGNORECASE)

# Long number words of Portuguese, the only ones read through a slip.
_LONG_WORDS = ("duzentos", "trezentos", "quatrocentos", "quinhentos", "seiscentos", "setecentos", "oitocentos",
               "novecentos", "quarenta", "cinquenta", "sessenta", "setenta", "oitenta", "noventa")
_WORD = re.compile(r"\b[^\W\d_]{7,}\b")


def spoken_hundreds(text: str) -> str:
    """"<entity> three ten" → "<entity> 310", "three-oh-five" → "305"; anything else as it was."""
    def digits(match: re.Match[str]) -> str:
        rest = (match.group(3) if match.group(2) else match.group(4)).lower().replace("-", " ").split()
        return f"{_DIGIT_WORDS.index(match.group(1).lower()) + 1}{_value(rest):02d}"

    return _HUNDREDS.sub(digits, text)


def _value(words: list[str]) -> int:
    """"two" → 2, "twelve" → 12, "twenty five" → 25 (words the expression above matched)."""
    if words[0] in _DIGIT_WORDS:
        return _DIGIT_WORDS.index(words[0]) + 1
    if words[0] in _TEENS:
        return _TEENS.index(words[0]) + 10
    return (_TENS.index(words[0]) + 2) * 10 + (_value(words[1:]) if words[1:] else 0)


def number_words_mended(text: str) -> str:
    """A long Portuguese number word with one slip, written right ("a sinquenta e sete" → "a cinquenta e sete")."""
    def mend(match: re.Match[str]) -> str:
        word = match.group(0)
        if word.lower() in _LONG_WORDS:
            return word
        near = [w for w in _LONG_WORDS if OSA.distance(word.lower(), w, score_cutoff=1) <= 1]
        return near[0] if len(near) == 1 else word

    return _WORD.sub(mend, text)


_SMALL_NUMBERS = _DIGIT + r"|zero|um|uma|dois|duas|tr[eê]s|quatro|cinco|seis|sete|oito|nove"
_COMMA_SAID = re.compile(r"\s+(?:v[ií]rgula|comma)\s+(?![\d]|(?:" + _SMALL_NUMBERS + r")\b)", re.IGNORECASE)


# "não não ponto deixa quieto": a full stop said after a short answer ("ponto" is a word too: "o ponto de
# ancoragem"), or "ponto final" anywhere.
_STOP_SAID = re.compile(r"(?i)\b(n[aã]o|sim|ok|okay|isso|pronto|beleza|certo|yes|no)\s+(?:ponto|period|full stop)"
                        r"(?:\s+final)?\b|\s+ponto final\b")


def punctuation_said(text: str) -> str:
    """"… sessenta vírgula fiação exposta" → "… sessenta, fiação exposta" (a spoken fraction is read before)."""
    return _STOP_SAID.sub(lambda m: (m.group(1) or "") + ".", _COMMA_SAID.sub(", ", text))


_COUPLE = re.compile(r"\b(?:a\s+couple(?:\s+of)?|um\s+par\s+de)(?=\s+(?:more\s+|extra\s+|mais\s+)?"
                     r"(?:days?|weeks?|months?|dias|semanas|meses)\b)", re.IGNORECASE)


# "meia dúzia de dias", "a dozen days", "duas dúzias de dias": a dozen as its number, before a unit only
_DOZEN = re.compile(r"\b(?P<n>meia|uma|a|one|half\s+a|duas|two)\s+(?:d[uú]zias?|dozens?)(?:\s+(?:de|of))?"
                    r"(?=\s+(?:more\s+|extra\s+|mais\s+)?(?:days?|weeks?|dias|semanas)\b)", re.IGNORECASE)
_DOZENS = {"meia": 6, "half a": 6, "uma": 12, "a": 12, "one": 12, "duas": 24, "two": 24}


def couple_as_two(text: str) -> str:
    """"a couple of days" → "2 days", "give it a couple more days" → "give it 2 more days"; "meia dúzia de dias"
    → "6 dias", "a dozen days" → "12 days"."""
    dozens = _DOZEN.sub(lambda m: str(_DOZENS[" ".join(m.group("n").lower().split())]), text)
    return _COUPLE.sub("2", dozens)
