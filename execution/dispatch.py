"""Sending execution's Celery tasks by their registered names, from any layer of the app.

The tasks module is the top of execution (thin tasks calling the engine, the saga, the watchdog),
so nothing below it may import it. Everything that enqueues work looks the task up in the Celery
app's registry by name instead (`current_app.tasks[name]`, registered when execution's AppConfig
imports the tasks module). `send_task` would not do: it ignores CELERY_TASK_ALWAYS_EAGER, which
the embedded default (no REDIS_URL) relies on to run steps in-process.
"""

from __future__ import annotations

from typing import Any

from celery import current_app
from django.db import transaction

from . import publish

RUN_STEP = "execution.run_step"
COMPENSATE = "execution.compensate"


def task(name: str) -> Any:
    return current_app.tasks[name]


def eager() -> bool:
    """The embedded default: tasks run in-process, inside the caller's transaction."""
    return bool(current_app.conf.task_always_eager)


def send_step(execution_id: Any, step_id: str, *, countdown: float | None = None) -> None:
    """Publish a step's task now (the caller has committed what makes it DISPATCHED)."""
    publish.send_soon(task(RUN_STEP), (str(execution_id), step_id), countdown=countdown or None)


def dispatch(execution_id: Any, step_id: str, *, countdown: float = 0) -> None:
    """Send the step's task once the current transaction commits (never before)."""
    transaction.on_commit(lambda: send_step(execution_id, step_id, countdown=countdown))


def dispatch_compensation(execution_id: Any) -> None:
    transaction.on_commit(lambda: task(COMPENSATE).apply_async((str(execution_id),)))


def dispatch_on_queue(execution_id: Any, step_id: str, *, queue: str) -> None:
    """After commit, send the step's task to `queue` (an explicit queue wins over the router)."""
    args = (str(execution_id), step_id)
    transaction.on_commit(lambda: task(RUN_STEP).apply_async(args, queue=queue))
