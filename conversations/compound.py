"""A compound request the model structured ("adicione X e depois aprove", "se estiver vencida, renove",
"crie uma e abra"): its steps become one conversation intent with parts, planned as one plan
(planning.compound via intents.compound_intents) and confirmed once with the whole summary.

The model's steps are data: each capability must be one the user may use (the catalogue), each slot
one of its slots, each value resolved against the tenant's data like typed text (said.extract_said).
A slot whose value is `${steps.<id>.result.id}` is the item an earlier step creates or reads; it is
not resolved now, the planner makes it a step reference. The order, references and conditions are
checked again by the planner; anything it refuses is answered as a plan it could not make.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from . import messages
from .flow import rest
from .intents import intent_state
from .operations import plan_and_decide
from .said import extract_said
from .summary import describe

_RESULT = re.compile(r"^\$\{\s*steps\.([A-Za-z][A-Za-z0-9]{0,15})\.result\.id\s*\}$")


def compound_understand(turn: Any, steps: list[Mapping[str, Any]], catalogue: Mapping[str, Any]) -> bool:
    """Plan the model's steps as one request; False when a step names nothing this user may do."""
    parts = []
    for raw in steps:
        entry = catalogue.get(raw.get("capability"))
        cap = turn.grammar.capabilities.get(raw.get("capability"))
        if entry is None or cap is None:
            return False
        said = {k: str(v)[:200] for k, v in (raw.get("slots") or {}).items() if k in entry["slots"]}
        refs = {k: m.group(1) for k, v in said.items() if (m := _RESULT.match(v.strip()))}
        extraction = extract_said(turn, cap, said, skip=frozenset(refs))
        state = intent_state(capability=cap.id, values=extraction.values, text=turn.text, language=turn.language)
        if not extraction.complete:
            return _incomplete(turn, state, extraction)
        parts.append({"part": str(raw["id"]), "state": state, "depends_on": list(raw.get("depends_on") or []),
                      "refs": refs, "ref_types": {k: cap.slot(k).type for k in refs if cap.slot(k)},
                      "condition": _condition(raw.get("condition"))})
    top = intent_state(capability=parts[-1]["state"]["capability"], values={}, text=turn.text,
                       language=turn.language)
    top["compound"] = parts
    turn.event("INTENT_CREATED", {"intent_id": top["id"], "capability": top["capability"],
                                  "parts": [p["state"]["capability"] for p in parts]})
    plan_and_decide(turn, top)
    return True


def _condition(raw: Any) -> dict[str, Any] | None:
    if not isinstance(raw, Mapping):
        return None
    condition = {"part": str(raw.get("step")), "path": str(raw.get("path") or ""), "op": raw.get("op")}
    if "value" in raw:
        condition["value"] = raw["value"]
    return condition


def _incomplete(turn: Any, state: Mapping[str, Any], extraction: Any) -> bool:
    action, _ = describe(turn, state)
    lacking = [*extraction.missing, *extraction.ambiguous, *extraction.not_found, *extraction.invalid]
    missing = messages.join_list([str(m) for m in dict.fromkeys(lacking)], turn.language)
    question = turn.say("clarify.compound_incomplete", action=action, missing=missing)
    rest(turn)  # no pending clarification: an answer could only complete one step of several
    turn.reply("clarification", "clarify.compound_incomplete", message=question)
    return True
