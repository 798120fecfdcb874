"""A list filter said as a comparison of an amount: "quantas <entidades> têm <campo> maior que 20 dias?", "<nouns>
com 30 dias ou mais", "which <entities> have more than 20 days left?", "at least 30 days".

The entity's search has no such filter (the manifest's input schema takes none), so the search runs with the
other filters and the answer keeps only the items whose amount compares as said (summary.read_answer, from the
intent's `compare`), then counts or lists them, and says the comparison ("Há 5 <nouns> com <campo> acima de 20
dias."). Never the unfiltered total said as the answer: that would answer another question. The amount is the
entity's one field said in a unit (picked.orderable); an entity with none or several is not compared here.
Hand-written: a closed list of comparison words in each language (no kept library reads them).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from . import messages
from .extraction import Extraction
from .flow import operated_mark
from .grammar import CapabilityGrammar
from .lexicon import COUNT_WORDS, DAY_UNITS, tokens
from .operations import operate
from .picked import orderable
from .plurals import plural_types
from .question import field_label
from .turns import Turn

# The words before the amount, by what they compare: "more than 20 days", "mais de 20 dias", "at least 30 days".
_BEFORE = {
    "gt": "mais de|mais que|mais do que|maior que|maior do que|acima de|superior a|more than|over|greater than|"
          "longer than|above|bigger than|higher than",
    "lt": "menos de|menos que|menos do que|menor que|menor do que|abaixo de|inferior a|less than|under|fewer than|"
          "shorter than|below|lower than",
    "ge": "pelo menos|no minimo|ao menos|at least|no less than|a minimum of|minimo de|maior ou igual a|"
          "greater than or equal to|a partir de",
    "le": "no maximo|at most|no more than|a maximum of|maximo de|up to|ate|menor ou igual a|less than or equal to",
}
# The words after it: "30 dias ou mais", "20 days or more".
_AFTER = {"ge": "ou mais|or more|or longer|ou acima|or above|pra cima|para cima",
          "le": "ou menos|or less|or fewer|or shorter|ou abaixo|or below"}
_PHRASES = sorted(((op, tuple(tokens(p))) for op, said in _BEFORE.items() for p in said.split("|")),
                  key=lambda item: -len(item[1]))
_TAILS = [(op, tuple(tokens(p))) for op, said in _AFTER.items() for p in said.split("|")]
_LINKS = frozenset(tokens("de com of with for por"))  # "com <campo> de mais de 20 dias", "valid for over 20 days"


def comparison_said(parts: list[str]) -> tuple[str, int, set[int]] | None:
    """(the comparison — gt, lt, ge, le —, the amount, the positions of the words that say it), else None."""
    for i, part in enumerate(parts):
        if not part.isdigit() or i + 1 >= len(parts) or parts[i + 1] not in DAY_UNITS:
            continue
        for op, phrase in _PHRASES:
            start = i - len(phrase)
            if start >= 0 and tuple(parts[start:i]) == phrase:
                return op, int(part), set(range(start, i + 2))
        for op, phrase in _TAILS:
            if tuple(parts[i + 2:i + 2 + len(phrase)]) == phrase:
                return op, int(part), set(range(i, i + 2 + len(phrase)))
    return None


def compared_filter(turn: Turn, cap: CapabilityGrammar, extraction: Extraction, parts: list[str],
                    allowed: set[str]) -> bool:
    """Run a count or list filtered by a compared amount as the entity's search, the comparison applied to its
    answer; False when the message compares no amount (or the entity has no one amount field, or no search)."""
    if cap.kind != "read" or cap.intent not in ("count", "search", "list"):
        return False
    said = comparison_said(parts)
    amounts = [f for f, kind in orderable(turn.grammar, cap.entity).items() if kind == "amount"]
    search = cap if cap.intent != "count" else next(
        (c for c in turn.grammar.capabilities.values() if c.id in allowed and c.kind == "read"
         and c.entity == cap.entity and c.intent == "search"), None)
    if said is None or len(amounts) != 1 or search is None:
        return False
    op, amount, at = said
    # the amount is the comparison's, never a number another filter took ("<nouns> 20": no item number 20)
    values = {name: vals for name, vals in extraction.values.items() if search.slot(name)
              and not any(str(v.value) == str(amount) for v in vals)}
    operate(turn, search, replace(extraction, values=values, used=extraction.used | at), parts)
    unit = next((s.unit for c in turn.grammar.capabilities.values() if c.entity == cap.entity for s in c.slots
                 if s.field == amounts[0] and s.unit), "")
    where = turn.say(f"read.compared_{op}", field=field_label(turn, amounts[0]),
                     value=f"{amount} {messages.term(unit, turn.language)}".strip())
    operated_mark(turn, search.id, "compare", {"field": amounts[0], "op": op, "value": amount,
                                               "count": cap.intent == "count", "where": where})
    return True


def compared_read(turn: Turn, parts: list[str], allowed: set[str], extractor: Any, asks_to_write: bool) -> bool:
    """"quais <entidades> estão com <campo> de 30 dias ou mais?", "list <entities> valid for at least 45 days": a
    comparison said of an entity named in the plural is a list of them (a count when counted) — before its <campo>
    is read as a question about one item. Not when a write is asked ("aumenta as de menos de 20 dias")."""
    if asks_to_write or comparison_said(parts) is None:
        return False
    intent = "count" if any(p in COUNT_WORDS for p in parts) else "search"
    for entity in sorted(plural_types(turn.grammar, parts)):
        read = next((c for c in turn.grammar.capabilities.values() if c.id in allowed and c.kind == "read"
                     and c.entity == entity and c.intent == intent), None)
        if read is not None and compared_filter(turn, read, extractor.extract(read, parts), parts, allowed):
            return True
    return False


def comparison_unread(turn: Turn, cap: CapabilityGrammar, parts: list[str]) -> str | None:
    """The comparison's words as said when the read could not apply it (the entity has no one amount field): the
    answer opens with the filter it did not apply, never the total said as the answer; else None."""
    said = comparison_said(parts) if cap.kind == "read" and cap.intent in ("count", "search", "list") else None
    if said is None:
        return None
    at = sorted(said[2])
    return " ".join(parts[at[0]:at[-1] + 1])
