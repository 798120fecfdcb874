"""Conversation metrics (PRD-010 §51, PRD-006 §40) and the ids every turn's log lines carry (§52).

Labels stay low-cardinality: the turn kind, the response type, fast_path, a fixed signal name —
never a conversation, tenant or user id (those go in the logs, bound below).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import structlog
from prometheus_client import Counter, Histogram

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
    # One line per turn, carrying the bound conversation/tenant/operation ids (§52).
    log.info("turn_answered", kind=kind, outcome=outcome, llm_calls=llm_calls, ms=round(latency_s * 1000, 2))


def turn_operation_ids(conversation: Any) -> dict[str, str]:
    """operationId/intentId once the turn knows them (opened, or carried from an earlier turn)."""
    operation = conversation.active_operation if isinstance(conversation.active_operation, dict) else {}
    intent = conversation.active_intent if isinstance(conversation.active_intent, dict) else {}
    ids = {"operationId": operation.get("operation_id"), "intentId": operation.get("intent_id") or intent.get("id")}
    return {k: str(v) for k, v in ids.items() if v}
