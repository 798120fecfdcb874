"""A list filter said negated: "quantas <entidades> não estão canceladas?", "<entities> that aren't
approved". The read's filter takes one value and has no "not" (the manifest's input schema), so the
entity's search runs without that filter and the answer leaves out the items that have the value
(summary.read_answer, from the intent's `except`), then counts or lists the rest. Never the filter
read as said without its "não": that would answer the opposite question.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .flow import operated_mark
from .grammar import CapabilityGrammar, SlotSpec
from .lexicon import tokens
from .operations import operate
from .turns import Turn
from .understanding import Extraction

_EXCLUDING = frozenset(tokens("exceto excluindo tirando except excluding"))  # ("exceto as <valor>")
_NEGATIONS = frozenset(tokens("nao not nem never nunca isnt arent wasnt werent dont doesnt")) | _EXCLUDING
# Between the negation and the value only a copula or a relative word: "não estão", "aren't yet".
_BETWEEN = frozenset(tokens("estao esta estejam esteja sao seja sejam foram foi ficaram estiverem t is are was were be "
                            "been being yet ainda mais that which que"))
_ARTICLES = frozenset(tokens("as os the"))  # only after an excluding word: "não, as <valor>" answers, then says it
_WINDOW = 3


def negated_value(grammar: Any, slot: SlotSpec, parts: list[str]) -> str | None:
    """The enum value of `slot` the message names right after a negation, else None."""
    said = grammar.enum_phrase(slot, parts)
    if said is None:
        return None
    value, (start, _end) = said
    for back in range(1, _WINDOW + 1):
        at = start - back
        if at > 0 and parts[at] in _ARTICLES and parts[at - 1] in _EXCLUDING:
            continue
        if at < 0 or (parts[at] not in _NEGATIONS and parts[at] not in _BETWEEN):
            return None
        if parts[at] in _NEGATIONS or (parts[at] == "t" and at and parts[at - 1].endswith("n")):
            return value
    return None


def negated_filter(turn: Turn, cap: CapabilityGrammar, extraction: Extraction, parts: list[str],
                   allowed: set[str]) -> bool:
    """Run a count or list with a negated filter as the search without it, the value left out of the
    answer; False when the message negates no filter (or the entity has no search to run)."""
    if cap.kind != "read" or cap.intent not in ("count", "search", "list"):
        return False
    negated = [(slot, value) for slot in cap.slots if slot.parse == "enum" and slot.name in extraction.values
               and (value := negated_value(turn.grammar, slot, parts)) is not None]
    search = next((c for c in turn.grammar.capabilities.values() if c.id in allowed and c.kind == "read"
                   and c.entity == cap.entity and c.intent == "search"), None)
    if len(negated) != 1 or search is None or search.slot(negated[0][0].name) is None:
        return False
    slot, value = negated[0]
    values = {name: vals for name, vals in extraction.values.items() if name != slot.name and search.slot(name)}
    operate(turn, search, replace(extraction, values=values), parts)
    # The answer leaves these out (hooks → summary.read_answer reads the operation's intent).
    operated_mark(turn, search.id, "except", {"field": slot.field, "value": value, "count": cap.intent == "count"})
    return True
