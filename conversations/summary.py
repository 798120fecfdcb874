"""How an operation is worded: the confirmation's summary ("adicionar “Trabalho em Altura” à
permissão 123 (Alfa)") with the affected resources, and the reply once it is done — from the
capability's `language` templates in the registry, else a generic form."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import messages
from .batch_plan import batch_describe
from .grammar import CapabilityGrammar
from .intents import is_target
from .turns import Turn
from .understanding import SlotValue


def _verb(cap: CapabilityGrammar, language: str) -> str:
    for verb in cap.verbs:
        if verb.language == language:
            return " ".join(verb.words)
    return cap.intent


@dataclass
class _Texts:
    values: dict[str, str] = field(default_factory=dict)  # slot name (and "target") -> display text
    details: list[str] = field(default_factory=list)
    affected: list[dict[str, Any]] = field(default_factory=list)


def _slot_texts(turn: Turn, state: Mapping[str, Any]) -> _Texts:
    cap = turn.grammar.capabilities[state["capability"]]
    language, out, target_text = turn.language, _Texts(), ""
    for name, raw in (state.get("slots") or {}).items():
        values = [SlotValue.from_dict(v) for v in raw]
        slot = cap.slot(name)
        if name == "source" or (slot is not None and is_target(turn, cap, name)):
            ref = values[0].entity or {}
            company = (ref.get("company") or {}).get("name")
            noun = turn.grammar.noun(str(ref.get("type") or (slot.type if slot else "")), language)
            target_text = f"{noun} {values[0].label}" + (f" ({company})" if company else "")
            out.affected.append({"type": ref.get("type"), "id": str(values[0].value), "label": values[0].label,
                                 **({"company": company} if company else {})})
            continue
        if slot is not None and slot.parse == "integer":
            out.values[name] = str(values[0].label)
            unit = f" {messages.term('days', language)}" if slot.name.endswith("_days") else ""
            out.details.append(f"{messages.term(slot.name, language)} {values[0].label}{unit}")
        else:
            labels = messages.join_list([f"\u201c{v.label}\u201d" for v in values], language)
            out.values[name] = labels
            term = messages.term(slot.name if slot is None or not slot.type else slot.type, language)
            out.details.append(f"{term} {labels}" if term and term != slot.type else labels)
            out.affected.extend({"type": v.entity.get("type"), "id": str(v.value), "label": v.label}
                                for v in values if v.entity)
    out.values["target"] = target_text.strip()
    return out


def describe(turn: Turn, state: Mapping[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """("adicionar “Trabalho em Altura” à permissão 123 (Alfa)", affected resources) in the turn's language.

    The capability's `language.summary` template (registry) words the action when it has one; the
    generic "verb, details — target" form covers capabilities without it.
    """
    if state.get("batch"):
        return batch_describe(turn, state)
    texts = _slot_texts(turn, state)
    summary = None if state.get("clone") else _render(turn, state["capability"], "summary", texts.values)
    if summary:
        return summary, texts.affected
    cap = turn.grammar.capabilities[state["capability"]]
    language = turn.language
    verb = "clonar" if state.get("clone") and language == "pt-BR" else ("clone" if state.get("clone")
                                                                         else _verb(cap, language))
    action = " ".join(p for p in [verb, ", ".join(texts.details)] if p)
    if texts.values["target"]:
        action += f" \u2014 {texts.values['target']}"
    return action, texts.affected


def done_text(turn: Turn, state: Mapping[str, Any]) -> str | None:
    """The reply once the operation completed ("Validade da permissão 123 alterada para 60 dias."), from the
    capability's `language.done` template; None when it has none (the execution composer answers then)."""
    if state.get("batch"):
        return None  # worded from the items' results when the execution settles (hooks)
    return None if state.get("clone") else _render(turn, state["capability"], "done", _slot_texts(turn, state).values)


_OPTIONAL = re.compile(r"\[([^\[\]]*)\]")
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


def _render(turn: Turn, capability_id: str, kind: str, values: Mapping[str, str]) -> str | None:
    """The registry's `language.<kind>` template filled in; None when it has none or lacks a required value."""
    spec = turn.snapshot.get(capability_id)
    template = ((spec.language.get(kind) if spec else None) or {}).get(turn.language)
    if not template:
        return None
    template = _OPTIONAL.sub(
        lambda m: m.group(1) if all(values.get(k) for k in _PLACEHOLDER.findall(m.group(1))) else "", template)
    if not all(values.get(k) for k in _PLACEHOLDER.findall(template)):
        return None
    text = _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)
    return text[0].upper() + text[1:] if kind == "done" else text
