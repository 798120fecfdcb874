"""Per-user and per-tenant turn rate limits: a fixed-window counter in the shared cache (Redis).

Written here rather than with DRF's throttles because those keep a list of timestamps per key
(read-modify-write, racy across processes); an atomic INCR per window is exact under concurrency.
On Redis the windows are counted by one script in one round trip — Django's cache API needs three
per key (add, exists, incr), six per turn. The script stops at the first window over its limit, as
the API path does: a user refused for their own limit spends nothing of the tenant's. Other cache
backends (the embedded default's per-process one) go through that API.
Limits are settings (AGENT_RATE_USER_PER_MINUTE, AGENT_RATE_TENANT_PER_MINUTE).
"""

from __future__ import annotations

import time
from functools import cache as once
from typing import Any

import redis
from django.conf import settings
from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache

WINDOW_SECONDS = 60


# KEYS: the windows in order; ARGV[1]: their lifetime; ARGV[i + 1]: KEYS[i]'s limit.
_COUNT = """
local counts = {}
for i, key in ipairs(KEYS) do
  local n = redis.call('INCR', key)
  if n == 1 then redis.call('EXPIRE', key, ARGV[1]) end
  counts[i] = n
  if n > tonumber(ARGV[i + 1]) then return counts end
end
return counts
"""


@once
def _script() -> Any:
    """The counting script on the cache's own Redis database (clearing the cache clears the windows), or None."""
    # The backend itself: `cache` is a proxy, never an instance of a backend class.
    if not isinstance(caches["default"], RedisCache):
        return None
    return redis.Redis.from_url(settings.CACHES["default"]["LOCATION"]).register_script(_COUNT)


def _counts(limits: dict[str, int], window: int) -> list[int]:
    """The windows' counts after this hit, up to the first over its limit."""
    script = _script()
    if script is None:
        counts = []
        for key, limit in limits.items():
            counts.append(_count(key, window))
            if counts[-1] > limit:
                break
        return counts
    keys = [cache.make_key(key) for key in limits]
    return [int(n) for n in script(keys=keys, args=[window + 5, *limits.values()])]


def _count(cache_key: str, window: int) -> int:
    if cache.add(cache_key, 1, timeout=window + 5):
        return 1
    try:
        return cache.incr(cache_key)
    except ValueError:  # expired between add and incr
        cache.set(cache_key, 1, timeout=window + 5)
        return 1


def turn_allowed(*, user: Any, tenant: Any) -> int | None:
    """None when the turn may run, else the Retry-After in seconds."""
    now = time.time()
    bucket = int(now // WINDOW_SECONDS)
    limits = {f"agent:rl:u:{tenant.pk}:{user.pk}:{bucket}": settings.AGENT_RATE_USER_PER_MINUTE,
              f"agent:rl:t:{tenant.pk}:{bucket}": settings.AGENT_RATE_TENANT_PER_MINUTE}
    counts = _counts(limits, WINDOW_SECONDS)
    if any(count > limit for count, limit in zip(counts, limits.values(), strict=False)):
        return max(1, int((bucket + 1) * WINDOW_SECONDS - now) + 1)
    return None
