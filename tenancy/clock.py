"""The clock every TTL and expiry check reads.

In production it is `timezone.now()`. With the test-control API enabled (`AGENT_TEST_CONTROL`),
`POST /api/_test/clock` may shift it forward for every process at once: the offset lives in the
shared cache (Redis when configured), so a web server and its Celery workers agree on "now".
With test control off the offset is never read, so a stray cache key cannot move production time.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

_OFFSET_KEY = "agent:test-clock-offset-seconds"


def now() -> datetime:
    if not settings.AGENT_TEST_CONTROL:
        return timezone.now()
    return timezone.now() + timedelta(seconds=float(cache.get(_OFFSET_KEY, 0)))


def advance(seconds: float) -> datetime:
    """Move the shared clock forward (test control only; one runner drives it, so no lock)."""
    if not settings.AGENT_TEST_CONTROL:
        raise PermissionError("the clock can only be moved with AGENT_TEST_CONTROL on")
    if seconds < 0:
        raise ValueError("the clock only moves forward")
    cache.set(_OFFSET_KEY, float(cache.get(_OFFSET_KEY, 0)) + seconds, timeout=None)
    return now()


def reset() -> None:
    cache.delete(_OFFSET_KEY)
