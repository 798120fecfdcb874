"""A request under a condition on an item's state, checked from its data before anything is proposed: "se a 52
ainda estiver agendada, adia uma semana", "if 320 is still a draft, approve it", "se a 320 ainda não tiver sido
aprovada, aprova ela". The condition names the item and a value of one of its enum fields (the manifest's
value_synonyms, as state questions read them — state_question.state_named); "não"/"not" in it turns it around.

The item is read now. When the condition holds, the request after it is read on its own with that item in focus
("adia uma semana" is the 52's) and proposed as any request — confirmed by the user as always. When it does not
hold, the item's state is said and nothing is proposed. A condition this cannot check (no item, no state named)
leaves the message to the LLM planner or to "ask first" (compound.py), as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import lexicon
from .question import field_answer
from .reads import entity_ref
from .state import entity_activate, situation_for
from .state_question import state_named
from .turns import Turn
from .understanding import Extractor

_NEGATED = frozenset(lexicon.tokens("nao not no"))


def condition_checked(turn: Turn, condition: list[str], request: list[str], allowed: set[str],
                      understand: Callable[..., None]) -> bool:
    """Check the condition and act on it (module docstring); False when it cannot be checked."""
    found = _item_and_state(turn, condition)
    if found is None:
        return False
    slot, body, enum, named = found
    held = (str(body.get(enum.field)) == named) != bool(set(condition) & _NEGATED)
    if not held:  # "não: a <entidade> 54 está cancelada" — nothing proposed
        field_answer(turn, slot, body, enum.field, condition, template="answer.condition_not_held",
                     extra={"state": enum.value_label(str(body.get(enum.field)), turn.language)})
        return True
    ref = entity_ref(slot.type, body, label_field=str((slot.resolver or {}).get("label", "number")))
    entity_activate(turn.conversation, ref, version=turn.version)
    understand(turn, request, allowed)
    return True


def _item_and_state(turn: Turn, condition: list[str]) -> tuple[Any, dict[str, Any], Any, str] | None:
    """The item the condition names (read now), the enum slot and the value its words name; None if either is not
    said."""
    for cap in turn.grammar.capabilities.values():
        slot = next((s for s in cap.slots if s.parse == "reference"), None)
        if cap.kind != "read" or cap.intent != "show" or slot is None or not turn.reader.spec(cap.id):
            continue
        extractor = Extractor(grammar=turn.grammar, reader=turn.reader, situation=situation_for(turn.conversation),
                              text=" ".join(condition), language=turn.language)
        value = (extractor.extract(cap, condition, use_context=False).values.get(slot.name) or [None])[0]
        body = turn.reader.entity(slot.type, value.value) if value is not None else None
        named = state_named(turn, cap.entity, condition, body or {}) if body is not None else None
        if named is not None:
            return slot, body, named[0], named[1]
    return None
