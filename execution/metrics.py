"""Execution metrics (PRD-006 §40, PRD-010 §51): step latency by capability and outcome, retries,
compensations, executions by final status, and the adaptive controller's per-resource state.

Labels are capability keys, resource names and fixed statuses from the registry and the engine —
never execution, plan or tenant ids (those go in the logs).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import structlog
from prometheus_client import Counter, Gauge, Histogram

STEP_LATENCY = Histogram("sst_agent_step_latency_seconds", "One step attempt, claim to recorded outcome.",
                         ["capability", "outcome"],
                         buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60))
STEP_RETRIES = Counter("sst_agent_step_retries", "Step retries scheduled by the engine's classifier.",
                       ["capability"])
COMPENSATIONS = Counter("sst_agent_compensations", "Compensation runs started for an execution.")
EXECUTIONS = Counter("sst_agent_executions", "Executions settled, by final status.", ["status"])
BREAKER_OPEN = Gauge("sst_agent_breaker_open", "1 when the lane's circuit breaker is open or half-open.",
                     ["capability", "resource"], multiprocess_mode="max")
CONCURRENCY_LIMIT = Gauge("sst_agent_concurrency_limit", "The lane's current adaptive concurrency limit.",
                          ["capability", "resource"], multiprocess_mode="max")


def lane_state_set(*, capability: str, resource: str, breaker: str, limit: int) -> None:
    """The controller's latest state for a lane (this worker's view, §98-§101)."""
    BREAKER_OPEN.labels(capability=capability, resource=resource).set(0 if breaker == "CLOSED" else 1)
    CONCURRENCY_LIMIT.labels(capability=capability, resource=resource).set(limit)


@contextmanager
def log_context(**ids: Any) -> Iterator[dict[str, Any]]:
    """Bind `ids` for the lines logged inside; on exit put back exactly what was bound before.

    Restoring (rather than clearing) matters inline: an eager task runs inside a turn inside a
    request, whose ids must survive it. The yielded dict is the full context to re-bind after an
    in-process tool call, whose request middleware clears the context (see `log_rebind`).
    """
    outer = structlog.contextvars.get_contextvars()
    bound = {**outer, **ids}
    structlog.contextvars.bind_contextvars(**ids)
    try:
        yield bound
    finally:
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(**outer)


def log_rebind(bound: dict[str, Any], **more: Any) -> None:
    """Re-bind a log_context's ids (plus `more`) after work that may have cleared them."""
    bound.update({k: v for k, v in more.items() if v})
    structlog.contextvars.bind_contextvars(**bound)
