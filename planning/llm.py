"""The LLM planner (PRD-006 §10.2): used only when no template or capability fits the intent and
an LLM is configured (settings LLM_BASE_URL / LLM_MODEL / LLM_API_KEY).

It speaks the OpenAI-compatible chat-completions API with httpx and asks for a JSON object
`{"steps": [...], "allow_partial"?: bool}`. What comes back is data: it is reduced to the step
fields a plan has and validated exactly like a deterministic plan (ARCHITECTURE.md invariant 10).
The model is shown the ACTIVE capabilities the actor may discover (id, description, input schema)
and the resolved intent — never a tenant id, a token or retrieved knowledge as instructions.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import httpx
from django.conf import settings

from registry.selectors import CapabilitySpec

from .intents import StructuredIntent

STEP_FIELDS = ("id", "capability", "input", "depends_on", "for_each", "condition", "postconditions")

SYSTEM_PROMPT = (
    "You plan operations for a workplace-safety application. Answer with one JSON object "
    '{"steps": [{"id", "capability", "input", "depends_on"}], "allow_partial": false}. '
    "Use only the capabilities listed, inputs matching their schemas, and ${steps.<id>.result.<path>} to use "
    "an earlier step's result. Never include tenant or user ids."
)


class LLMUnavailable(RuntimeError):
    """No LLM configured, or it did not answer with a usable JSON object."""


class LLMPlanner(Protocol):
    def plan(self, *, intent: StructuredIntent, capabilities: Sequence[CapabilitySpec]) -> dict[str, Any]: ...


class ChatCompletionsPlanner:
    def __init__(self, *, base_url: str, model: str, api_key: str | None, timeout_s: float) -> None:
        self.base_url, self.model, self.api_key, self.timeout_s = base_url.rstrip("/"), model, api_key, timeout_s

    def plan(self, *, intent: StructuredIntent, capabilities: Sequence[CapabilitySpec]) -> dict[str, Any]:
        catalogue = [{"id": c.id, "kind": c.kind, "description": c.description, "input": c.input_schema}
                     for c in capabilities]
        user = {"intent": intent.name, "text": intent.text, "slots": dict(intent.slots),
                "targets": {k: t.to_dict() for k, t in intent.targets.items()}, "capabilities": catalogue}
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        body = {"model": self.model, "temperature": 0, "response_format": {"type": "json_object"},
                "messages": [{"role": "system", "content": SYSTEM_PROMPT},
                             {"role": "user", "content": json.dumps(user, ensure_ascii=False, default=str)}]}
        try:
            response = httpx.post(f"{self.base_url}/chat/completions", json=body, headers=headers,
                                  timeout=self.timeout_s)
            response.raise_for_status()
            content = response.json()["choices"][0]["message"]["content"]
            data = json.loads(content)
        except (httpx.HTTPError, KeyError, IndexError, TypeError, ValueError) as exc:
            raise LLMUnavailable(str(exc)) from exc
        return sanitize(data)


def sanitize(data: Any) -> dict[str, Any]:
    """Keep only the fields a plan step may have; anything else the model said is dropped."""
    if not isinstance(data, Mapping) or not isinstance(data.get("steps"), list):
        raise LLMUnavailable("the answer has no steps list")
    steps = [{k: s[k] for k in STEP_FIELDS if k in s} for s in data["steps"] if isinstance(s, Mapping)]
    return {"steps": steps, "allow_partial": data.get("allow_partial") is True}


def configured_planner() -> LLMPlanner | None:
    if not settings.LLM_BASE_URL:
        return None
    return ChatCompletionsPlanner(base_url=settings.LLM_BASE_URL, model=settings.LLM_MODEL,
                                  api_key=settings.LLM_API_KEY, timeout_s=float(settings.LLM_TIMEOUT_SECONDS))
