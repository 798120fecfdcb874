"""Conversation metrics (PRD-010 §51, PRD-006 §40) and the ids every turn's log lines carry (§52).

Labels stay low-cardinality: the turn kind, the response type, fast_path, a fixed signal name —
never a conversation, tenant or user id (those go in the logs, bound below).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import structlog
from prometheus_client import Counter, Histogram

from planning.metrics import plan_rejected_by_policy

KINDS = frozenset({"message", "confirm", "cancel", "undo", "resume"})
RESPONSE_TYPES = frozenset({"answer", "clarification", "confirmation", "error", "execution", "navigation"})

TURNS = Counter("sst_agent_turns", "Conversation turns answered.", ["kind", "outcome", "fast_path"])
TURN_LATENCY = Histogram("sst_agent_turn_latency_seconds", "Total turn latency, lock to response.", ["kind"],
                         buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))
TURN_LLM_CALLS = Histogram("sst_agent_turn_llm_calls", "LLM calls per turn (0 = fast path).", ["kind"],
                           buckets=(0, 1, 2, 3, 5, 8))
STATE_LATENCY = Histogram("sst_agent_conversation_state_seconds",
                          "Conversation state lookup (row lock) and update (versioned write) latency.", ["op"],
                          buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1))
log = structlog.get_logger(__name__)

SIGNALS = Counter("sst_agent_conversation_signals",
                  "Clarifications, confirmations, cancellations, corrections, undos and retries, by turn kind.",
                  ["signal", "kind"])

# Conversation event type → signal: counted from what the turn recorded, so a "sim" typed as a
# message counts as a confirmation just like the confirm endpoint does.
_SIGNAL_FOR_EVENT = {
    "CLARIFICATION_REQUIRED": "clarification_requested", "CLARIFICATION_RESOLVED": "clarification_resolved",
    "CONFIRMATION_REQUIRED": "confirmation_requested", "CONFIRMATION_RECEIVED": "confirmation_received",
    "EXECUTION_CANCELLED": "cancellation", "CORRECTION_RECEIVED": "correction", "UNDO_REQUESTED": "undo",
    "CONFIRMATION_EXPIRED": "confirmation_expired", "CLARIFICATION_EXPIRED": "clarification_expired",
}


CLARIFICATIONS = Counter("sst_agent_clarifications",
                         "Clarifications asked, by why (ambiguous = several entities matched) and whether the "
                         "question offered candidates to pick from.", ["reason", "candidates"])
REFERENCES = Counter("sst_agent_references",
                     "Entity references a message needed, once per entity type per turn: resolved (from the text, "
                     "the UI selection, the conversation context or the last result), ambiguous, not_found or "
                     "unresolved.", ["outcome", "source"])
REFERENCE_LATENCY = Histogram("sst_agent_reference_resolution_seconds",
                              "Resolving one entity reference of a message, the reads it needs included.", ["outcome"],
                              buckets=(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1))
ABANDONED = Counter("sst_agent_abandoned_pending",
                    "Clarifications and confirmations nobody answered: expired by the TTL sweep (how=expired) or "
                    "given up after repeated unusable answers (how=gave_up).", ["how"])
GRAMMAR_CACHE = Counter("sst_agent_grammar_cache", "grammar_for(): the registry version's grammar reused or built.",
                        ["result"])

# Clarification template → why it was asked. One-shot clarifications (no pending row) are listed
# because they raise no CLARIFICATION_REQUIRED event; a re-asked question is neither.
_CLARIFY_REASON = {"clarify.which": "ambiguous", "clarify.not_found": "not_found", "clarify.missing": "missing",
                   "clarify.missing_entity": "missing", "batch.which": "missing", "clarify.unknown": "not_understood",
                   "clarify.llm_unavailable": "not_understood"}
_ONE_SHOT = frozenset({"clarify.unknown", "clarify.llm_unavailable", "batch.which"})
REFERENCE_SOURCES = frozenset({"text", "ui", "context", "result", "focus", "topic"})


def _clarification_observe(response: Mapping[str, Any], event_types: set[str]) -> None:
    template = str(response.get("template") or "")
    if "CLARIFICATION_REQUIRED" not in event_types and template not in _ONE_SHOT:
        return  # the pending question asked again, not a new clarification
    offered = bool((response.get("clarification") or {}).get("candidates"))
    CLARIFICATIONS.labels(reason=_CLARIFY_REASON.get(template, "other"), candidates=str(offered).lower()).inc()


def reference_observe(*, outcome: str, source: str, seconds: float) -> None:
    """One entity reference of a message and how it ended (conversations.understanding)."""
    source = source if outcome == "resolved" and source in REFERENCE_SOURCES else "none"
    REFERENCES.labels(outcome=outcome, source=source).inc()
    REFERENCE_LATENCY.labels(outcome=outcome).observe(seconds)


def abandoned_observe(*, expired: int) -> None:
    """Pending clarifications/confirmations the TTL sweep expired (conversations.tasks)."""
    if expired > 0:
        ABANDONED.labels(how="expired").inc(expired)


def grammar_cache_observe(*, hit: bool) -> None:
    GRAMMAR_CACHE.labels(result="hit" if hit else "miss").inc()


def turn_observe(*, kind: str, response: Mapping[str, Any] | None, llm_calls: int, latency_s: float,
                 events: list[dict[str, Any]]) -> None:
    kind = kind if kind in KINDS else "other"
    outcome = (response or {}).get("type")
    outcome = outcome if outcome in RESPONSE_TYPES else "other"
    TURNS.labels(kind=kind, outcome=outcome, fast_path=str(llm_calls == 0).lower()).inc()
    TURN_LATENCY.labels(kind=kind).observe(latency_s)
    TURN_LLM_CALLS.labels(kind=kind).observe(llm_calls)
    if kind == "resume":
        SIGNALS.labels(signal="retry", kind=kind).inc()
    for event in events:
        signal = _SIGNAL_FOR_EVENT.get(event.get("type", ""))
        if signal:
            SIGNALS.labels(signal=signal, kind=kind).inc()
    if outcome == "clarification" and response:
        _clarification_observe(response, {event.get("type", "") for event in events})
    error_code = ((response or {}).get("error") or {}).get("code")
    if error_code == "POLICY_DENIED":
        plan_rejected_by_policy()  # PLAN_INVALID is counted by the planner itself
    elif error_code == "CLARIFICATION_ABANDONED":
        ABANDONED.labels(how="gave_up").inc()
    # One line per turn, carrying the bound conversation/tenant/operation ids (§52).
    log.info("turn_answered", kind=kind, outcome=outcome, llm_calls=llm_calls, ms=round(latency_s * 1000, 2))


def turn_operation_ids(conversation: Any) -> dict[str, str]:
    """operationId/intentId once the turn knows them (opened, or carried from an earlier turn)."""
    operation = conversation.active_operation if isinstance(conversation.active_operation, dict) else {}
    intent = conversation.active_intent if isinstance(conversation.active_intent, dict) else {}
    ids = {"operationId": operation.get("operation_id"), "intentId": operation.get("intent_id") or intent.get("id")}
    return {k: str(v) for k, v in ids.items() if v}
