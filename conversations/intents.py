"""The conversation's IntentState (a capability and its slot values, JSON in the conversation row)
and the planner's StructuredIntent built from it."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from planning.compound import Part
from planning.intents import StructuredIntent, TargetRef
from planning.templates import TEMPLATES

from .batch_plan import batch_intent
from .grammar import CapabilityGrammar
from .turns import Turn
from .understanding import SlotValue


def intent_state(*, capability: str, values: Mapping[str, list[SlotValue]], text: str, language: str,
                 clone: bool = False, undo_of: str | None = None) -> dict[str, Any]:
    return {"id": str(uuid.uuid4()), "capability": capability, "text": text[:500], "language": language,
            "slots": {name: [v.to_dict() for v in vals] for name, vals in values.items() if vals},
            "clone": clone, "undo_of": undo_of}


def slot_values(state: Mapping[str, Any], name: str) -> list[SlotValue]:
    return [SlotValue.from_dict(v) for v in (state.get("slots") or {}).get(name) or []]


def repeated(capability: str) -> bool:
    """A composite repeats the capability over several values of one slot ("<capability>Many", composites.yaml)."""
    return f"{capability}Many" in TEMPLATES


def is_target(turn: Turn, cap: CapabilityGrammar, slot_name: str) -> bool:
    slot = cap.slot(slot_name)
    return bool(slot and slot.from_context and turn.reader.read_capability(slot.type))


def structured_intent(turn: Turn, state: Mapping[str, Any]) -> tuple[StructuredIntent, dict[str, int]]:
    """The planner's StructuredIntent (+ revision pins) from the conversation's IntentState."""
    if state.get("batch"):
        return batch_intent(turn, state), {}
    cap = turn.grammar.capabilities[state["capability"]]
    slots: dict[str, Any] = {}
    targets: dict[str, TargetRef] = {}
    pins: dict[str, int] = {}
    name = cap.id
    for slot in cap.slots:
        values = slot_values(state, slot.name)
        if not values:
            continue
        if is_target(turn, cap, slot.name):
            ref = values[0].entity or {}
            fresh = turn.reader.entity(slot.type, values[0].value) or {}
            revision = fresh.get("revision", ref.get("revision"))
            targets[slot.name] = TargetRef(type=slot.type, id=values[0].value, revision=revision,
                                           label=str(values[0].label))
            if revision is not None:
                pins[f"{slot.type}:{values[0].value}"] = int(revision)
        elif len(values) > 1 and not slot.many and repeated(cap.id):
            name = f"{cap.id}Many"
            slots[f"{slot.field}s"] = [v.value for v in values]
        else:
            slots[slot.field] = [v.value for v in values] if slot.many else values[0].value
    role = _source_role(turn, cap.entity) if state.get("clone") else None
    if role is not None and role not in targets:  # the copy's source, in the role its entity's reads name it
        source = slot_values(state, "source")
        if source:
            ref = source[0].entity or {}
            targets[role] = TargetRef(type=str(ref.get("type")), id=source[0].value,
                                      revision=ref.get("revision"), label=source[0].label)
    if state.get("clone"):
        changed = any(k in slots for k in ("responsible", "validity_days"))
        name = f"{cap.entity}.cloneWithChanges" if changed else f"{cap.entity}.clone"
    intent = StructuredIntent(name=name, slots=slots, targets=targets, language=turn.language,
                              text=str(state.get("text", "")), id=uuid.UUID(state["id"]))
    return intent, pins


def _source_role(turn: Turn, entity: str) -> str | None:
    """The name of the reference slot by which the entity's own reads name one of it (a copy's source role)."""
    return next((s.name for c in turn.grammar.capabilities.values() if c.kind == "read" and c.entity == entity
                 for s in c.slots if s.parse == "reference" and s.type == entity), None)


def compound_intents(turn: Turn, state: Mapping[str, Any]) -> tuple[list[Part], dict[str, int]]:
    """The planner's parts of a compound request (conversations.compound), with every part's pins."""
    parts, pins = [], {}
    for raw in state["compound"]:
        intent, part_pins = structured_intent(turn, raw["state"])
        pins.update(part_pins)
        parts.append(Part(id=raw["part"], intent=intent, depends_on=tuple(raw.get("depends_on") or ()),
                          refs=dict(raw.get("refs") or {}), ref_types=dict(raw.get("ref_types") or {}),
                          condition=raw.get("condition")))
    return parts, pins
