"""Celery tasks: ids in, one engine call. Retries are decided by the engine's classifier (never a
blanket autoretry on mutating steps); `acks_late` + `reject_on_worker_lost` make a task whose
worker died go back to the queue for another worker (config/settings/services.py)."""

from __future__ import annotations

from celery import shared_task
from django.db import close_old_connections


def _fresh_connection(task) -> None:
    # What Django does at each request start; not inline (eager), where the caller's transaction is open.
    if not task.request.is_eager:
        close_old_connections()


@shared_task(name="execution.run_step", acks_late=True, reject_on_worker_lost=True, ignore_result=True, bind=True)
def run_step_task(self, execution_id: str, step_id: str) -> None:
    from .engine import run_step

    _fresh_connection(self)
    wait = run_step(execution_id, step_id)
    if wait is not None and not run_step_task.app.conf.task_always_eager:
        run_step_task.apply_async((execution_id, step_id), countdown=wait)


@shared_task(name="execution.compensate", acks_late=True, reject_on_worker_lost=True,
             ignore_result=True, bind=True)
def compensate_task(self, execution_id: str) -> None:
    from .compensation import compensate

    _fresh_connection(self)
    compensate(execution_id)


@shared_task(name="execution.watchdog", ignore_result=True)
def watchdog_task() -> int:
    from .runtime_state import runtime_watchdog
    from .services import execution_watchdog

    return len(runtime_watchdog()) + execution_watchdog()


@shared_task(name="execution.ping")
def ping_task(value: int) -> int:
    """A bare round trip, the baseline of bench/step_dispatch.py."""
    return value


@shared_task(name="execution.runtime_suggestions", ignore_result=True)
def runtime_suggestions_task() -> int:
    from .learning import suggestions_derive

    return len(suggestions_derive())
