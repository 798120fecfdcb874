"""A status said as the goal, with no verb of its own: "I need <entity> 311 cancelled", "deixa a 52 como
concluída", "mark <entity> 52 as done". The write meant is the one whose registered verification asserts that
status on its result (the manifest's `verification.assertions`: `{path: status, op: equals, value: X}`)
— data, not a table of verbs. Only when exactly one allowed write leads there for an item the message
refers to, and it does not ask anything ("a 311 está cancelada?" is a question about its state).
"""

from __future__ import annotations

from collections.abc import Iterator

from . import lexicon
from .grammar import CapabilityGrammar, one_typo, same_word
from .operations import operate
from .turns import Turn
from .understanding import Extraction, Extractor


def _goal_statuses(turn: Turn, cap: CapabilityGrammar) -> Iterator[str]:
    spec = turn.snapshot.get(cap.id, tenant=turn.tenant)
    for assertion in ((spec.verification or {}).get("assertions") or []) if spec is not None else []:
        if assertion.get("path") == "status" and assertion.get("op") == "equals":
            yield str(assertion.get("value"))


def _said_status(turn: Turn, entity: str, parts: list[str]) -> set[str]:
    """The status values of `entity` the message names word for word (any enum slot of its capabilities
    that lists them). Word for word: "cancele" is the verb, said of something else ("o <item> que manda
    cancelar a 52"), while "cancelada" is the state wanted."""
    found, typed = set(), set()
    verbs = {w for cap in turn.grammar.capabilities.values() if cap.entity == entity
             for v in cap.verbs for w in v.words}
    for cap in turn.grammar.capabilities.values():
        if cap.entity != entity:
            continue
        for slot in cap.slots:
            if slot.parse != "enum":
                continue
            for value, phrases in slot.value_phrases.items():
                if any(_exactly(parts, phrase) for phrase in phrases):
                    found.add(value)
                elif any(_mistyped(part, phrase, verbs) for phrase in phrases for part in parts):
                    typed.add(value)
    # "mark <entity> 52 as complted": one letter off one status word, when no other status is that close
    return found or (typed if len(typed) == 1 else set())


def _mistyped(part: str, phrase: tuple[str, ...], verbs: set[str]) -> bool:
    """`part` is the one-word status `phrase` typed with one letter off — and no form of a verb (the
    verb "cancela" is one letter from "cancelda" too: then it may be the verb)."""
    return (len(phrase) == 1 and part != phrase[0] and one_typo(part, phrase[0])
            and not any(same_word(part, verb) for verb in verbs))


def _exactly(parts: list[str], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return any(tuple(parts[i:i + n]) == phrase for i in range(len(parts) - n + 1))


def status_goal(turn: Turn, parts: list[str], allowed: set[str], extractor: Extractor) -> bool:
    if lexicon.asks(parts, turn.text):
        return False
    leading = [cap for cap in turn.grammar.capabilities.values() if cap.id in allowed and cap.kind == "write"
               and set(_goal_statuses(turn, cap)) & _said_status(turn, cap.entity, parts)]
    found = []
    for cap in leading:  # "cancelada" may be a status of several entities: the item said decides
        extraction = extractor.extract(cap, parts, use_context=False)
        targets = [s.name for s in cap.slots if s.from_context and s.parse == "reference"]
        if any(name in extraction.from_text for name in targets):  # "cancelled" alone names no item
            found.append((cap, extraction))
    if len(found) != 1:
        return False
    operate(turn, found[0][0], found[0][1], parts)
    return True


def status_instead(turn: Turn, cap: CapabilityGrammar, extraction: Extraction) -> bool:
    """Whether a write found by a verb like "deixa", "set" may give way to a status goal: it found none of its own
    values ("deixa a 802 como cancelada", "set 57 to cancelled") or no item of its own (then a number it read as
    its value is the item: "deixa a 52 concluída"), or only a free text that is just a status of its item ("set
    311 to approved" is no note reading "approved"). Never a write that itself leads to a status: its verb was
    said, and the status describes the item ("cancel the approved 320")."""
    if cap.kind != "write" or next(_goal_statuses(turn, cap), None) is not None:
        return False
    targets = {s.name: s.type for s in cap.slots if s.from_context and s.parse == "reference"}
    own = extraction.from_text - set(targets)
    if not extraction.from_text & set(targets) and own and all(
            (s := cap.slot(n)) is not None and s.parse == "integer" for n in own):
        return True  # "deixa a 52 concluída": 52 read as its amount is no value of it, but an item
    for name in own:
        slot, values = cap.slot(name), extraction.values.get(name) or []
        words = [w for v in values for w in lexicon.tokens(str(v.label)) if w not in lexicon.ARTICLES]
        if slot is None or slot.parse != "text" or not 0 < len(words) <= 2:
            return False
        if not any(_said_status(turn, entity, words) for entity in set(targets.values())):
            return False
    return True
