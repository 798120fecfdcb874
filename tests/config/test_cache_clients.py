"""The Redis cache backend keeps one client per connection pool (config/cache.py): Django's builds one per call."""

from __future__ import annotations

import threading

import pytest
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache

from config.cache import SharedClientRedisCache


def test_cache_calls_share_one_client_per_pool_across_threads():
    backend = caches["default"]
    if not isinstance(backend, RedisCache):
        pytest.skip("the embedded default has no Redis")
    assert isinstance(backend, SharedClientRedisCache)
    seen = []

    def call():
        backend.set("cache-clients-probe", 1, 5)
        seen.append(backend._cache.get_client(write=True))

    threads = [threading.Thread(target=call) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len({id(client) for client in seen}) == 1
    assert backend.get("cache-clients-probe") == 1  # and it still reads and writes
