"""Django's Redis cache backend with one `redis.Redis` client per connection pool.

Django's RedisCacheClient builds a new `redis.Redis` for every cache call, and that constructor fills
about 170 response callbacks each time: ~0.1 ms of CPU per call, and a served turn makes ten or more
cache calls (its token, rate limit, data epochs, the tool calls' tokens) — over 1 ms per turn of
nothing (issue #18). A `redis.Redis` is safe to share between threads (each command takes its own
connection from the pool), so one per pool is kept. Written by hand: it is the one method Django
leaves for a custom client to override, and no kept library fixes it.
"""

from __future__ import annotations

import threading
from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient


class ReusedClients(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}
        self._lock = threading.Lock()

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            with self._lock:
                client = self._clients.get(index)
                if client is None:
                    client = self._client(connection_pool=self._get_connection_pool(write))
                    self._clients[index] = client
        return client


class SharedClientRedisCache(RedisCache):
    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = ReusedClients
