"""The threads hedged reads run on (envelope._hedged), kept for the life of the process.

A hedged read races two requests, so it runs them on threads other than the caller's. A new thread per
read opened a new PostgreSQL connection for its in-process call (~10 ms: bench/step_dispatch.py) and
issued a new tool token (a thread has its own tool session, execution.runtime.session_for): a worker's
write step paid that twice, for its facts read and for its verification read. Here the threads, their
connections and their sessions are reused; each task first runs `close_old_connections()`, which
honours CONN_MAX_AGE and the health check as a request does. `close_connections()` closes every pool
thread's connection and ends the threads (a test session's end, before its database is dropped).

Written by hand: concurrent.futures has no hook to run something once in each of a pool's threads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from django.db import close_old_connections, connection

# Two requests per hedged read; a worker process runs one step (or a batch's few reads) at a time.
THREADS = 8

_pool: ThreadPoolExecutor | None = None
_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="hedge")
        return _pool


def submit(fn: Callable[[], Any]) -> Future:
    def run() -> Any:
        close_old_connections()
        return fn()

    return _executor().submit(run)


def close_connections() -> None:
    """Close each pool thread's database connection and end the threads; the next submit starts anew."""
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is None:
        return
    barrier = threading.Barrier(THREADS)

    def close() -> None:
        barrier.wait(timeout=30)  # one task per thread: each closes its own connection
        connection.close()

    for _ in range(THREADS):
        pool.submit(close)
    pool.shutdown(wait=True)
