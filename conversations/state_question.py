"""Yes/no questions about an entity's state: "a <entidade> 54 foi <estado>?", "is <entity> 312 still
<state>?". Answered from the entity's data, read now: yes or no,
and the state it is in.

A state question is a question ("?" or a question word) with a state verb ("foi", "está", "is",
"has been" — the closed class below) and a value of one of the entity's enum fields (the manifest's
`value_synonyms` of a slot filling that field). Nothing here names an entity or a state.
"""

from __future__ import annotations

from typing import Any

from . import lexicon
from .grammar import CapabilityGrammar, SlotSpec
from .question import field_answer
from .state import situation_for
from .turns import Turn
from .understanding import Extractor

STATE_VERBS = frozenset(lexicon.tokens("foi foram esta estao ta tao ja ainda continua segue ficou fica virou "
                                        "is are was were has have been still already got become became"))


def state_question(turn: Turn, parts: list[str]) -> bool:
    asks = lexicon.asks(parts, turn.text) or _said_as_state(turn, parts)
    parts = lexicon.without_or_not(parts)
    if not asks or not any(p in STATE_VERBS for p in parts):
        return False
    if any(p in lexicon.OPEN_QUESTION_WORDS for p in parts) or _which(parts):  # "when is …?", "em que dia …?"
        return False
    if lexicon.asks_to_act(parts):  # "<it> was carried out this morning; could you mark it as <state>?": a request
        return False
    for cap in turn.grammar.capabilities.values():
        slot = next((s for s in cap.slots if s.parse == "reference"), None)
        if cap.kind != "read" or cap.intent != "show" or slot is None or not turn.reader.spec(cap.id):
            continue
        extractor = Extractor(grammar=turn.grammar, reader=turn.reader, situation=situation_for(turn.conversation),
                              text=turn.text, language=turn.language)
        value = (extractor.extract(cap, parts).values.get(slot.name) or [None])[0]
        body = turn.reader.entity(slot.type, value.value) if value is not None else None
        asked = _value_asked(turn, cap.entity, parts, body or {})
        if body is None or asked is None:
            continue
        owner, enum, named = asked
        if named is None:  # "ainda tá valendo?", "is it still on?": no state named — the one it is in, said
            field_answer(turn, slot, body, enum.field, parts)
            return True
        actual = str(body.get(enum.field))
        template = "answer.state_yes" if actual == named else "answer.state_no"
        field_answer(turn, slot, body, enum.field, parts, template=template,
                            extra={"state": enum.value_label(actual, turn.language)})
        return True
    return False


# "tá", "está", "foi", "is": the forms that say a state, not "fica"/"virou" (which can be asked for: "fica aprovada")
_COPULAS = frozenset(lexicon.tokens("ta esta estao tao foi foram is are was were"))


def _said_as_state(turn: Turn, parts: list[str]) -> bool:
    """"a 320 tá aprovada já", "is 52 done": a short message that names an item, then a state after "tá"/"is", the
    "?" left out. Nobody orders a write by saying the item is in a state, so it is read as the question it is typed
    as. Only the item before the copula (its number, its noun, a pointing word: a verb there is a request, "cancela
    a 60, o <lugar> foi desativado") and at most two words after it ("tá, agora cancela ela" goes on to a request;
    "is to be cancelled" asks for it)."""
    at = next((i for i, p in enumerate(parts) if p in _COPULAS), None)
    if at is None or len(parts) > 8 or "be" in parts[at + 1:]:
        return False
    if at == 0:  # "is <entity> 320 <state> already": asked the English way, the item after the copula
        nouns = {i for a, b in turn.grammar.types_named_in(parts).values() for i in range(a, b)}
        return len([p for i, p in enumerate(parts[1:], start=1) if not (
            p.isdigit() or p in lexicon.ARTICLES or p in lexicon.POINTING or p in _ASIDE or i in nouns)]) <= 1
    nouns = {i for a, b in turn.grammar.types_named_in(parts[:at]).values() for i in range(a, b)}
    if any(not (p.isdigit() or p in lexicon.ARTICLES or p in lexicon.POINTING or p in _ASIDE or i in nouns)
           for i, p in enumerate(parts[:at])):
        return False
    return len([p for p in parts[at + 1:] if p not in lexicon.ARTICLES and p not in _ASIDE]) <= 2


_ASIDE = frozenset(lexicon.tokens("ja ainda mesmo still already yet aqui here"))  # ("essa aqui tá …")


_BEFORE_WHICH = frozenset(lexicon.tokens("em de da do para pra por com a o ate desde no na"))


def _which(parts: list[str]) -> bool:
    """"… foi feita em que dia?", "por que inspetor …": "que" asking which one (a noun right after it), not the
    "que" of "será que a 54 foi …?" (an article or a verb after it)."""
    return any(p == "que" and (i == 0 or parts[i - 1] in _BEFORE_WHICH) and i + 1 < len(parts)
               and parts[i + 1] not in lexicon.ARTICLES and parts[i + 1] not in STATE_VERBS
               for i, p in enumerate(parts))


def _value_asked(turn: Turn, entity: str, parts: list[str],
                 body: dict[str, Any]) -> tuple[CapabilityGrammar, SlotSpec, str | None] | None:
    """The enum slot of `entity` whose field the entity has, and the value the question names — None for a
    question whether it still holds ("ainda tá valendo?", "still on?"), answered with the first such slot's value."""
    still = None
    for cap in turn.grammar.capabilities.values():
        if cap.entity != entity:
            continue
        for slot in cap.slots:
            if slot.parse == "enum" and slot.values and slot.field in body:
                named = turn.grammar.enum_value(slot, parts)
                if named is not None:
                    return cap, slot, named
                still = still or (cap, slot, None)
    return still if set(parts) & _STILL_ON else None


# "ainda tá valendo?", "a <entidade> 54 tá ativa?", "ainda tá de pé?", "is it still on?": whether it still holds
_STILL_ON = frozenset(lexicon.tokens("ativa ativo ativas ativos valendo vigente vigor rolando acontecendo mantida pe "
                                     "mantido active valid happening live"))


def state_named(turn: Turn, entity: str, parts: list[str], body: dict[str, Any]) -> tuple[SlotSpec, str] | None:
    """The enum slot whose field the item has and the value the words name ("agendada", "a draft"), else None."""
    asked = _value_asked(turn, entity, parts, body)
    return (asked[1], asked[2]) if asked is not None and asked[2] is not None else None
