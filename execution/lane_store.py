"""The shared store of the Adaptive Runtime Controller's lanes (PRD-034 §95-§97): per-lane state
changed by optimistic compare-and-set on a version, concurrency slots as leased tokens (a SIGKILLed
worker's slot expires instead of leaking), and short locks (one watchdog sweep at a time).

Redis (the REDIS_URL's database + 4) when configured, so every Celery worker sees and shapes the
same limits; without REDIS_URL (the embedded default, one process) the same operations run on an
in-process store — correct there, and only there.
"""

from __future__ import annotations

import threading
import time
from functools import lru_cache
from typing import Protocol

from django.conf import settings


class Store(Protocol):
    def get(self, key: str) -> tuple[int, str | None]: ...
    def cas(self, key: str, version: int, value: str) -> bool: ...
    def acquire(self, key: str, token: str, limit: int, lease_s: float, now: float) -> int: ...
    def release(self, key: str, token: str) -> None: ...
    def peak(self, key: str) -> int: ...
    def lock(self, key: str, ttl_s: float) -> bool: ...
    def clear(self, prefix: str) -> None: ...


_CAS = """
local current = redis.call('HGET', KEYS[1], 'v')
if (current or '0') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', tostring(tonumber(ARGV[1]) + 1), 's', ARGV[2])
redis.call('EXPIRE', KEYS[1], 86400)
return 1
"""
_ACQUIRE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
local n = redis.call('ZCARD', KEYS[1])
if n >= tonumber(ARGV[2]) then return -1 end
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
redis.call('EXPIRE', KEYS[1], 3600)
n = n + 1
local peak = tonumber(redis.call('GET', KEYS[2]) or '0')
if n > peak then redis.call('SET', KEYS[2], n, 'EX', 86400) end
return n
"""


class RedisStore:
    def __init__(self, url: str) -> None:
        import redis

        self.client = redis.Redis.from_url(url)
        self._cas = self.client.register_script(_CAS)
        self._acquire = self.client.register_script(_ACQUIRE)

    def get(self, key: str) -> tuple[int, str | None]:
        version, value = self.client.hmget(key, "v", "s")
        return int(version or 0), value.decode() if value else None

    def cas(self, key: str, version: int, value: str) -> bool:
        return bool(self._cas(keys=[key], args=[str(version), value]))

    def acquire(self, key: str, token: str, limit: int, lease_s: float, now: float) -> int:
        # Lease expiry in Redis server time would be nicer; the workers' clocks are the host's here.
        return int(self._acquire(keys=[key, key + ":peak"], args=[token, limit, now, now + lease_s]))

    def release(self, key: str, token: str) -> None:
        self.client.zrem(key, token)

    def peak(self, key: str) -> int:
        return int(self.client.get(key + ":peak") or 0)

    def lock(self, key: str, ttl_s: float) -> bool:
        return bool(self.client.set(key, "1", nx=True, px=int(ttl_s * 1000)))

    def clear(self, prefix: str) -> None:
        keys = list(self.client.scan_iter(match=prefix + "*", count=500))
        if keys:
            self.client.delete(*keys)


class LocalStore:
    """The embedded default's store: one process, a lock and dicts (never shared between processes)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: dict[str, tuple[int, str]] = {}
        self._slots: dict[str, dict[str, float]] = {}
        self._peaks: dict[str, int] = {}
        self._locks: dict[str, float] = {}

    def get(self, key: str) -> tuple[int, str | None]:
        with self._lock:
            version, value = self._values.get(key, (0, None))
            return version, value

    def cas(self, key: str, version: int, value: str) -> bool:
        with self._lock:
            if self._values.get(key, (0, None))[0] != version:
                return False
            self._values[key] = (version + 1, value)
            return True

    def acquire(self, key: str, token: str, limit: int, lease_s: float, now: float) -> int:
        with self._lock:
            slots = {t: exp for t, exp in self._slots.get(key, {}).items() if exp > now}
            if len(slots) >= limit:
                self._slots[key] = slots
                return -1
            slots[token] = now + lease_s
            self._slots[key] = slots
            self._peaks[key] = max(self._peaks.get(key, 0), len(slots))
            return len(slots)

    def release(self, key: str, token: str) -> None:
        with self._lock:
            self._slots.get(key, {}).pop(token, None)

    def peak(self, key: str) -> int:
        return self._peaks.get(key, 0)

    def lock(self, key: str, ttl_s: float) -> bool:
        with self._lock:
            now = time.time()
            if self._locks.get(key, 0) > now:
                return False
            self._locks[key] = now + ttl_s
            return True

    def clear(self, prefix: str) -> None:
        with self._lock:
            for table in (self._values, self._slots, self._peaks, self._locks):
                for key in [k for k in table if k.startswith(prefix)]:
                    table.pop(key)


def runtime_redis_url() -> str | None:
    # settings/services.py owns the database numbers derived from REDIS_URL (this one is n+4)
    return getattr(settings, "RUNTIME_REDIS_URL", None) if getattr(settings, "REDIS_URL", None) else None


@lru_cache(maxsize=1)
def store() -> Store:
    url = runtime_redis_url()
    return RedisStore(url) if url else LocalStore()

