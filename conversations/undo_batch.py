"""Undo of an operation that ran batch steps (issue 19 point 2): what its completed write batch step
changed is its COMPLETED items (execution BatchItem rows), the last finished first; an item that failed
changed nothing and is left alone. Every item must be undoable through the capability's registered
`undo` block (conditions, time limit) or nothing is undone; the undo is planned as one batch step
(undo_plan.py says why, and why an operation of several batch writes is refused), authorised by policy
and confirmed once like any plan.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from execution.models import BatchItem, Execution, ItemStatus, StepRun
from planning.batch import item_view
from planning.models import PlanStep
from planning.references import MISSING, drop_nulls, get_path, resolve

from .flow import rest
from .intents import intent_state
from .operations import plan_and_decide
from .turns import Turn
from .undo_plan import NOT_UNDOABLE, undo_call


def batch_undo(turn: Turn, writes: Sequence[tuple[PlanStep, StepRun]], last: dict[str, Any],
               execution: Execution) -> None:
    """Plan the undo of the one completed batch write step in `writes`, or refuse whole."""
    part, refusal = _part(turn, writes[0][0], execution) if len(writes) == 1 else (None, NOT_UNDOABLE)
    if refusal is not None or part is None:  # several batch writes or an item not undoable; or no item done
        rest(turn)
        template, code = refusal or ("nothing.to_undo", "NOTHING_TO_UNDO")
        turn.error(code, template)
        return
    ids = part.pop("ids")
    labels = ((last.get("intent") or {}).get("batch") or {}).get("labels") or {}
    state = intent_state(capability=part["capability"], values={}, text=turn.text, language=turn.language,
                         undo_of=str(execution.pk))
    state["batch"] = {"ids": ids, "labels": {str(i): str(labels.get(str(i), i)) for i in ids}, "scope": None,
                      "undo": part}
    plan_and_decide(turn, state)


def _part(turn: Turn, step: PlanStep, execution: Execution) -> tuple[dict[str, Any] | None, tuple[str, str] | None]:
    """The undo step of one batch write step: its capability, its item input and each item's args."""
    items = _completed(turn, execution, step)
    if not items:
        return None, None
    pinned = {t["id"]: t for t in step.targets}
    capability, template, args, ids = "", None, {}, []
    for item, subject in items:
        call, refusal = undo_call(turn, step.capability_id, subject, item.finished_at or execution.finished_at)
        if refusal is not None:
            return None, refusal
        capability, values = call
        entity = (pinned.get(item.target_id) or {}).get("type")
        own = _item_field(turn, capability, entity, values, item.target_id)
        if own is None:
            return None, NOT_UNDOABLE  # its undo does not act on the item: no batch over the items can run it
        template = template or {f: "${item.id}" if f == own else "${item.args." + f + "}" for f in values}
        args[str(item.target_id)] = {f: v for f, v in values.items() if f != own}
        ids.append(item.target_id)
    return {"capability": capability, "entity": entity, "input": template, "args": args, "ids": ids}, None


def _item_field(turn: Turn, capability: str, entity: str | None, values: dict[str, Any], target_id: int) -> str | None:
    """The undo's input field that names the item itself (a reference to its entity, with its id)."""
    spec = turn.snapshot.get(capability, tenant=turn.tenant)
    fields = spec.reference_fields if spec is not None else {}
    return next((f for f, kind in fields.items() if kind == entity and values.get(f) == target_id), None)


def _completed(turn: Turn, execution: Execution, step: PlanStep) -> list[tuple[BatchItem, dict[str, Any]]]:
    """The step's completed items, last finished first, each with the change it made: `{input, result}`
    (the input as the executor built it from the step's template and the item's earlier results)."""
    items = list(BatchItem.objects.for_tenant(turn.tenant).filter(
        execution=execution, step_id=step.step_id, status=ItemStatus.COMPLETED).order_by("-finished_at", "-position"))
    earlier: dict[int, dict[str, Any]] = {}
    if items and step.depends_on:
        for target_id, step_id, result in BatchItem.objects.for_tenant(turn.tenant).filter(
                execution=execution, step_id__in=step.depends_on, target_id__in=[i.target_id for i in items],
                status=ItemStatus.COMPLETED).values_list("target_id", "step_id", "result"):
            earlier.setdefault(target_id, {})[step_id] = result
    pinned = {t["id"]: t for t in step.targets}
    found = []
    for item in items:
        view = item_view(pinned.get(item.target_id) or {"id": item.target_id}, earlier.get(item.target_id, {}))

        def lookup(ref: Any, view: dict[str, Any] = view) -> Any:
            return get_path(view, ref.path) if ref.root == "item" else MISSING
        found.append((item, {"input": drop_nulls(resolve(step.input, lookup)), "result": item.result}))
    return found
