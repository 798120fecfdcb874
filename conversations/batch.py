"""A capability run over a selection ("avalie as permissões em rascunho", "assess all draft permits"),
declared by the registry's `language.batch` (PRD-034 §110-§111), never special-cased here.

The selection is read *before* planning, through the batch's `select` read capability and the
Tool Runtime as the user: its language slots are the filters the message may name (a status word
from the slot's `value_synonyms`, a company...). Its ids become the plan template's `ids` slot, so
the planner pins them as the batch's targets; an empty selection is answered without planning.
A message naming neither a filter nor "every/all" evaluates the one permit it names (or the one in
focus) — a bare verb never widens to every permit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from planning.intents import StructuredIntent

from . import lexicon, messages
from .grammar import BatchSpec, CapabilityGrammar
from .turns import Turn
from .understanding import Extractor, SlotValue

_OPTIONAL = re.compile(r"\[([^\[\]]*)\]")
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


def render(template: str | None, values: Mapping[str, Any]) -> str | None:
    """`{name}` filled in; a `[...]` part is dropped when one of its placeholders has no value."""
    if not template:
        return None
    present = {k: str(v) for k, v in values.items() if v not in (None, "", [])}
    template = _OPTIONAL.sub(lambda m: m.group(1) if all(k in present for k in _PLACEHOLDER.findall(m.group(1)))
                             else "", template)
    return _PLACEHOLDER.sub(lambda m: present.get(m.group(1), "0"), template)


def text(batch: BatchSpec, kind: str, language: str, values: Mapping[str, Any]) -> str:
    texts = batch.texts.get(kind) or {}
    return render(texts.get(language) or texts.get("pt-BR"), values) or ""


def _filters(turn: Turn, select: CapabilityGrammar, parts: list[str],
             extractor: Extractor) -> tuple[dict[str, Any], str]:
    """The select read's input from the filters the message names, and the scope in words."""
    extraction = extractor.extract(select, parts, use_context=False)
    query: dict[str, Any] = {}
    words: list[str] = []
    for slot in select.slots:
        values: list[SlotValue] = extraction.values.get(slot.name) or []
        if not values or values[0].source != "text":
            continue
        query[slot.field] = values[0].value
        words.append(slot.value_label(str(values[0].value), turn.language) if slot.parse == "enum"
                     else str(values[0].label))
    return query, " ".join(words)


def _one(turn: Turn, cap: CapabilityGrammar, parts: list[str], extractor: Extractor) -> list[SlotValue]:
    """The permit the message names by number, or the one in focus."""
    extraction = extractor.extract(cap, parts)
    return next((values for values in extraction.values.values() if values and values[0].entity), [])


def batch_request(turn: Turn, cap: CapabilityGrammar, parts: list[str], extractor: Extractor) -> None:
    from .operations import intent_state, plan_and_decide
    from .runtime import rest

    batch = cap.batch
    assert batch is not None
    select = turn.grammar.capabilities.get(batch.select)
    query, scope = _filters(turn, select, parts, extractor) if select is not None else ({}, "")
    if query or any(p in lexicon.EVERY for p in parts):
        result = turn.reader.call(batch.select, query)
        if not result.ok:
            rest(turn)
            return turn.error("READ_FAILED", "batch.read_failed")
        items = [i for i in result.body or [] if isinstance(i, Mapping) and i.get("id") is not None]
        selected = [(int(i["id"]), str(i.get(batch.label) or i["id"])) for i in items]
    else:
        named = _one(turn, cap, parts, extractor)
        if not named:
            rest(turn)
            return turn.reply("clarification", "batch.which", values={},
                              clarification={"id": None, "question": turn.say("batch.which"), "missing_fields": [],
                                             "candidates": [], "expires_at": None})
        selected = [(int(v.value), v.label) for v in named]
    turn.event("BATCH_SELECTED", {"capability": cap.id, "select": batch.select, "filters": query,
                                  "count": len(selected)})
    if not selected:
        rest(turn)
        return turn.reply("answer", "batch.empty", message=text(batch, "empty", turn.language, {"scope": scope}))
    state = intent_state(capability=cap.id, values={}, text=turn.text, language=turn.language)
    state["batch"] = {"ids": [i for i, _ in selected], "labels": {str(i): label for i, label in selected},
                      "scope": scope}
    turn.event("INTENT_CREATED", {"intent_id": state["id"], "capability": cap.id, "batch": len(selected)})
    plan_and_decide(turn, state)


def batch_intent(turn: Turn, state: Mapping[str, Any]) -> StructuredIntent:
    import uuid

    batch = turn.grammar.capabilities[state["capability"]].batch
    assert batch is not None
    return StructuredIntent(name=batch.template, slots={batch.ids: list(state["batch"]["ids"])},
                            language=turn.language, text=str(state.get("text", "")), id=uuid.UUID(state["id"]))


def batch_describe(turn: Turn, state: Mapping[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """("avaliar 3 permissão(ões) de trabalho em rascunho", the permits) for the confirmation."""
    cap = turn.grammar.capabilities[state["capability"]]
    assert cap.batch is not None
    chosen = state["batch"]
    action = text(cap.batch, "summary", turn.language, {"count": len(chosen["ids"]), "scope": chosen.get("scope")})
    affected = [{"type": cap.entity, "id": str(i), "label": chosen["labels"].get(str(i), str(i))}
                for i in chosen["ids"]]
    return action, affected


def batch_done(detail: Mapping[str, Any], state: Mapping[str, Any], grammar: Any, language: str) -> str | None:
    """The completion reply: how many were evaluated, the tally (approved / flagged), the failed ones by name."""
    cap = grammar.capabilities.get(state.get("capability"))
    if cap is None or cap.batch is None:
        return None
    chosen = state["batch"]
    results: dict[str, Any] = {}
    for step in detail["steps"]:
        result = step.get("result")
        if step["capability"] == cap.id and isinstance(result, Mapping):
            results.update(result.get("items") or {})
    counts = {name: sum(1 for r in results.values() if isinstance(r, Mapping)
                        and r.get(cap.batch.tally_field or "") == value) for name, value in cap.batch.tally.items()}
    failed = [chosen["labels"].get(str(i), str(i)) for i in chosen["ids"] if str(i) not in results]
    return text(cap.batch, "done", language, {**counts, "count": len(results), "scope": chosen.get("scope"),
                                               "failed": messages.join_list(failed, language)})
