"""A batch intent as the planner and the user see it: the plan template's StructuredIntent (the
selected ids) and the confirmation's summary, worded by the registry's `language.batch`.

Below operations.py (which plans any intent, a batch one too) and batch.py (the batch request). A
batch undo (undo_plan.py) is worded by its own module.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from typing import Any

from planning.intents import StructuredIntent

from .grammar import BatchSpec
from .turns import Turn
from .undo_plan import is_undo, undo_describe

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


def batch_intent(turn: Turn, state: Mapping[str, Any]) -> StructuredIntent:
    batch = turn.grammar.capabilities[state["capability"]].batch
    assert batch is not None
    return StructuredIntent(name=batch.template, slots={batch.ids: list(state["batch"]["ids"])},
                            language=turn.language, text=str(state.get("text", "")), id=uuid.UUID(state["id"]))


def batch_describe(turn: Turn, state: Mapping[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """("avaliar 3 permissão(ões) de trabalho em rascunho", the permits) for the confirmation."""
    if is_undo(state):
        return undo_describe(turn, state)
    cap = turn.grammar.capabilities[state["capability"]]
    assert cap.batch is not None
    chosen = state["batch"]
    action = text(cap.batch, "summary", turn.language, {"count": len(chosen["ids"]), "scope": chosen.get("scope")})
    affected = [{"type": cap.entity, "id": str(i), "label": chosen["labels"].get(str(i), str(i))}
                for i in chosen["ids"]]
    return action, affected
