"""Undo (PRD-010 §21-§22, invariant 7): only through the compensating capability the registry
declares in the capability's `undo` block, under its own plan, policy and confirmation. Without
one — or when its conditions or time limit do not hold — the agent says the operation cannot be
undone automatically; it never invents an inverse operation. An operation that ran batch steps is
undone item by item through undo_batch.py.
"""

from __future__ import annotations

from typing import Any

from django.utils.dateparse import parse_datetime

from execution.models import Execution, StepRun, StepStatus
from planning.batch import is_batch
from planning.models import PlanStep

from .cancel import decline
from .flow import pending_confirmation, rest
from .intents import intent_state
from .operations import plan_and_decide
from .reads import entity_ref
from .turns import Turn
from .understanding import SlotValue
from .undo_batch import batch_undo
from .undo_named import another_change_named, another_item_said
from .undo_plan import NOT_UNDOABLE, undo_call


def _refuse(turn: Turn, template: str, code: str) -> None:
    rest(turn)
    turn.error(code, template)


def undo_request(turn: Turn) -> None:
    last = turn.conversation.last_result or {}
    if last.get("status") not in ("completed", "partially_completed") or not last.get("execution_id"):
        if pending_confirmation(turn) is not None:  # "nah, leave it as it was" before anything ran: not done at all
            return decline(turn)
        return _refuse(turn, "nothing.to_undo", "NOTHING_TO_UNDO")
    # The user's own operation only (the conversation is theirs already; this keeps it so).
    execution = Execution.objects.for_tenant(turn.tenant).filter(pk=last["execution_id"], actor=turn.user).first()
    if execution is None:
        return _refuse(turn, "nothing.to_undo", "NOTHING_TO_UNDO")
    steps = {s.step_id: s for s in PlanStep.objects.for_tenant(turn.tenant).filter(plan=execution.plan_id)}
    runs = StepRun.objects.for_tenant(turn.tenant).filter(execution=execution, status=StepStatus.COMPLETED)
    writes = sorted([(steps[r.step_id], r) for r in runs if steps[r.step_id].kind == "write"],
                    key=lambda w: (w[1].finished_at is None, w[1].finished_at, w[0].position))
    turn.event("UNDO_REQUESTED", {"execution_id": str(execution.pk)}, actor="user",
               operation_id=execution.plan_id)
    if not writes:
        return _refuse(turn, "nothing.to_undo", "NOTHING_TO_UNDO")
    if any(is_batch(step) for step, _ in writes):
        if not all(is_batch(step) for step, _ in writes):
            return _refuse(turn, *NOT_UNDOABLE)  # batch and single changes cannot share one undo plan
        return batch_undo(turn, writes, last, execution)
    states = []
    units = [(step, run, subject) for step, run in writes for subject in _subjects(step, run)]
    for step, run, subject in reversed(units):  # the last change is undone first
        state, refusal = _undo_one(turn, step, run, subject, last, execution)
        if refusal is not None:
            return _refuse(turn, *refusal)
        states.append(state)
    other = another_item_said(turn, states)
    if other is not None:  # "desfaz a mudança da 311" when the last change was on 310: never the wrong one undone
        rest(turn)
        return turn.error("NOTHING_TO_UNDO", "undo.other_item", label=other.get("label"),
                          **turn.nouns(str(other.get("type"))))
    if another_change_named(turn, {step.capability_id for step, _ in writes}):  # "undo the reschedule" after an add
        rest(turn)
        return turn.error("NOTHING_TO_UNDO", "undo.not_the_last", message=str(last.get("message") or ""))
    if len(states) == 1:
        return plan_and_decide(turn, states[0])
    # Several changes: one plan of their registered undos, in reverse order, each step authorised by
    # policy and confirmed once; a step that fails leaves the ones before it done (reported per step).
    parts = [{"part": f"u{n}", "state": state, "depends_on": [f"u{n - 1}"] if n else [], "refs": {},
              "ref_types": {}, "condition": None} for n, state in enumerate(states)]
    top = intent_state(capability=states[0]["capability"], values={}, text=turn.text, language=turn.language,
                       undo_of=str(execution.pk))
    top["compound"] = parts
    plan_and_decide(turn, top)


def _subjects(step: PlanStep, run: StepRun) -> list[dict[str, Any]]:
    """What each change of a completed write step was called with and answered: one per item of a
    `for_each` step (its run holds `{"items": [...]}` on both sides), else the one call."""
    if step.for_each and isinstance(run.input, dict) and isinstance(run.result, dict):
        return [{"input": i, "result": r} for i, r in zip(run.input.get("items") or [], run.result.get("items") or [],
                                                          strict=False)]
    return [{"input": run.input if run.input is not None else step.input, "result": run.result}]


def _undo_one(turn: Turn, step: PlanStep, run: StepRun, subject: dict[str, Any], last: dict[str, Any],
              execution: Execution) -> tuple[dict[str, Any] | None, tuple[str, str] | None]:
    """The undo intent of one completed change, or why it cannot be undone (template, code)."""
    finished = run.finished_at or execution.finished_at or parse_datetime(str(last.get("finished_at") or ""))
    call, refusal = undo_call(turn, step.capability_id, subject, finished)
    if call is None:
        return None, refusal
    state = _undo_state(turn, call[0], call[1], last, subject["result"], execution)
    return (state, None) if state is not None else (None, NOT_UNDOABLE)


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
        if entity is None and str(value) not in known and slot.from_context and turn.reader.read_capability(slot.type):
            body = turn.reader.entity(slot.type, value)  # an item an earlier step made: named by its own label
            if body is not None:
                entity = entity_ref(slot.type, body, label_field=str((slot.resolver or {}).get("label", "name")))
                label = entity["label"]
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
