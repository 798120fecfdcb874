"""The console log handler: records are rendered and written by a background thread.

A turn logs one JSON line (`turn_answered`); rendering it (structlog's processors and JSON) and
writing it to stdout cost ~0.3 ms of a confirm turn's ~7 ms on the request thread. The standard
library's `QueueHandler` + `QueueListener` exist for this; what they need here:

- structlog records (`record.msg` a dict) already carry everything bound to the request: the
  context variables were merged by structlog's own chain in the caller's thread, so rendering
  them later, elsewhere, gives the same line. Anything else (stdlib loggers: Django, Celery) is
  rendered in the caller's thread as before, because the formatter's `foreign_pre_chain` merges
  the *current* context variables, which the listener's thread does not have.
- threads do not survive `fork` (Celery's prefork pool): each process starts its own listener on
  its first record; `atexit` drains it, so a clean exit loses no line.
"""

from __future__ import annotations

import atexit
import logging
import logging.handlers
import os
import queue
from typing import Any


class _Rendered(logging.Formatter):
    """Writes what the caller's thread already rendered, renders the rest with the real formatter."""

    def __init__(self, formatter: logging.Formatter | None) -> None:
        super().__init__()
        self.formatter = formatter or logging.Formatter()

    def format(self, record: logging.LogRecord) -> str:
        rendered = getattr(record, "_rendered", None)
        return rendered if rendered is not None else self.formatter.format(record)


# True: write in the caller's thread, as a plain StreamHandler would (the test suite sets it, so a
# test's lines are captured with that test instead of landing, later, between two tests).
SYNCHRONOUS = False


class BackgroundConsoleHandler(logging.handlers.QueueHandler):
    def __init__(self, stream: Any = None) -> None:
        super().__init__(queue.Queue())
        self._console = logging.StreamHandler(stream)
        self._console.setFormatter(_Rendered(None))
        self._pid: int | None = None
        self._listener: logging.handlers.QueueListener | None = None
        atexit.register(self.flush)

    def setFormatter(self, fmt: logging.Formatter | None) -> None:  # noqa: N802 - logging's name
        super().setFormatter(fmt)
        self._console.setFormatter(_Rendered(fmt))

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        if not isinstance(record.msg, dict):  # not structlog's: needs this thread's context now
            record._rendered = self.format(record)
        return record

    def emit(self, record: logging.LogRecord) -> None:
        if SYNCHRONOUS:
            self._console.emit(record)
            return
        super().emit(record)

    def enqueue(self, record: logging.LogRecord) -> None:
        if self._pid != os.getpid():
            self._start()
        self.queue.put_nowait(record)

    def _start(self) -> None:
        self.queue = queue.Queue()  # after a fork the parent's queue has no reader here
        self._listener = logging.handlers.QueueListener(self.queue, self._console)
        self._listener.start()
        self._pid = os.getpid()

    def drain(self) -> None:
        """Wait until every queued record is written, leaving the listener running (benchmarks)."""
        if self._listener is not None and self._pid == os.getpid():
            self.queue.join()

    def flush(self) -> None:
        """Wait until every queued record is written (tests; shutdown). Under the handler's lock,
        which `handle` holds to enqueue: no record lands in a queue whose listener has stopped."""
        with self.lock:
            if self._listener is not None and self._pid == os.getpid():
                self._listener.stop()
                self._listener = None
                self._pid = None
            try:
                self._console.flush()
            except (OSError, ValueError):  # the stream was closed first (interpreter shutdown)
                pass
