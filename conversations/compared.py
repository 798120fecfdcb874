"""An item named only to compare with: "a mesma <campo> da 312", "the same <field> as 310", "a week before
<entity> 60", "depois da 57". That number says whose value is meant, never which item the request acts on:
"Deixa a 311 com a mesma <campo> da 312" acts on 311. A copy asked ("cria uma <entidade> igual à 310",
clone.py) is not a comparison: there the number is the source. Its positions are masked like data (request.understand)
and left out of a correction's numbers (corrections.correction_apply), so the target is the other item named or
the one in context — and a value the message gives only by comparison is asked, never guessed.
(Hand-written: a few comparison markers of two languages; no kept library reads them.)
"""

from __future__ import annotations

import re

from .clone import clone_said
from .lexicon import tokens
from .ranking import number_positions

# The verbs that ask for a new item: with a copy's word ("igual", "same") they ask for a copy.
_MAKE = frozenset(tokens("cria crie criar criem faz faca fazer nova novo new create make copy copia copie copiar clone "
                         "clona clonar duplica duplicar duplique duplicate emite emitir abre abrir open another outra"))
_UNITS = r"(?:dias?|semanas?|mes(?:es)?|days?|weeks?|months?|d)\b"
# "<marker> [up to 4 words] <link> [article] [noun] <number>", the number not followed by a unit ("depois de 3 dias"
# is an amount of time, not an item).
_COMPARED = re.compile(
    r"\b(?:(?:same|mesm[ao]s?|igual|identic[ao])\b(?:\s+\w+){0,4}?\s+"
    r"(?:as|that of|d[aoe]s?|que (?:[ao]|n[ao])|a|ao|[aà])"
    r"|before|after|antes d[aoe]s?|depois d[aoe]s?)"
    r"\s+(?:(?:the|a|o)\s+)?(?!(?:that|this|isso|disso|which|then)\b)(?:[a-z]+\s+)?(\d+)\b(?!\s+" + _UNITS + ")")


def compared_numbers(text: str) -> set[str]:
    """The numbers a message names only to compare with."""
    folded = " ".join(tokens(text))
    return {m.group(1) for m in _COMPARED.finditer(folded)}


def compared_positions(parts: list[str], text: str) -> frozenset[int]:
    """The positions in `parts` of the numbers named only to compare with — none when the message names no other
    item and asks for a copy ("faz uma igual à 310 mas com 20 dias": 310 is the copy's source)."""
    numbers = compared_numbers(text)
    at = frozenset(i for i, p in enumerate(parts) if p in numbers)
    others = [i for i, _digits, unit in number_positions(parts) if not unit and i not in at]
    copy = clone_said(parts) and any(p in _MAKE for p in parts)
    return at if at and (others or not copy) else frozenset()
