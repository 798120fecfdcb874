"""Celery tasks: ids in, one engine call. Retries are decided by the engine's classifier (never a
blanket autoretry on mutating steps); `acks_late` + `reject_on_worker_lost` make a task whose
worker died go back to the queue for another worker (config/settings/services.py)."""

from __future__ import annotations

import time

import structlog
from celery import shared_task
from celery.signals import worker_process_shutdown
from django.db import InterfaceError, OperationalError, connections

from . import publish
from .metrics import log_context

# A connection this process used less than this long ago is not pinged again before the next task.
RECENT_USE_S = 5.0
# How long one task may go on running the plan's next ready step itself (engine.run_step: at most
# half the step lease) before it hands the rest to the broker, so one long plan does not keep a
# worker from the other queued tasks.
INLINE_BUDGET_S = 2.0
_last_task_end = 0.0


@worker_process_shutdown.connect
def _send_what_is_left(**_: object) -> None:
    """A pool process that stops sends the step messages its sender thread still holds."""
    publish.flush(2.0)


def _fresh_connection(task) -> None:
    """What Django does at each request start, minus the ping of a connection used moments ago.

    close_old_connections() makes the next query pay a health check (`SELECT 1`) on every task:
    one round trip per step. The age limit (CONN_MAX_AGE) and the error check are kept; only the
    ping is skipped while the connection served a task in the last RECENT_USE_S seconds. Should it
    have died anyway, the first query raises, the task is retried (`autoretry_for` below: steps
    are safe to run again — the claim is conditional) and the errored connection is checked then.
    Not inline (eager), where the caller's transaction is open.
    """
    if task.request.is_eager:
        return
    recent = time.monotonic() - _last_task_end < RECENT_USE_S
    for conn in connections.all(initialized_only=True):
        conn.close_if_unusable_or_obsolete()
        if recent and conn.connection is not None and not conn.errors_occurred:
            conn.health_check_done = True


def _used() -> None:
    global _last_task_end
    _last_task_end = time.monotonic()


_CONNECTION_LOST = {"autoretry_for": (InterfaceError, OperationalError), "max_retries": 3,
                    "retry_backoff": 0.2, "retry_jitter": True}


@shared_task(name="execution.run_step", acks_late=True, reject_on_worker_lost=True, ignore_result=True, bind=True,
             **_CONNECTION_LOST)
def run_step_task(self, execution_id: str, step_id: str) -> None:
    from .engine import run_step

    _fresh_connection(self)
    if not self.request.is_eager:
        structlog.contextvars.clear_contextvars()  # many tasks share this process: start from nothing
    # Restores what was bound before on exit: inline (eager) the caller's request and turn ids stay.
    with log_context(executionId=str(execution_id), stepId=str(step_id)):
        try:
            # Inline (eager, the embedded default) every step stays a task of its own, as before.
            wait = run_step(execution_id, step_id, continue_for=0.0 if self.request.is_eager else INLINE_BUDGET_S)
        finally:
            _used()
    if wait is not None and not run_step_task.app.conf.task_always_eager:
        run_step_task.apply_async((execution_id, step_id), countdown=wait)


@shared_task(name="execution.compensate", acks_late=True, reject_on_worker_lost=True,
             ignore_result=True, bind=True, **_CONNECTION_LOST)
def compensate_task(self, execution_id: str) -> None:
    from .compensation import compensate
    from .metrics import COMPENSATIONS

    _fresh_connection(self)
    if not self.request.is_eager:
        structlog.contextvars.clear_contextvars()
    COMPENSATIONS.inc()
    with log_context(executionId=str(execution_id)):
        try:
            compensate(execution_id)
        finally:
            _used()


@shared_task(name="execution.watchdog", ignore_result=True)
def watchdog_task() -> int:
    from .watchdog import watchdog_sweep

    return watchdog_sweep()


@shared_task(name="execution.ping")
def ping_task(value: int) -> int:
    """A bare round trip, the baseline of bench/step_dispatch.py."""
    return value


@shared_task(name="execution.runtime_suggestions", ignore_result=True)
def runtime_suggestions_task() -> int:
    from .learning import suggestions_derive

    return len(suggestions_derive())
