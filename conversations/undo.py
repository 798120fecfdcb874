"""Undo (PRD-010 §21-§22, invariant 7): only through the compensating capability the registry
declares in the capability's `undo` block, under its own plan, policy and confirmation. Without
one — or when its conditions or time limit do not hold — the agent says the operation cannot be
undone automatically; it never invents an inverse operation.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils.dateparse import parse_datetime

from execution.models import Execution, StepRun, StepStatus
from planning.conditions import holds
from planning.models import PlanStep
from planning.references import MISSING, get_path, resolve

from .flow import rest
from .intents import intent_state
from .operations import plan_and_decide
from .turns import Turn
from .understanding import SlotValue


def _refuse(turn: Turn, template: str, code: str) -> None:
    rest(turn)
    turn.error(code, template)


def undo_request(turn: Turn) -> None:
    last = turn.conversation.last_result or {}
    if last.get("status") not in ("completed", "partially_completed") or not last.get("execution_id"):
        return _refuse(turn, "nothing.to_undo", "NOTHING_TO_UNDO")
    execution = Execution.objects.for_tenant(turn.tenant).filter(pk=last["execution_id"]).first()
    if execution is None:
        return _refuse(turn, "nothing.to_undo", "NOTHING_TO_UNDO")
    steps = {s.step_id: s for s in PlanStep.objects.for_tenant(turn.tenant).filter(plan=execution.plan_id)}
    runs = StepRun.objects.for_tenant(turn.tenant).filter(execution=execution, status=StepStatus.COMPLETED)
    writes = [(steps[r.step_id], r) for r in runs if steps[r.step_id].kind == "write"]
    turn.event("UNDO_REQUESTED", {"execution_id": str(execution.pk)}, actor="user",
               operation_id=execution.plan_id)
    if not writes:
        return _refuse(turn, "nothing.to_undo", "NOTHING_TO_UNDO")
    if len(writes) != 1:
        return _refuse(turn, "undo.not_undoable", "NOT_UNDOABLE")
    step, run = writes[0]
    spec = turn.snapshot.get(step.capability_id, tenant=turn.tenant)
    block = dict(spec.undo) if spec is not None and spec.undo else None
    if not block or not block.get("capability") or block["capability"] not in turn.grammar.capabilities:
        return _refuse(turn, "undo.not_undoable", "NOT_UNDOABLE")
    subject = {"input": step.input, "result": run.result}
    for condition in block.get("conditions") or []:
        if not holds(get_path(subject, str(condition.get("path"))), str(condition.get("op")), condition.get("value")):
            return _refuse(turn, "undo.not_undoable", "NOT_UNDOABLE")
    finished = execution.finished_at or parse_datetime(str(last.get("finished_at") or ""))
    seconds = block.get("expires_after_seconds")
    if seconds and finished is not None and finished + timedelta(seconds=int(seconds)) < turn.now:
        return _refuse(turn, "undo.expired", "UNDO_EXPIRED")

    def lookup(ref: Any) -> Any:
        value = get_path(subject.get(ref.root), ref.path) if ref.root in subject else MISSING
        return value

    undo_input = resolve(dict(block.get("input") or {}), lookup)
    state = _undo_state(turn, block["capability"], undo_input, last, run.result, execution)
    if state is None:
        return _refuse(turn, "undo.not_undoable", "NOT_UNDOABLE")
    plan_and_decide(turn, state)


def _undo_state(turn: Turn, capability: str, values: dict[str, Any], last: dict[str, Any], result: Any,
                execution: Execution) -> dict[str, Any] | None:
    cap = turn.grammar.capabilities[capability]
    known: dict[str, tuple[str, dict[str, Any] | None]] = {}
    for vals in ((last.get("intent") or {}).get("slots") or {}).values():
        for v in vals:
            known[str(v.get("value"))] = (str(v.get("label")), v.get("entity"))
    if isinstance(result, dict):
        for key in ("id", "key"):
            if result.get(key) is not None:
                known.setdefault(str(result[key]), (str(result.get("name") or result.get("number") or result[key]),
                                                    None))
    slots: dict[str, list[SlotValue]] = {}
    for slot in cap.slots:
        if slot.field not in values or values[slot.field] is None:
            continue
        value = values[slot.field]
        label, entity = known.get(str(value), (str(value), None))
        own_label = str((slot.resolver or {}).get("label") or "")
        if isinstance(result, dict) and str(result.get("id")) == str(value) and result.get(own_label):
            label = str(result[own_label])  # "guarda-corpo solto", not the finding's id
        # A value a resolver names is a thing the undo acts on: the card lists it among the affected.
        named = slot.from_context or bool(slot.resolver)
        slots[slot.name] = [SlotValue(value, label, entity or ({"type": slot.type, "id": value, "label": label}
                                                               if named else None), "context")]
    if any(s.required and s.name not in slots for s in cap.slots):
        return None
    return intent_state(capability=capability, values=slots, text=turn.text, language=turn.language,
                        undo_of=str(execution.pk))
