"""A value said as a change of the item's current one — "add a week to 340", "5 days less" —, counted from the
item the plan is for.

The extraction counts it from the item it resolved, and keeps the amount beside the value (SlotValue.delta). A
clarification ("which 340?") or a correction ("no, 311, not 310") may then settle another item: right before
planning the amount is counted again from that item's current value, so the value proposed is never the amount
alone ("add a week" once proposed 7 days after "which one?") nor the first item's sum. A result outside the
field's range is asked about (clarify.invalid_number), never proposed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .numbers import value_problem
from .turns import Turn


def relative_settled(turn: Turn, state: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the state with each relative value counted from its target's current value, the slots whose sum is
    out of range as Extraction.invalid entries — empty when none)."""
    cap = turn.grammar.capabilities.get(str(state.get("capability")))
    slots = dict(state.get("slots") or {})
    relative = {name: values[0] for name, values in slots.items()
                if values and isinstance(values[0], Mapping) and isinstance(values[0].get("delta"), int)}
    target = _target(cap, slots) if cap is not None and relative else None
    if target is None:
        return dict(state), {}
    body = turn.reader.entity(str(target["entity"]["type"]), target["value"]) or {}
    spec = turn.reader.spec(cap.id)
    invalid: dict[str, Any] = {}
    for name, said in relative.items():
        slot = cap.slot(name)
        current = body.get(slot.field) if slot is not None else None
        if not isinstance(current, int) or isinstance(current, bool):
            continue
        value = current + said["delta"]
        schema = ((spec.input_schema if spec else {}).get("properties") or {}).get(slot.field) or {}
        problem = "negative" if value < 0 else value_problem(None, str(value), schema)
        if problem is not None:
            invalid[name] = {"said": str(value), "problem": problem,
                             **{k: v for k, v in schema.items() if k in ("minimum", "maximum")}}
            slots.pop(name)
            continue
        slots[name] = [{**said, "value": value, "label": str(value)}]
    return {**state, "slots": slots}, invalid


def _target(cap: Any, slots: Mapping[str, Any]) -> dict[str, Any] | None:
    """The item the capability acts on, as its slot holds it (an id and its entity's type), else None."""
    for slot in cap.slots:
        values = slots.get(slot.name) or []
        said = values[0] if values and isinstance(values[0], Mapping) else None
        if slot.parse == "reference" and slot.type == cap.entity and said and (said.get("entity") or {}).get("type"):
            return dict(said)
    return None
