"""Django's Redis cache backend with one `redis.Redis` client per connection pool.

Django's RedisCacheClient builds a new `redis.Redis` for every cache call, and that constructor fills
about 170 response callbacks each time: ~0.1 ms of CPU per call, and a served turn makes ten or more
cache calls (its token, rate limit, data epochs, the tool calls' tokens) — over 1 ms per turn of
nothing (issue #18). A `redis.Redis` is safe to share between threads (each command takes its own
connection from the pool), so one per pool is kept.

And one per process, not per cache object: Django keeps its cache objects per context
(`django.core.cache.caches` is a context-local), and a served request runs in a fresh context, so each
request built a new cache object, a new pool and a new TCP connection to Redis — measured under
bench/served_turns.py at K=50: 4 % of the web workers' CPU in connecting (redis-py reads its own
package metadata for every new connection). Clients are shared by server URL and pool options;
redis-py's pool notices a fork and reconnects in the child. Written by hand: it is the one method
Django leaves for a custom client to override, and no kept library fixes it.
"""

from __future__ import annotations

import threading
from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient

# (server URL, pool options) → the process's one client for it
_CLIENTS: dict[tuple[str, str], Any] = {}
_LOCK = threading.Lock()


class ReusedClients(RedisCacheClient):
    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        index = self._get_connection_pool_index(write)
        shared = (self._servers[index], repr(sorted(self._pool_options.items())))
        client = _CLIENTS.get(shared)
        if client is None:
            with _LOCK:
                client = _CLIENTS.get(shared)
                if client is None:
                    client = self._client(connection_pool=self._get_connection_pool(write))
                    _CLIENTS[shared] = client
        return client


class SharedClientRedisCache(RedisCache):
    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = ReusedClients
