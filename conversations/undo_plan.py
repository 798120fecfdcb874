"""The registered undo of one change, and the undo of a batch as one plan (PRD-010 §21-§22, issue 19).

`undo_call` resolves a capability's `undo` block (registry) for one change it made — its conditions,
its time limit, its input from the change's `{input, result}` — or says why it cannot be undone.

A batch write (planning.batch) is undone as ONE batch step of the undo capability over the items the
write completed, not as a compound plan of one step per item: a compound is capped
(planning.compound.MAX_PARTS) and each of its steps is an engine step of its own, while a batch step
runs its items under the adaptive runtime (chunks, a concurrency slot per call, the capability's retry
policy), records each item completed or failed — so a partial undo is told as partial — and is judged
by policy's blast-radius rule on its target count. What an item's call needs besides its target's id
(the row that item's write created) rides on the pinned target as `args`: fixed at planning and hashed
with the plan, so the runtime can no more change it than the targets.

One batch write step is undone per plan: the items of a second batch step would be tied to the first's
by the executor (an item runs only after the same target's item of the step it depends on), which an
undo over other items cannot honour, and running them unordered could undo a change before the one
made on top of it — such an operation is refused as not undoable automatically.

The state is a batch request's (`state["batch"]`: ids in undo order, labels) with `undo`: the plan's
one step, `{capability, entity, input, args}`. Below operations.py, summary (through batch_plan) and
batch.py, which plan, word and report it.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from planning.batch import BATCH_SOURCE, batch_targets
from planning.conditions import holds
from planning.intents import StructuredIntent
from planning.models import ExecutionPlan
from planning.references import MISSING, get_path, resolve
from planning.services import plan_from_steps
from registry.selectors import registry_snapshot

from . import messages
from .turns import Turn

NOT_UNDOABLE = ("undo.not_undoable", "NOT_UNDOABLE")
EXPIRED = ("undo.expired", "UNDO_EXPIRED")
_SHOWN = 10  # a confirmation names at most this many items ("… e mais 40")


def undo_call(turn: Turn, capability_id: str, subject: Mapping[str, Any],
              finished: datetime | None) -> tuple[tuple[str, dict[str, Any]] | None, tuple[str, str] | None]:
    """(undo capability, its input) for one change `{input, result}` of `capability_id` that finished
    at `finished`; or why it cannot be undone (template, code)."""
    spec = turn.snapshot.get(capability_id, tenant=turn.tenant)
    block = dict(spec.undo) if spec is not None and spec.undo else None
    if not block or not block.get("capability") or block["capability"] not in turn.grammar.capabilities:
        return None, NOT_UNDOABLE
    for condition in block.get("conditions") or []:
        if not holds(get_path(subject, str(condition.get("path"))), str(condition.get("op")), condition.get("value")):
            return None, NOT_UNDOABLE
    seconds = block.get("expires_after_seconds")
    if seconds and finished is not None and finished + timedelta(seconds=int(seconds)) < turn.now:
        return None, EXPIRED

    def lookup(ref: Any) -> Any:
        return get_path(subject.get(ref.root), ref.path) if ref.root in subject else MISSING

    return (block["capability"], resolve(dict(block.get("input") or {}), lookup)), None


def is_undo(state: Mapping[str, Any]) -> bool:
    return bool((state.get("batch") or {}).get("undo"))


def undo_steps(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The one batch step: the undo capability over the items, in the order they are to be undone."""
    chosen, undo = state["batch"], state["batch"]["undo"]
    args = {int(k): v for k, v in (undo.get("args") or {}).items()}
    return [{"id": "undo", "capability": undo["capability"], "input": dict(undo["input"]), "for_each": BATCH_SOURCE,
             "depends_on": [], "targets": batch_targets([int(i) for i in chosen["ids"]], undo["entity"], args)}]


def undo_plan(turn: Turn, state: Mapping[str, Any]) -> ExecutionPlan:
    """The plan of a batch undo; each item may fail alone (`allow_partial`): the rest is still undone."""
    template = f"undo:{state['capability']}"[:100]
    intent = StructuredIntent(name=template, slots={"undo_of": state.get("undo_of")}, language=turn.language,
                              text=str(state.get("text", "")), id=uuid.UUID(state["id"]))
    return plan_from_steps(tenant=turn.tenant, actor=turn.user, steps=undo_steps(state), template=template,
                           intent=intent, allow_partial=True, conversation_id=turn.conversation.pk)


def _verb(capability_id: str, language: str) -> str:
    """The undo capability's first verb as the manifest writes it ("retirar a avaliação")."""
    spec = registry_snapshot().get(capability_id)
    verbs = ((spec.language or {}).get("verbs") or {}) if spec is not None else {}
    return next(iter(verbs.get(language) or verbs.get("pt-BR") or [capability_id]))


def _what(grammar: Any, state: Mapping[str, Any], language: str, count: int) -> dict[str, Any]:
    entity = state["batch"]["undo"]["entity"]
    return {"verb": _verb(state["capability"], language), "count": count,
            "nouns": grammar.noun(entity, language, many=count != 1)}


def undo_describe(turn: Turn, state: Mapping[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """("retirar … de 3 <nouns>: 802, 771 e 770", the items) for the one confirmation."""
    chosen = state["batch"]
    labels = [str(chosen["labels"].get(str(i), i)) for i in chosen["ids"]]
    shown = messages.join_list(labels, turn.language) if len(labels) <= _SHOWN else turn.say(
        "undo.batch_more", items=", ".join(labels[:_SHOWN]), count=len(labels) - _SHOWN)
    action = turn.say("undo.batch", items=shown, **_what(turn.grammar, state, turn.language, len(labels)))
    entity = chosen["undo"]["entity"]
    return action, [{"type": entity, "id": str(i), "label": label} for i, label in zip(chosen["ids"], labels,
                                                                                         strict=True)]


def undo_done(detail: Mapping[str, Any], state: Mapping[str, Any], grammar: Any, language: str) -> str:
    """The reply once the undo settled: how many were undone, and — a partial undo — where it failed."""
    chosen = state["batch"]
    done = {str(k) for step in detail["steps"] if isinstance(step.get("result"), Mapping)
            for k in step["result"].get("items") or {}}
    failed = [str(chosen["labels"].get(str(i), i)) for i in chosen["ids"] if str(i) not in done]
    if not failed:
        return messages.say("undo.batch_done", language, **_what(grammar, state, language, len(done)))
    what = {**_what(grammar, state, language, len(chosen["ids"])), "count": len(done)}
    return messages.say("undo.batch_partial", language, total=len(chosen["ids"]),
                        failed=messages.join_list(failed, language), **what)
