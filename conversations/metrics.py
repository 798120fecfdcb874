"""Conversation metrics (PRD-010 §51, PRD-006 §40) and the ids every turn's log lines carry (§52).

Labels stay low-cardinality: the turn kind, the response type, fast_path, a fixed signal name —
never a conversation, tenant or user id (those go in the logs, bound below).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import structlog
from django.db import transaction
from prometheus_client import Counter, Histogram

from planning.metrics import plan_rejected_by_policy

from .statemachine import Status

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


# --- tasks (§51: task completion, turns per task, failure recovery) ----------------------------
#
# A task is one operation the user asked for (a read, a write, an undo: anything planned for policy and
# the executor; a page opened or a question answered from the state is none), from the turn of the
# request that opened it — a question asked back and its answer included — to its outcome.
# Its record is context["task"] on the conversation row, written under the row lock with the rest
# of the state (conversations.persist): the turns of one task are often served by different
# processes, so nothing of it may live in process memory.

TASKS = Counter("sst_agent_tasks",
                "Tasks settled, by outcome (success, partial, failed, cancelled; replaced by a new request, expired "
                "or abandoned unanswered) and by what settled them: a read-only or a writing execution, or none "
                "(refused, cancelled or replaced before anything ran).", ["outcome", "execution"])
TASK_TURNS = Histogram("sst_agent_turns_per_task",
                       "Turns from the request that opened a task to its settlement (the average is _sum / _count).",
                       ["outcome"], buckets=(1, 2, 3, 4, 5, 6, 8, 10, 15, 20))
FAILURE_RECOVERIES = Counter("sst_agent_failure_recoveries",
                             "Failed or partly failed tasks that a later task of the conversation made good: a retry "
                             "('tente novamente') or a new request that wrote, ending in success. Recovery rate = "
                             "this / sst_agent_tasks_total{outcome=~\"failed|partial\"}.", ["via"])
STALE_CONTEXT = Counter("sst_agent_stale_context_events",
                        "A confirmation, retry or step refused or questioned because what it was prepared on moved on: "
                        "the UI selection (selection_changed), the confirmation on screen (confirmation_replaced) or "
                        "the pinned revision of a target (target_changed).", ["reason", "at"])
INTENT_REPLACEMENTS = Counter("sst_agent_intent_replacements",
                              "A new request superseding the confirmation or the clarification that was on screen.",
                              ["pending"])

STALE_REASONS = frozenset({"selection_changed", "confirmation_replaced", "target_changed"})
STALE_AT = frozenset({"confirm", "retry", "execution"})
_OUTCOME = {Status.SUCCESS: "success", Status.PARTIAL_SUCCESS: "partial", Status.FAILED: "failed",
            Status.CANCELLED: "cancelled"}
# Statuses in which the task waits on the user (a pending row) or on its execution.
_WAITING = {Status.CLARIFICATION_REQUIRED: "pending_clarification",
            Status.CONFIRMATION_REQUIRED: "pending_confirmation"}
_RUNNING = frozenset({Status.EXECUTING, Status.CANCELLING})


def _task(conversation: Any) -> dict[str, Any]:
    """The task record, as a fresh dict assigned back on the row (handlers copy `context` shallowly)."""
    context = dict(conversation.context or {})
    task = dict(context.get("task") or {})
    context["task"] = task
    conversation.context = context
    return task


def _in_progress(conversation: Any) -> bool:
    """Running, or waiting on a pending row — read from the row when the turn holds it (a request that
    superseded the question on screen may leave the status behind), else from its id (no query)."""
    if conversation.status in _RUNNING:
        return True
    name = _WAITING.get(conversation.status)
    if name is None:
        return False
    field = conversation._meta.get_field(name)
    if field.is_cached(conversation):
        pending = getattr(conversation, name)
        return pending is not None and pending.status == "PENDING"
    return getattr(conversation, field.attname) is not None


def _settle(task: dict[str, Any], outcome: str, operation_id: str | None) -> list[Callable[[], None]]:
    """Close the open task: what to observe for it, and the failure streak a success recovers."""
    execution, turns, via = task.get("execution") or "none", int(task.get("turns") or 1), task.get("via")
    observed: list[Callable[[], None]] = [lambda: TASKS.labels(outcome=outcome, execution=execution).inc(),
                                          lambda: TASK_TURNS.labels(outcome=outcome).observe(turns)]
    failures = int(task.get("failures") or 0)
    if outcome in ("failed", "partial"):
        task["failures"] = failures + 1
    elif outcome == "success" and failures and (via == "retry" or execution == "write"):
        observed.append(lambda: FAILURE_RECOVERIES.labels(via=via or "new_request").inc(failures))
        task["failures"] = 0
    for key in ("open", "turns", "via", "execution"):
        task.pop(key, None)
    task["settled"] = operation_id
    return observed


def task_track(conversation: Any, *, turn: bool) -> Callable[[], None]:
    """One write of the conversation's state (conversations.persist): a user's turn counts on the open
    task or opens one; a status that settles the task closes it. Returns what to observe once the
    write commits (nothing is counted for a turn that rolls back or is run again)."""
    task = _task(conversation)
    status = conversation.status
    operation_id = str((conversation.active_operation or {}).get("operation_id") or "") or None
    observed: list[Callable[[], None]] = []
    closing = task.pop("close", None)  # a new request replaced it (task_close): before this turn counts
    if task.get("open") and closing:
        observed += _settle(task, closing, task.get("settled"))
    via = task.pop("next_via", None) if turn else None
    if task.get("open") and turn:
        task["turns"] = int(task.get("turns") or 0) + 1
    fresh = operation_id is not None and operation_id != task.get("settled")
    if turn and not task.get("open") and (_in_progress(conversation) or (status in _OUTCOME and fresh)):
        task.update(open=True, turns=1, via=via or "new_request")
    if task.get("open"):
        if status in _OUTCOME:
            observed += _settle(task, _OUTCOME[status], operation_id)
        elif not _in_progress(conversation):  # nothing pending, nothing running: nobody answered it
            observed += _settle(task, "abandoned" if turn else "expired", operation_id)
    if not task.get("open"):
        task.pop("execution", None)  # noted for a task that did not open: it must not label the next one
    if not task:
        conversation.context.pop("task")  # a conversation that never had one keeps its context as it was
    return lambda: _all(observed)


def _all(observed: list[Callable[[], None]]) -> None:
    for observe in observed:
        observe()


def task_close(conversation: Any, *, outcome: str) -> None:
    """The open task ends before this turn's request: it was replaced, or its pending question expired."""
    task = _task(conversation)
    if task.get("open"):
        task["close"] = outcome


def task_retried(conversation: Any) -> None:
    """This turn's request is a retry of the failed operation (conversations.retry)."""
    _task(conversation)["next_via"] = "retry"


def task_executed(conversation: Any, *, read_only: bool) -> None:
    """The task's execution settled (conversations.hooks): it read only, or it wrote. A read settled in the
    turn that asked it comes before that turn opens its task (task_track): noted all the same."""
    _task(conversation)["execution"] = "read" if read_only else "write"


def intent_replaced(*, pending: str) -> None:
    """A new request superseded the confirmation or clarification on screen (conversations.supersede)."""
    transaction.on_commit(lambda: INTENT_REPLACEMENTS.labels(pending=pending).inc())


def stale_context_observe(*, reason: str, at: str, count: int = 1) -> None:
    """A confirmation, retry or step met a context that moved on since its plan was prepared."""
    if count > 0 and reason in STALE_REASONS and at in STALE_AT:
        transaction.on_commit(lambda: STALE_CONTEXT.labels(reason=reason, at=at).inc(count))
