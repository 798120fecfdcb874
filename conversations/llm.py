"""The LLM intent parser: used only for what the deterministic path could not parse, when an
OpenAI-compatible endpoint is configured (PRD-010 §59, PRD-034 §25-§27, invariant 10).

The model gets the compact context package (§36) and the capabilities the user may discover, and
must answer one JSON object `{"capability": "<id>", "slots": {"<slot>": "<words>"}}`. That answer
is data, validated like user input: the capability must be one the user may use, slot names must
be the capability's, values short strings — and then resolved against the tenant's data by the
same extractor as typed text. Absent, slow, failing or breaker-open → a clarification, never an
invented answer. A small breaker (failure count in the shared cache) keeps a dead endpoint from
slowing every turn down.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import structlog
from django.conf import settings
from django.core.cache import cache

from registry.roles import permissions_for_role

from . import lexicon
from .context_package import context_package
from .explain import explain
from .flow import rest
from .navigation import navigate
from .operations import operate
from .state import situation_for
from .understanding import Extraction, Extractor

log = structlog.get_logger(__name__)

BREAKER_KEY = "agent:llm-intent:failures"
BREAKER_THRESHOLD = 3
BREAKER_OPEN_SECONDS = 30

SYSTEM_PROMPT = (
    "You map a user's message in a workplace-safety app to one capability. Answer only with a JSON object "
    '{"capability": "<one id from the list>", "slots": {"<slot name>": "<the user\'s words for it>"}}. '
    'If none fits, answer {"capability": null}. Never invent ids or values.'
)


class IntentParserUnavailable(RuntimeError):
    pass


def breaker_open() -> bool:
    return int(cache.get(BREAKER_KEY, 0)) >= BREAKER_THRESHOLD


def _failure() -> None:
    if cache.add(BREAKER_KEY, 1, timeout=BREAKER_OPEN_SECONDS):
        return
    try:
        cache.incr(BREAKER_KEY)
    except ValueError:
        cache.set(BREAKER_KEY, 1, timeout=BREAKER_OPEN_SECONDS)


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


def parse_with_llm(turn: Any) -> dict[str, Any] | None:
    """The validated `{capability, slots}` or None; raises IntentParserUnavailable when the LLM cannot answer."""
    if not settings.LLM_BASE_URL:
        raise IntentParserUnavailable("no LLM configured")
    if breaker_open():
        raise IntentParserUnavailable("breaker open")
    catalogue = _catalogue(turn)
    package = context_package(turn)
    payload = {"message": turn.text[:1000], "language": turn.language, "context": package,
               "capabilities": catalogue}
    body = {"model": settings.LLM_MODEL, "temperature": 0, "response_format": {"type": "json_object"},
            "messages": [{"role": "system", "content": SYSTEM_PROMPT},
                         {"role": "user", "content": json.dumps(payload, ensure_ascii=False, default=str)}]}
    headers = {"Authorization": f"Bearer {settings.LLM_API_KEY}"} if settings.LLM_API_KEY else {}
    log.info("llm_context_package", bytes=len(json.dumps(package, default=str)), capabilities=len(catalogue))
    turn.llm_calls += 1
    try:
        response = httpx.post(f"{str(settings.LLM_BASE_URL).rstrip('/')}/chat/completions", json=body,
                              headers=headers, timeout=float(settings.LLM_TIMEOUT_SECONDS))
        response.raise_for_status()
        content = response.json()["choices"][0]["message"]["content"]
        data = json.loads(content)
    except (httpx.HTTPError, KeyError, IndexError, TypeError, ValueError) as exc:
        _failure()
        raise IntentParserUnavailable(type(exc).__name__) from exc
    return _validated(data, {c["id"]: c for c in catalogue})


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
    try:
        parsed = parse_with_llm(turn)
    except IntentParserUnavailable:
        rest(turn)
        turn.reply("clarification", "clarify.llm_unavailable", values={})
        return True
    if parsed is None:
        return False
    turn.fast_path = False
    cap = turn.grammar.capabilities[parsed["capability"]]
    extractor = Extractor(grammar=turn.grammar, reader=turn.reader, situation=situation_for(turn.conversation),
                          text=turn.text, language=turn.language)
    extraction = Extraction()
    for slot in cap.slots:
        words = lexicon.tokens(str(parsed["slots"].get(slot.name, "")))
        probe = extractor.extract(cap, words, only={slot.name}, use_context=not words)
        for key in ("values", "ambiguous", "not_found"):
            getattr(extraction, key).update(getattr(probe, key))
        extraction.missing.extend(m for m in probe.missing if m not in extraction.missing)
    if any(s.type == "knowledgeRef" for s in cap.slots):
        explain(turn, parts)
    elif cap.kind == "navigation":
        navigate(turn, cap, extraction, parts)
    elif cap.kind == "write" or cap.intent == "count":
        operate(turn, cap, extraction, parts)
    else:
        return False
    return True
