"""The conversational LLM's circuit breaker, shared by every process through the Django cache.

Closed: calls go through; failures are counted in a window that restarts after each quiet period.
Open: after `THRESHOLD` failures in the window, no call for `OPEN_SECONDS` counted from the failure
that opened it (not from the first one). Half-open: once that time has passed, exactly one turn
may probe (an atomic `cache.add`); its success closes the breaker, its failure opens it again.

Written here rather than taken from pybreaker: pybreaker keeps its state per process (or in Redis
through its own client), while a turn may run in any process and the embedded default has no
Redis — the Django cache is what every deployment of this app shares. execution/control.py's
breaker is per capability lane and rate-based, for tool calls; this one guards one endpoint.
"""

from __future__ import annotations

import time

from django.core.cache import cache

PREFIX = "agent:llm-intent:breaker"
THRESHOLD = 3
WINDOW_SECONDS = 60
OPEN_SECONDS = 30

_FAILURES, _OPEN_UNTIL, _PROBE = f"{PREFIX}:failures", f"{PREFIX}:open-until", f"{PREFIX}:probe"


def state() -> str:
    """CLOSED, OPEN or HALF_OPEN (the open time has passed; the next caller probes)."""
    until = cache.get(_OPEN_UNTIL)
    if until is None:
        return "CLOSED"
    return "OPEN" if time.time() < float(until) else "HALF_OPEN"


def allow() -> bool:
    """May this turn call the model? In HALF_OPEN only the one turn that takes the probe may."""
    current = state()
    if current == "CLOSED":
        return True
    if current == "OPEN":
        return False
    return cache.add(_PROBE, 1, timeout=OPEN_SECONDS)


def success() -> None:
    cache.delete_many([_FAILURES, _OPEN_UNTIL, _PROBE])


def failure() -> None:
    if state() != "CLOSED":  # the probe failed: open again, for a full period from now
        _open()
        return
    if cache.add(_FAILURES, 1, timeout=WINDOW_SECONDS):
        count = 1
    else:
        try:
            count = cache.incr(_FAILURES)
        except ValueError:  # expired between add and incr
            cache.set(_FAILURES, 1, timeout=WINDOW_SECONDS)
            count = 1
    if count >= THRESHOLD:
        _open()


def _open() -> None:
    # The open-until mark outlives the open period so that HALF_OPEN can be told from CLOSED.
    cache.set(_OPEN_UNTIL, time.time() + OPEN_SECONDS, timeout=OPEN_SECONDS * 20)
    cache.delete_many([_FAILURES, _PROBE])


def reset() -> None:
    success()
