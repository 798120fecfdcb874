"""Sending a step's task to the broker with less work per message than `Task.apply_async`.

Every confirmed plan and every step a worker hands on publishes one message, and `apply_async`
cost ~0.45 ms of the confirm turn against ~0.13 ms for the Redis LPUSH underneath. Celery's own
pieces still do all of the work that matters here:

- its router picks the queue (`CELERY_TASK_ROUTES`, `priority.route_task` included);
- `app.amqp.as_task_v2` builds the protocol-2 message a worker expects (with the parent/root ids
  when a worker sends it, as `send_task` would);
- kombu's `Producer.publish` sends it with the app's publish retry policy (a Redis restart in the
  middle is retried and reconnected, as before).

What is left out: the `AsyncResult` (nothing waits on a step's result), the publish signals (the
project connects none) and the producer pool's acquire/release around every message — each thread
of each process keeps one producer on its own connection, made on first use (threads and forks
never share one). Eager mode (the embedded default) goes through `apply_async`, which runs the task.

`send_soon` is what the engine calls after a commit: the commit already made the step durable as
DISPATCHED (the transactional outbox), so the broker message is only its notification. It is
handed to this process's sender thread, and the request that committed — a confirm turn — answers
without waiting for the Redis round trip (~0.3-0.6 ms of it). A message lost with its process, or
refused by a broker that stays down past the retry policy, is sent again by the watchdog
(execution/watchdog.py: DISPATCHED steps older than the lease), as it was when the publish ran on
the request's thread. `flush()` waits for the queue (tests, benchmarks, process exit).
"""

from __future__ import annotations

import atexit
import os
import queue
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import structlog
from kombu.utils.uuid import uuid

log = structlog.get_logger(__name__)

_local = threading.local()


@dataclass(frozen=True)
class _Publishing:
    """The app's publish settings, read once: Celery's configuration lookups cost more than the LPUSH."""

    serializer: str
    compression: str | None
    retry: bool
    retry_policy: dict[str, Any]
    delivery_mode: int | None


@lru_cache(maxsize=4)
def _publishing(app: Any) -> _Publishing:
    conf = app.conf
    return _Publishing(serializer=conf.task_serializer, compression=conf.task_compression,
                       retry=conf.task_publish_retry, retry_policy=dict(conf.task_publish_retry_policy or {}),
                       delivery_mode=conf.task_default_delivery_mode)


def _producer(app: Any) -> tuple[Any, set[str]]:
    """This thread's producer in this process, and the queues it has declared."""
    if getattr(_local, "pid", None) != os.getpid():
        _local.producer = app.amqp.Producer(app.connection_for_write(), auto_declare=False)
        _local.pid, _local.declared = os.getpid(), set()
    return _local.producer, _local.declared


def _real(task: Any) -> Any:
    """The task itself behind a shared_task proxy (each attribute read through the proxy resolves it)."""
    return task._get_current_object() if hasattr(task, "_get_current_object") else task


def task_send(task: Any, args: tuple[Any, ...], *, countdown: float | None = None, queue: str | None = None) -> str:
    """Publish `task(*args)`; returns the task id."""
    task = _real(task)
    app = task.app
    if app.conf.task_always_eager:
        return task.apply_async(args, countdown=countdown, queue=queue).id
    settings = _publishing(app)
    target = app.amqp.router.route({"queue": queue} if queue else {}, task.name, args, {}, task_type=task)["queue"]
    parent = app.current_worker_task
    root_id = parent_id = None
    if parent is not None:
        root_id, parent_id = parent.request.root_id or parent.request.id, parent.request.id
    task_id = uuid()
    message = app.amqp.as_task_v2(task_id, task.name, args, {}, countdown=countdown, argsrepr=repr(args),
                                  kwargsrepr="{}", root_id=root_id, parent_id=parent_id)
    producer, declared = _producer(app)
    # As send_task_message addresses a direct queue: the anonymous exchange, the queue's name as key;
    # the queue is declared with this producer's first message to it (kombu re-binds it on every call).
    first = target.name not in declared
    producer.publish(
        message.body, exchange="", routing_key=target.name, declare=[target] if first else None,
        serializer=settings.serializer, compression=settings.compression, headers=message.headers,
        retry=settings.retry, retry_policy=settings.retry_policy,
        delivery_mode=target.exchange.delivery_mode or settings.delivery_mode, **message.properties)
    declared.add(target.name)
    return task_id


# --- the sender thread ------------------------------------------------------------------------


class _Sender:
    def __init__(self) -> None:
        self.pid = os.getpid()
        self.queue: queue.Queue[Any] = queue.Queue()
        threading.Thread(target=self._run, name="task-sender", daemon=True).start()

    def _run(self) -> None:
        while True:
            task, args, countdown = self.queue.get()
            try:
                task_send(task, args, countdown=countdown)
            except Exception:  # noqa: BLE001 - the DISPATCHED row stays: the watchdog sends it again
                log.warning("task_send_failed", task=getattr(task, "name", "?"), args=list(args))
            finally:
                self.queue.task_done()


_sender_lock = threading.Lock()
_sender: _Sender | None = None


def _current() -> _Sender:
    global _sender
    with _sender_lock:
        if _sender is None or _sender.pid != os.getpid():  # a forked child starts its own thread
            _sender = _Sender()
        return _sender


def send_soon(task: Any, args: tuple[Any, ...], *, countdown: float | None = None) -> None:
    """After a commit that recorded the step as DISPATCHED: publish from the sender thread (eager: run now)."""
    real = _real(task)
    if real.app.conf.task_always_eager:
        real.apply_async(args, countdown=countdown)
        return
    _current().queue.put((real, args, countdown))


def flush(timeout: float | None = 5.0) -> bool:
    """Wait until every message handed over so far was sent (or `timeout` passed; None: no limit);
    True if drained."""
    sender = _sender
    if sender is None or sender.pid != os.getpid():
        return True
    if timeout is None:
        sender.queue.join()
        return True
    done = threading.Event()
    threading.Thread(target=lambda: (sender.queue.join(), done.set()), daemon=True).start()
    return done.wait(timeout)


atexit.register(flush, 2.0)
