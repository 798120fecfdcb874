"""A relative change as a turn ("mais 10 dias", "não, reduza em 5", "halve it"): relative.py reads
the change; this applies it to the number the conversation is about —

1. the integer value of the pending confirmation (its new plan replaces it, policy runs again);
2. else the field last asked about ("qual o prazo?"): the write capability whose integer slot
   fills that field, on the same entity, from the entity's current value.

Nothing here knows an entity: the slot and field come from the manifest and the conversation.
"""

from __future__ import annotations

import uuid
from datetime import date, timedelta
from typing import Any

from .dates import date_label
from .ellipsis import last_request
from .flow import pending_confirmation
from .lexicon import ARTICLES, tokens
from .numbers import value_problem
from .operations import operate, plan_and_decide
from .reads import entity_ref
from .relative import Change, amount_swap, value_swap
from .statemachine import Status
from .turns import Turn
from .understanding import Extraction, SlotValue


def relative_apply(turn: Turn, change: Change, allowed: set[str], parts: list[str]) -> bool:
    """Apply `change`; False when the conversation has no number it could apply to."""
    return (_on_pending(turn, change) or (change.op != "mul" and _date_on_pending(
        turn, int(change.amount) * (1 if change.op == "add" else -1))) or _on_field(turn, change, allowed, parts))


def swap_apply(turn: Turn) -> bool:
    """"opa, 50, não 40" / "sim, mas coloca 50 em vez de 40": the pending proposal's number, when it is
    the one denied, replaced by the one said (as a change, so it is checked and planned again)."""
    pending = pending_confirmation(turn)
    words = tokens(turn.text)
    swap = value_swap(" ".join(words)) if pending is not None else None
    amounts = amount_swap(" ".join(words)) if pending is not None else None
    moved = _moved_by(turn, amounts[1]) if amounts is not None else None
    if moved:  # "2 days, not 2 weeks" after "by 2 weeks": moved by the amount meant instead, the same way
        delta = (amounts[0] - amounts[1]) * moved
        return _on_pending(turn, Change("add", float(delta))) or _date_on_pending(turn, delta)
    if swap is None:
        return False
    new, old = swap
    at = words.index(str(new))
    if at and words[at - 1] in ARTICLES:  # "a 311, não a 310": an item named, not a value
        return False
    cap = turn.grammar.capabilities.get(str((pending.intent or {}).get("capability")))
    slots = (pending.intent or {}).get("slots") or {}
    current = [v.get("value") for s in (cap.slots if cap else ()) if s.parse == "integer"
               for v in slots.get(s.name) or ()]
    return current == [old] and _on_pending(turn, Change("add", float(new - old)))


def _pending_one(turn: Turn, parses: tuple[str, ...]) -> tuple[dict[str, Any], Any, dict[str, Any], Any] | None:
    """(intent state, capability, slots, slot) of the pending proposal's one value of these parses, else None."""
    pending = pending_confirmation(turn)
    state = dict(pending.intent) if pending is not None else {}
    cap = turn.grammar.capabilities.get(str(state.get("capability")))
    slots = dict(state.get("slots") or {})
    found = [s for s in (cap.slots if cap else ()) if s.parse in parses and slots.get(s.name)]
    return (state, cap, slots, found[0]) if len(found) == 1 else None


def _replan(turn: Turn, state: dict[str, Any], slots: dict[str, Any], name: str) -> bool:
    """The pending proposal planned again with `slots` (policy runs again; the earlier confirmation goes)."""
    turn.event("CORRECTION_RECEIVED", {"intent_id": state.get("id"), "changed": [name]}, actor="user")
    turn.go(Status.CORRECTING)
    plan_and_decide(turn, {**state, "slots": slots, "id": str(uuid.uuid4())})
    return True


def _on_pending(turn: Turn, change: Change) -> bool:
    found = _pending_one(turn, ("integer",))
    if found is None:
        return False
    state, cap, slots, slot = found
    new = change.apply(int(slots[slot.name][0]["value"]))
    problem = _problem(turn, cap.id, slot.field, new)
    if problem is not None:  # asked again, the pending intent's other values kept
        turn.event("CORRECTION_RECEIVED", {"intent_id": state.get("id"), "changed": [slot.name]}, actor="user")
        kept = {name: [SlotValue.from_dict(v) for v in values] for name, values in slots.items() if name != slot.name}
        operate(turn, cap, Extraction(values=kept, invalid={slot.name: problem}), [])
        return True
    slots[slot.name] = [SlotValue(int(new), str(int(new))).to_dict()]
    return _replan(turn, state, slots, slot.name)


