"""The one retry policy of execution (ARCHITECTURE.md invariant 9, PRD-006 §29-§31, PRD-034 §30-§32):
how many attempts a call gets, how long to wait before the next, which error classes retry, and the
execution's retry budget — the same for a single step (record.py) and for a batch item
(batch_item.py) of the same capability.

The capability's `retry` block in the registry says it: `max_attempts` (every attempt counts, the
first included), `backoff` (exponential: initial_ms × multiplier^(attempt-1), capped at max_ms),
`jitter` (none | full: anywhere in [0, delay] | equal: in [delay/2, delay]) and `retryable`, which of
the transient classes it retries. Without a block a capability gets the registry's own default, one
attempt (`registry.manifest.normalize`). Only transient classes ever retry — timeouts, 429, 502-504,
network errors — never validation, auth, not-found, conflict or business-rule errors, whatever a
manifest lists. Every retry also spends one unit of the execution's retry budget, shared by all its
steps and items, so a flapping API cannot turn a plan into a retry storm.

An IDEMPOTENCY_IN_PROGRESS answer is not a failure: another request with the same key is still
running (a dead worker's, until the API lets it go stale after a minute). The call waits for it —
neither an attempt nor the budget is spent — up to `IN_PROGRESS_MAX_WAITS` times.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db.models import F

from .errors import RETRYABLE
from .models import Execution

DEFAULT_MAX_ATTEMPTS = 1  # the registry's default for a capability that declares no `retry`
DEFAULT_BACKOFF = {"initial_ms": 200, "multiplier": 2, "max_ms": 5000}
DEFAULT_JITTER = "full"
TRANSIENT = frozenset(str(c) for c in RETRYABLE)

IN_PROGRESS_CODE = "IDEMPOTENCY_IN_PROGRESS"
IN_PROGRESS_WAIT_S = 2.0
IN_PROGRESS_MAX_WAITS = 45  # × 2 s: beyond the API's 60 s staleness of an abandoned claim


def backoff_s(attempt: int, *, initial_ms: float, multiplier: float, max_ms: float, jitter: str) -> float:
    """The wait after `attempt` (1 = the first call) failed."""
    delay_ms = min(initial_ms * multiplier ** max(0, attempt - 1), max_ms)
    if jitter == "full":
        delay_ms = random.uniform(0, delay_ms)  # noqa: S311 - jitter, not security
    elif jitter == "equal":
        delay_ms = random.uniform(delay_ms / 2, delay_ms)  # noqa: S311 - jitter, not security
    return delay_ms / 1000


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int
    initial_ms: float
    multiplier: float
    max_ms: float
    jitter: str
    retryable: frozenset[str]

    @classmethod
    def of(cls, spec: Any) -> RetryPolicy:
        """The policy of a capability (a registry CapabilitySpec; None: one that is gone, not retried)."""
        declared: Mapping[str, Any] = (spec.retry_policy or {}) if spec is not None else {}
        backoff = {**DEFAULT_BACKOFF, **(declared.get("backoff") or {})}
        listed = declared.get("retryable")
        return cls(max_attempts=int(declared.get("max_attempts", DEFAULT_MAX_ATTEMPTS)),
                   initial_ms=float(backoff["initial_ms"]), multiplier=float(backoff["multiplier"]),
                   max_ms=float(backoff["max_ms"]), jitter=str(declared.get("jitter", DEFAULT_JITTER)),
                   retryable=TRANSIENT & frozenset(listed) if listed else TRANSIENT)

    def retries(self, error_class: Any) -> bool:
        return error_class is not None and str(error_class) in self.retryable

    def allows(self, *, attempts: int, error_class: Any) -> bool:
        """Another attempt after `attempts` (the failed one included) failed with `error_class`."""
        return self.retries(error_class) and attempts < self.max_attempts

    def delay_s(self, attempt: int) -> float:
        return backoff_s(attempt, initial_ms=self.initial_ms, multiplier=self.multiplier, max_ms=self.max_ms,
                         jitter=self.jitter)


def budget_spend(execution: Execution) -> bool:
    """Take one retry from the execution's budget: a conditional UPDATE, so two workers cannot both
    take the last one. False: the budget is spent, the call is not retried."""
    return Execution.objects.for_tenant(execution.tenant_id).filter(pk=execution.pk, retry_budget__gt=0).update(
        retry_budget=F("retry_budget") - 1) == 1


def in_progress_wait(previous: Mapping[str, Any] | None, error: Mapping[str, Any]) -> dict[str, Any] | None:
    """The error to record while waiting out an in-progress key (with the waits so far), or None
    once it waited `IN_PROGRESS_MAX_WAITS` times (then it is a failure like any other)."""
    waits = int((previous or {}).get("in_progress_waits", 0)) + 1
    return {**error, "in_progress_waits": waits} if waits <= IN_PROGRESS_MAX_WAITS else None
