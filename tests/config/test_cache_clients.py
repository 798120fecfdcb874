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


def test_a_fresh_context_reuses_the_process_connections():
    """A served request runs in a new context, where Django builds a new cache object: it must not
    open a new connection to Redis (it did once per request: 4 % of the web workers' CPU at K=50)."""
    import contextvars

    if not isinstance(caches["default"], RedisCache):
        pytest.skip("the embedded default has no Redis")
    caches["default"].set("cache-clients-probe", 1, 5)  # this context's pool has its connection
    server = caches["default"]._cache.get_client(write=True)
    before = server.info("stats")["total_connections_received"]

    def request():
        backend = caches["default"]
        backend.get("cache-clients-probe")
        return backend, backend._cache.get_client(write=True)

    made = [contextvars.Context().run(request) for _ in range(5)]

    assert len({id(backend) for backend, _ in made}) == 5, "each context has its own cache object"
    assert {id(client) for _, client in made} == {id(server)}
    assert server.info("stats")["total_connections_received"] == before
