"""Per-user and per-tenant turn rate limits: a fixed-window counter in the shared cache (Redis).

Written here rather than with DRF's throttles because those keep a list of timestamps per key
(read-modify-write, racy across processes); an atomic INCR per window is exact under concurrency
and costs one round trip. Limits are settings (AGENT_RATE_USER_PER_MINUTE, AGENT_RATE_TENANT_PER_MINUTE).
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.core.cache import cache

WINDOW_SECONDS = 60


def _hit(key: str, limit: int, window: int) -> int | None:
    """Seconds to wait when `key` is over `limit` in this window, else None."""
    now = time.time()
    bucket = int(now // window)
    cache_key = f"agent:rl:{key}:{bucket}"
    if cache.add(cache_key, 1, timeout=window + 5):
        count = 1
    else:
        try:
            count = cache.incr(cache_key)
        except ValueError:  # expired between add and incr
            cache.set(cache_key, 1, timeout=window + 5)
            count = 1
    if count > limit:
        return max(1, int((bucket + 1) * window - now) + 1)
    return None


def turn_allowed(*, user: Any, tenant: Any) -> int | None:
    """None when the turn may run, else the Retry-After in seconds."""
    user_limit = settings.AGENT_RATE_USER_PER_MINUTE
    tenant_limit = settings.AGENT_RATE_TENANT_PER_MINUTE
    return (_hit(f"u:{tenant.pk}:{user.pk}", user_limit, WINDOW_SECONDS)
            or _hit(f"t:{tenant.pk}", tenant_limit, WINDOW_SECONDS))
