"""Publishing committed events to the channel layer without making the writer wait for Redis.

Written by hand because neither channels nor channels-redis offers a synchronous, fire-and-forget
`group_send`: `async_to_sync(layer.group_send)` from code without an event loop (a Celery worker,
a management command, a turn run in-process) starts a new loop per call, and channels-redis keeps
its connections per loop, so every publication paid a loop start and a Redis connect (~3 ms each,
three or four per turn). Here one daemon thread per process owns one loop and drains a FIFO queue:
publications keep their order, reuse the layer's connections, and the turn that committed the
events returns without waiting for them.

Best effort by design (events/services.py): the table is the source of truth and consumers fill a
gap by `seq`, so a publication lost with its process is caught up on the next delivery or replay.
The in-memory layer (the embedded default) is bound to the loop that reads it, so it is published
inline as before; `flush()` waits for the queue (tests, process exit).
"""

from __future__ import annotations

import asyncio
import atexit
import os
import queue
import threading
from typing import Any

import structlog
from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer

log = structlog.get_logger(__name__)

_STOP = object()


class _Publisher:
    def __init__(self) -> None:
        self.pid = os.getpid()
        self.queue: queue.Queue[Any] = queue.Queue()
        self.thread = threading.Thread(target=self._run, name="event-publisher", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        while True:
            item = self.queue.get()
            try:
                if item is _STOP:
                    return
                loop.run_until_complete(_send(*item))
            finally:
                self.queue.task_done()

    def flush(self, timeout: float) -> None:
        done = threading.Event()
        threading.Thread(target=lambda: (self.queue.join(), done.set()), daemon=True).start()
        done.wait(timeout)


async def _send(layer: Any, messages: list[tuple[str, dict[str, Any]]]) -> None:
    for group, message in messages:
        try:
            await layer.group_send(group, message)
        except Exception:  # noqa: BLE001 - the committed event stays the source of truth
            log.warning("event_publish_failed", group=group, seq=message.get("event", {}).get("seq"))


_lock = threading.Lock()
_publisher: _Publisher | None = None


def _current() -> _Publisher:
    """The process's publisher; a forked child (Celery prefork) starts its own thread."""
    global _publisher
    with _lock:
        if _publisher is None or _publisher.pid != os.getpid():
            _publisher = _Publisher()
        return _publisher


def publish(messages: list[tuple[str, dict[str, Any]]]) -> None:
    """Send (group, message) pairs in order, after the caller's commit (never raises)."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return
    if isinstance(layer, InMemoryChannelLayer):
        async_to_sync(_send)(layer, messages)
        return
    _current().queue.put((layer, messages))


def flush(timeout: float = 5.0) -> None:
    """Wait until what was handed over so far has been sent (or `timeout` passes)."""
    if _publisher is not None and _publisher.pid == os.getpid():
        _publisher.flush(timeout)


atexit.register(flush, 2.0)
