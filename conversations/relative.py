"""Relative changes of a number: "mais 10 dias", "reduza em 5", "dobra", "add 3 more", "halve it".

The words are the closed class of the two languages (like lexicon.py); which field they change is
the conversation's: the value on the pending confirmation, or the field last discussed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rapidfuzz.distance import OSA

from .increments import ADD, LESS_AFTER, MORE_AFTER, SUB, increment_sign
from .lexicon import ARTICLES, DAY_UNITS, FILLER, tokens

_ADD, _SUB = ADD, SUB
_FACTORS = {"dobra": 2, "dobre": 2, "dobrar": 2, "dobro": 2, "duplica": 2, "duplique": 2, "duplicar": 2, "double": 2,
            "twice": 2, "triplica": 3, "triplique": 3, "triplicar": 3, "triplo": 3, "triple": 3, "thrice": 3,
            "quadruplica": 4, "quadruplo": 4, "quadruple": 4, "metade": 0.5, "halve": 0.5, "half": 0.5}
# "make it 5 days longer", "deixa com 3 dias a menos": a comparative after the amount (increments.py).
_MAKE = frozenset(tokens("make makes give deixa deixe deixar faz faca torna torne com da"))
_ABSOLUTE = frozenset(tokens("para pra pro to"))  # "aumenta para 50" sets the value: not relative
_TIMES = frozenset(tokens("times vezes"))  # "3 times as long": a factor said as a number
_NOISE = ARTICLES | FILLER | DAY_UNITS | frozenset(tokens("em de it by isso that ela ele outros outras more mais "
                                                          "o a os as vezes times off another outro outros to"))
# "make it twice as long", "coloca o dobro", "reduz pela metade", "cut it in half": the frame of a factor.
_NOISE |= frozenset(tokens("as long longer much big pela pelo por in up cut corta corte reduz reduza reduce divide "
                           "coloca poe bota put set aumenta increase"))
_NOISE |= frozenset(tokens("do que than this"))  # "10 dias a mais do que isso", "5 more than that"
_NOISE |= frozenset(tokens("disso dele dela of"))  # "metade disso", "half of that"
_NOISE |= frozenset(tokens("cima top on"))  # "põe mais 7 dias em cima disso", "7 more days on top of that"
# "2 dias antes disso", "3 days later": a date moved from the one proposed (relative_turn.py)
_LATER = frozenset(tokens("depois later after"))
_SOONER = frozenset(tokens("antes before earlier sooner cedo"))


_MOST_WORDS = 8  # "põe 10 dias a mais do que isso": every word but the amount is a relative word


_NOT_A_SLIP = frozenset({"sobre", "sobra", "cobre", "cobra"})  # words of their own one letter from a factor


def factor_of(word: str) -> float | None:
    """The factor a word says, also with one slip in a word of five letters or more ("doubble", "tripple"):
    the whole message is read as a relative change only when every other word is one too."""
    if word in _FACTORS:
        return _FACTORS[word]
    if len(word) < 5 or word in _NOT_A_SLIP:  # ("sobre a <entidade> 312" is no "dobre" typed with a slip)
        return None
    return next((f for w, f in _FACTORS.items() if len(w) >= 5 and OSA.distance(word, w, score_cutoff=1) <= 1), None)


@dataclass(frozen=True)
class Change:
    op: str  # add | sub | mul
    amount: float

    def apply(self, value: int) -> float:
        if self.op == "add":
            return value + self.amount
        if self.op == "sub":
            return value - self.amount
        return value * self.amount


def _later(parts: list[str], at: int) -> int:
    """+1 / -1 when the amount at `at` is said with its unit then "later"/"earlier" ("2 dias antes disso")."""
    after = parts[at + 2:at + 3] if at + 1 < len(parts) and parts[at + 1] in DAY_UNITS else []
    return 1 if after and after[0] in _LATER else -1 if after and after[0] in _SOONER else 0


def relative_change(parts: list[str]) -> Change | None:
    """The change a short message asks for, or None when it is not only a relative change."""
    numbers = [p for p in parts if p.isdigit()]
    first = next((i for i, p in enumerate(parts) if p.isdigit()), len(parts))
    if not parts or len(parts) > _MOST_WORDS or (numbers and any(p in _ABSOLUTE for p in parts[:first])):
        return None  # ("aumenta para 50" sets a value)
    factor = next((f for p in parts if (f := factor_of(p)) is not None), None)
    if len(numbers) == 1 and parts[first + 1:first + 2] and parts[first + 1] in _TIMES:  # "3 times as long"
        factor, numbers = int(numbers[0]), []
    if factor is not None and not numbers:
        op, amount = "mul", float(factor)
    elif len(numbers) == 1 and parts[0] in _ADD | _SUB:
        op, amount = ("add" if parts[0] in _ADD else "sub"), float(numbers[0])
    elif len(numbers) == 1 and (sign := increment_sign(parts, parts.index(numbers[0])) or _later(parts, first)):
        op, amount = ("add" if sign > 0 else "sub"), float(numbers[0])
    else:
        return None
    leftover = [p for p in parts if not p.isdigit() and factor_of(p) is None and p not in _ADD | _SUB | _NOISE | _MAKE
                | MORE_AFTER | LESS_AFTER | _ABSOLUTE | _LATER | _SOONER]  # ("aumenta pro dobro": no number set)
    return None if leftover else Change(op, amount)


# "50, não 40", "coloca 50 em vez de 40", "make it 50 instead of 40", "em vez de 40, 50": a value said
# against the one proposed. The words between are closed-class; the numbers are the message's only ones.
_UNIT = r"(?:\s*(?:dias?|days?|semanas?|weeks?))?"
_INSTEAD = r"(?:nao|not|e nao|and not|em vez de|ao inves de|no lugar de|instead of|rather than)"
_SWAP_AFTER = re.compile(rf"\b(\d+){_UNIT}\s*,?\s*{_INSTEAD}\s+(?:(?:o|a|os|as|do|da|dos|das|the)\s+)?(\d+)\b")
_SWAP_BEFORE = re.compile(rf"\b(?:em vez de|ao inves de|no lugar de|instead of|rather than)\s+(\d+){_UNIT}\s*,?\s*"
                          rf"(?:(?:e|coloca|poe|bota|faz|make it|put|use|usa)\s+)?(\d+)\b")


def value_swap(folded: str) -> tuple[int, int] | None:
    """(new, old) when the folded message says one number in place of another, and says no other number."""
    numbers = re.findall(r"\d+", folded)
    match = _SWAP_AFTER.search(folded)
    pair = (match.group(1), match.group(2)) if match else None
    if pair is None and (match := _SWAP_BEFORE.search(folded)):
        pair = (match.group(2), match.group(1))
    if pair is None or len(numbers) != 2 or pair[0] == pair[1]:
        return None
    return int(pair[0]), int(pair[1])


# "2 days, not 2 weeks", "são 5 dias de adiamento, não 3", "not a week, 3 days": an amount of time said against
# the one the proposal was built from, with its unit — the proposal moves by their difference (relative_turn.py),
# whether it was set to the amount or by it.
_AMOUNT = r"(\d+)\s*(dias?|days?|semanas?|weeks?)?"
_AMOUNT_AFTER = re.compile(rf"\b{_AMOUNT}(?:\s+de\s+\w+)?\s*,?\s*(?:e\s+|and\s+)?(?:nao|not)\s+{_AMOUNT}\b")
_AMOUNT_BEFORE = re.compile(rf"\b(?:nao|not)\s+{_AMOUNT}\s*,?\s*(?:(?:e|but|mas|sim|sao|it s|its)\s+)?{_AMOUNT}\b")
_DAYS = {"dia": 1, "dias": 1, "day": 1, "days": 1, "semana": 7, "semanas": 7, "week": 7, "weeks": 7}


def amount_swap(folded: str) -> tuple[int, int] | None:
    """(new, old) in days when the folded message says one amount of time in place of another (a unit on at least
    one side), and says no other number."""
    match = _AMOUNT_AFTER.search(folded)
    said = (match.groups() if match else None)
    if said is None and (match := _AMOUNT_BEFORE.search(folded)):
        said = match.group(3, 4, 1, 2)
    if said is None or len(re.findall(r"\d+", folded)) != 2 or not (said[1] or said[3]):
        return None
    new_unit, old_unit = said[1] or said[3], said[3] or said[1]
    new, old = int(said[0]) * _DAYS[new_unit], int(said[2]) * _DAYS[old_unit]
    return (new, old) if new != old else None
