"""The LLM intent parser: used only for what the deterministic path could not parse, when an
OpenAI-compatible endpoint is configured (PRD-010 §59, PRD-034 §25-§27, invariant 10).

The model gets the compact context package (§36) and the capabilities the user may discover, and
answers with structured output (a JSON schema built from the registry, `answer_schema`): either one
capability with the user's words per slot, or a compound request — steps, references from a step
to an earlier one's result, and conditions (conversations.compound). That answer is data, validated
like user input: capabilities the user may use, slot names of the capability, short string values —
then resolved against the tenant's data by the same extractor as typed text. Absent, slow, failing
or breaker-open → a clarification, never an invented answer.

The call never runs under the conversation lock: a turn that needs the model raises `ModelNeeded`
(its transaction rolls back, nothing written), services asks the model with no transaction and no
connection held (`model_ask`), then runs the turn again with the answer; if the conversation moved
on meanwhile, the answer is dropped and the model asked again (services.conversation_turn).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import httpx
import jsonschema
import structlog
from django.conf import settings

from planning.conditions import OPS
from registry.roles import permissions_for_role

from . import llm_breaker
from .compound import compound_understand
from .context_package import context_package
from .explain import explain
from .flow import rest
from .navigation import navigate
from .operations import operate
from .said import extract_said

log = structlog.get_logger(__name__)

SYSTEM_PROMPT = (
    "You map a user's message in a workplace-safety app to the capabilities listed. Answer only with a JSON "
    'object. One action: {"capability": "<id>", "slots": {"<slot name>": "<the user\'s words for it>"}}. '
    'Several actions, in order: {"steps": [{"id": "s1", "capability": "<id>", "slots": {...}, '
    '"depends_on": ["<earlier id>"], "condition": {"step": "<earlier id>", "path": "<field of its result>", '
    '"op": "<op>", "value": <value>}}]}; a slot that is the item an earlier step creates or reads is '
    '"${steps.<id>.result.id}". If nothing fits, answer {"capability": null}. Never invent ids or values.'
)
_SLOTS = {"type": "object", "maxProperties": 12, "additionalProperties": {"type": ["string", "integer"]}}


class ModelNeeded(Exception):  # noqa: N818 - a signal to services, not an error
    """This turn needs the model: ask it outside the lock, then run the turn again with the answer."""

    def __init__(self, body: dict[str, Any], version: int) -> None:
        super().__init__("model needed")
        self.body, self.version = body, version


@dataclass(frozen=True)
class ModelAnswer:
    version: int  # the conversation version the model was asked about
    data: Any = None
    error: str | None = None


def _catalogue(turn: Any) -> list[dict[str, Any]]:
    permissions = permissions_for_role(turn.role_name())
    out = []
    for spec in turn.snapshot.discoverable_for(tenant=turn.tenant, role=turn.role_name()):
        cap = turn.grammar.capabilities.get(spec.id)
        if cap is None or not spec.permitted_for(permissions):
            continue
        out.append({"id": spec.id, "description": spec.description,
                    "slots": [s.name for s in cap.slots if s.type != "knowledgeRef"]})
    return out


def answer_schema(ids: list[str]) -> dict[str, Any]:
    """The structured output the model must give, built from the capabilities this user may use."""
    step = {"type": "object", "required": ["id", "capability"], "additionalProperties": False, "properties": {
        "id": {"type": "string", "pattern": "^[A-Za-z][A-Za-z0-9]{0,15}$"},
        "capability": {"enum": ids}, "slots": _SLOTS,
        "depends_on": {"type": "array", "maxItems": 6, "items": {"type": "string"}},
        "condition": {"type": "object", "required": ["step", "op"], "additionalProperties": False, "properties": {
            "step": {"type": "string"}, "path": {"type": "string", "maxLength": 100},
            "op": {"enum": sorted(OPS)}, "value": {}}}}}
    return {"type": "object", "properties": {
        "capability": {"enum": [*ids, None]}, "slots": _SLOTS,
        "steps": {"type": "array", "minItems": 1, "maxItems": 6, "items": step}}}


def model_request(turn: Any) -> ModelNeeded | None:
    """What to ask the model for this turn, or None when no model may be asked (a clarification then)."""
    if not llm_breaker.allow():
        return None
    catalogue = _catalogue(turn)
    package = context_package(turn)
    payload = {"message": turn.text[:1000], "language": turn.language, "context": package,
               "capabilities": catalogue}
    log.info("llm_context_package", bytes=len(json.dumps(package, default=str)), capabilities=len(catalogue))
    schema = answer_schema([c["id"] for c in catalogue])
    body = {"model": settings.LLM_MODEL, "temperature": 0,
            "response_format": {"type": "json_schema",
                                "json_schema": {"name": "intent", "schema": schema, "strict": False}},
            "messages": [{"role": "system", "content": SYSTEM_PROMPT},
                         {"role": "user", "content": json.dumps(payload, ensure_ascii=False, default=str)}]}
    return ModelNeeded(body, turn.read_version)


def model_ask(need: ModelNeeded) -> ModelAnswer:
    """The HTTP call, made by services with no transaction open and no connection held."""
    headers = {"Authorization": f"Bearer {settings.LLM_API_KEY}"} if settings.LLM_API_KEY else {}
    try:
        response = httpx.post(f"{str(settings.LLM_BASE_URL).rstrip('/')}/chat/completions", json=need.body,
                              headers=headers, timeout=float(settings.LLM_TIMEOUT_SECONDS))
        response.raise_for_status()
        data = json.loads(response.json()["choices"][0]["message"]["content"])
    except (httpx.HTTPError, KeyError, IndexError, TypeError, ValueError) as exc:
        llm_breaker.failure()
        return ModelAnswer(need.version, error=type(exc).__name__)
    llm_breaker.success()
    try:
        jsonschema.validate(data, need.body["response_format"]["json_schema"]["schema"])
    except jsonschema.ValidationError as exc:
        log.warning("llm_answer_invalid", error=exc.message[:200])
        return ModelAnswer(need.version, data=None)
    return ModelAnswer(need.version, data=data)


def _validated(data: Any, catalogue: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    if not isinstance(data, dict) or not isinstance(data.get("capability"), str):
        return None
    entry = catalogue.get(data["capability"])
    if entry is None:
        return None
    slots = data.get("slots") if isinstance(data.get("slots"), dict) else {}
    clean = {name: str(value)[:200] for name, value in slots.items()
             if name in entry["slots"] and isinstance(value, str | int) and not isinstance(value, bool)}
    return {"capability": entry["id"], "slots": clean}


def llm_understand(turn: Any, parts: list[str]) -> bool:
    """Try the LLM; True when the turn was answered (by an intent or by a clarification)."""
    if not settings.LLM_BASE_URL:
        return False
    answer = turn.model_answer
    if answer is None:
        need = model_request(turn)
        if need is not None:
            raise need
    if answer is not None:
        turn.llm_calls += 1
    if answer is None or answer.error:
        rest(turn)
        turn.reply("clarification", "clarify.llm_unavailable", values={})
        return True
    catalogue = {c["id"]: c for c in _catalogue(turn)}
    if isinstance(answer.data, dict) and answer.data.get("steps"):
        turn.fast_path = False
        return compound_understand(turn, answer.data["steps"], catalogue)
    parsed = _validated(answer.data, catalogue)
    if parsed is None:
        return False
    turn.fast_path = False
    cap = turn.grammar.capabilities[parsed["capability"]]
    extraction = extract_said(turn, cap, parsed["slots"])
    if any(s.type == "knowledgeRef" for s in cap.slots):
        explain(turn, parts)
    elif cap.kind == "navigation":
        navigate(turn, cap, extraction, parts)
    elif cap.kind == "write" or cap.intent == "count":
        operate(turn, cap, extraction, parts)
    else:
        return False
    return True
