"""kombu's Redis transport, reusing one redis client per channel for publishing.

Written by hand because kombu builds a new `redis.Redis` for every publish (`conn_or_acquire` →
`_create_client`) and redis-py builds its ~170 response callbacks for each one: about a quarter of
a task publish's CPU. The client holds no connection of its own (each command borrows one from the
channel's pool), so reusing it is how redis-py means it to be used; a channel is used by one
publisher at a time (Celery's producer pool). Selected with `CELERY_BROKER_TRANSPORT`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kombu.transport import redis as kombu_redis


class Channel(kombu_redis.Channel):
    _publishing_client: Any = None

    @contextmanager
    def conn_or_acquire(self, client: Any = None) -> Iterator[Any]:
        if client:
            yield client
            return
        if self._publishing_client is None:
            self._publishing_client = self._create_client()
        yield self._publishing_client


class Transport(kombu_redis.Transport):
    Channel = Channel
