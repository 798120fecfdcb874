"""What a cancel of a running operation tells the user (PRD-010 §18): what was cancelled, what had
already been done, what is still under way and will finish or be undone, what was undone — when
the cancel is asked (the cancel turn) and once the execution settles (the completion hook).

Steps are named as the user named their items (the intent's slot labels found in the step's
input), else by the plan's own label for the step: never by a step id or a capability id.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from execution.cancel import cancel_outcome
from execution.models import Execution
from planning.models import PlanStep
from policy.cancel import COMPENSATE

from .messages import join_list, say


def _slot_labels(intent: Mapping[str, Any]) -> dict[str, str]:
    labels: dict[str, str] = {}
    for values in (intent.get("slots") or {}).values():
        for value in values if isinstance(values, list) else []:
            if isinstance(value, Mapping) and value.get("label"):
                labels[str(value.get("value"))] = str(value["label"])
    return labels


def _names(execution: Execution, intent: Mapping[str, Any], language: str) -> dict[str, str]:
    """Each step by what sets it apart: an input value every step shares (the record they all act
    on) names none of them."""
    labels = _slot_labels(intent)
    steps = list(PlanStep.objects.for_tenant(execution.tenant_id).filter(plan=execution.plan_id))
    inputs = [s.input if isinstance(s.input, Mapping) else {} for s in steps]
    shared = ({k for k, v in inputs[0].items() if all(i.get(k, object()) == v for i in inputs[1:])}
              if len(inputs) > 1 else set())
    names = {}
    for step, values in zip(steps, inputs, strict=True):
        said = [labels[str(v)] for k, v in values.items() if k not in shared and str(v) in labels]
        own = step.label if isinstance(step.label, Mapping) else {}
        fallback = str(own.get(language) or own.get("pt-BR") or step.step_id).rstrip("…. ")
        names[step.step_id] = join_list(list(dict.fromkeys(said)), language) if said else fallback
    return names


def _parts(outcome: Mapping[str, Any], names: Mapping[str, str], language: str) -> list[str]:
    def items(key: str) -> str:
        return join_list([names.get(sid, sid) for sid in outcome[key]], language)

    parts = []
    if outcome["cancelled"]:
        parts.append(say("cancel.part_cancelled", language, items=items("cancelled")))
    if outcome["done"]:
        parts.append(say("cancel.part_done", language, items=items("done")))
    elif not (outcome["kept"] or outcome["compensated"] or outcome["in_flight"] or outcome["failed"]):
        parts.append(say("cancel.part_nothing_done", language))
    if outcome["in_flight"]:
        later = "cancel.part_undo_after" if outcome["rule"] == COMPENSATE else "cancel.part_finishing"
        parts.append(say(later, language, items=items("in_flight")))
    if outcome["kept"]:
        kept = "cancel.part_kept" if outcome["rule"] == COMPENSATE else "cancel.part_finished"
        parts.append(say(kept, language, items=items("kept")))
    if outcome["compensated"]:
        parts.append(say("cancel.part_compensated", language, items=items("compensated")))
    if outcome["failed"]:
        parts.append(say("cancel.part_failed", language, items=items("failed")))
    return parts


def cancel_text(*, execution: Execution, intent: Mapping[str, Any], language: str, opening: str) -> str:
    """`opening` (a template: cancel.stopped, cancel.already_requested, cancel.settled), then the parts."""
    outcome = cancel_outcome(execution=execution)
    return " ".join([say(opening, language), *_parts(outcome, _names(execution, intent, language), language)])


def settled_text(*, execution: Execution, intent: Mapping[str, Any], language: str) -> str:
    """A cancel that came after the execution had ended: say so, and what it had done."""
    outcome = cancel_outcome(execution=execution)
    parts = [say("cancel.already_settled", language, outcome=say(f"cancel.outcome.{execution.status}", language))]
    if outcome["done"]:
        names = _names(execution, intent, language)
        parts.append(say("cancel.part_done", language, items=join_list([names[s] for s in outcome["done"]],
                                                                       language)))
        parts.append(say("cancel.undo_hint", language))
    return " ".join(parts)
