"""Planning metrics (PRD-006 §40): planning latency, plans generated and plans rejected.

`sst_agent_plans_rejected_total{reason}`: `plan_invalid` (validation refused the plan, nothing was
stored) is counted here, where it happens; `policy_deny` (a stored plan the policy engine refused,
at planning or at confirmation) by the conversation runtime's turn metrics, which see the answer.
Labels are fixed words, never plan, intent or tenant ids.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, TypeVar

from prometheus_client import Counter, Histogram

from .exceptions import PlanInvalid

PLANNING_LATENCY = Histogram("sst_agent_planning_seconds", "Intent to validated, stored plan, or to its rejection.",
                             ["outcome"],
                             buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))
PLANS = Counter("sst_agent_plans", "Plans generated (validated and stored), by planner.", ["planner"])
PLANS_REJECTED = Counter("sst_agent_plans_rejected", "Plans rejected: PLAN_INVALID or a policy DENY.", ["reason"])

# plan_from_intent ends in plan_from_steps: only the outermost call of the two observes.
_planning: ContextVar[bool] = ContextVar("sst_agent_planning", default=False)

F = TypeVar("F", bound=Callable[..., Any])


def planning_observed(fn: F) -> F:
    """Decorate a planning entry point: its latency, and the plan it stored or the PlanInvalid it raised."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if _planning.get():
            return fn(*args, **kwargs)
        token = _planning.set(True)
        started = time.perf_counter()
        try:
            plan = fn(*args, **kwargs)
        except PlanInvalid:
            PLANNING_LATENCY.labels(outcome="invalid").observe(time.perf_counter() - started)
            PLANS_REJECTED.labels(reason="plan_invalid").inc()
            raise
        finally:
            _planning.reset(token)
        PLANNING_LATENCY.labels(outcome="created").observe(time.perf_counter() - started)
        PLANS.labels(planner=getattr(plan, "planner", "deterministic")).inc()
        return plan

    return wrapper  # type: ignore[return-value]


def plan_rejected_by_policy() -> None:
    PLANS_REJECTED.labels(reason="policy_deny").inc()