def _moved_by(turn: Turn, days: int) -> int:
    """+1 / -1 when the pending proposal's one number or date is its item's current one moved up / down by `days`
    (the amount a correction denies was the change, not the value), else 0 (read now: never a guess)."""
    found = _pending_one(turn, ("integer", "date"))
    if found is None:
        return 0
    _state, cap, slots, slot = found
    ref = next((v[0] for s in cap.slots if s.parse == "reference" and s.type == cap.entity
                and (v := slots.get(s.name))), None)
    now = (turn.reader.entity(cap.entity, ref.get("value")) or {}).get(slot.field) if ref else None
    if now is None:
        return 0
    proposed = slots[slot.name][0]["value"]
    apart = ((date.fromisoformat(str(proposed)) - date.fromisoformat(str(now))).days if slot.parse == "date"
             else int(proposed) - int(now))
    return 1 if apart == days else -1 if apart == -days else 0


def _date_on_pending(turn: Turn, days: int) -> bool:
    """The pending proposal's one date moved by `days` ("sorry, 2 days, not 2 weeks" after "push it back 2 weeks")."""
    found = _pending_one(turn, ("date",))
    if found is None:
        return False
    state, _cap, slots, slot = found
    day = date.fromisoformat(str(slots[slot.name][0]["value"])) + timedelta(days=days)
    slots[slot.name] = [SlotValue(day.isoformat(), date_label(day, turn.language)).to_dict()]
    return _replan(turn, state, slots, slot.name)


def _on_field(turn: Turn, change: Change, allowed: set[str], parts: list[str]) -> bool:
    asked = _discussed(turn, last_request(turn.conversation.context))
    if asked is None:
        return False
    for cap in turn.grammar.capabilities.values():
        if cap.id not in allowed or cap.kind != "write":
            continue
        target = next((s for s in cap.slots if s.parse == "reference" and s.type == asked.get("type")), None)
        number = next((s for s in cap.slots if s.parse == "integer" and s.field == asked.get("field")), None)
        if target is None or number is None:
            continue
        body = turn.reader.entity(str(asked["type"]), asked.get("id"))
        current = (body or {}).get(str(asked["field"]))
        if body is None or not isinstance(current, int):
            return False
        entity = entity_ref(target.type, body, label_field=str((target.resolver or {}).get("label", "name")))
        extraction = Extraction(values={target.name: [SlotValue(body.get("id"), entity["label"], entity, "topic")]})
        new = change.apply(current)
        problem = _problem(turn, cap.id, number.field, new)
        if problem is None:
            extraction.values[number.name] = [SlotValue(int(new), str(int(new)))]
        else:
            extraction.invalid[number.name] = problem
        operate(turn, cap, extraction, parts)
        return True
    return False


def _discussed(turn: Turn, asked: dict[str, Any] | None) -> dict[str, Any] | None:
    """The field last asked about — or last written: "reduce it by 15 days" right after "double it" ran changes
    the number that write set, on the item it set it on."""
    if asked is None or asked.get("kind") == "field":
        return asked
    cap = turn.grammar.capabilities.get(str(asked.get("capability")))
    if asked.get("kind") == "capability" and cap is not None and cap.kind == "navigation":
        return _opened_amount(turn, cap, asked.get("values") or {})
    if asked.get("kind") != "capability" or cap is None or cap.kind != "write":
        return None
    values = asked.get("values") or {}
    numbers = [s for s in cap.slots if s.parse == "integer" and s.field and values.get(s.name)]
    targets = [s for s in cap.slots if s.parse == "reference" and len(values.get(s.name) or ()) == 1]
    if len(numbers) != 1 or len(targets) != 1:
        return None
    return {"kind": "field", "type": targets[0].type, "id": values[targets[0].name][0].get("value"),
            "field": numbers[0].field}


def _opened_amount(turn: Turn, cap: Any, values: dict[str, Any]) -> dict[str, Any] | None:
    """"one more week" right after an item was opened: its one field that a write sets as an amount in a unit (the
    manifest's `unit`), when its entity has exactly one — else None (nothing was discussed)."""
    targets = [s for s in cap.slots if s.parse == "reference" and s.type == cap.entity
               and len(values.get(s.name) or ()) == 1]
    if len(targets) != 1:
        return None
    fields = {s.field for c in turn.grammar.capabilities.values() if c.kind == "write" and c.entity == cap.entity
              for s in c.slots if s.parse == "integer" and s.unit and s.field}
    if len(fields) != 1:
        return None
    return {"kind": "field", "type": cap.entity, "id": values[targets[0].name][0].get("value"), "field": fields.pop()}


def _problem(turn: Turn, capability: str, field: str | None, new: float) -> dict[str, Any] | None:
    spec = turn.reader.spec(capability)
    schema = ((spec.input_schema if spec else {}).get("properties") or {}).get(field) or {}
    shown = str(int(new)) if float(new).is_integer() else f"{new:g}"
    if not float(new).is_integer():
        return {"said": shown, "problem": "fraction"}
    problem = "negative" if new < 0 else value_problem(None, shown, schema)
    if problem is None:
        return None
    return {"said": shown, "problem": problem,
            **{k: v for k, v in schema.items() if k in ("minimum", "maximum")}}
