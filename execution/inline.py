"""Read-only plans run in the thread that started them, right after its commit (issue #18, point 1).

A question ("quantas…?", "qual a <campo>…?") or a navigation starts a plan of read steps only.
Sending those through the broker to a worker and polling for the answer cost the turn a broker
round trip, a worker's pick-up and the poll, and under load the queue in front of the worker: at
50 users, questions were answered "Executando…" because the read had not finished within the wait.

Here the request runs the same `engine.run_step` a worker runs — claim, live policy revalidation
with the receipt, the Tool Runtime call with its timeout and breaker, timeline and events, the
completion hook — so nothing of the step's checks or records differs; only the hop is gone. Writes
never come here (`execution_start(inline=)` checks every step's kind).

The budget: after `EXECUTION_INLINE_READ_MS` of steps run here, the plan's remaining ready
steps go to the broker as any plan's do, and the turn answers "Executando…" if they are not done
within its wait. A step that fails in an unexpected way here (a crash, a lost connection) is handed
to the broker too: its run is DISPATCHED or RUNNING under a lease, which a worker claims or, once
the lease ran out, adopts.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

import structlog
from django.conf import settings
from django.db import transaction

from .dispatch import send_step
from .engine import run_step
from .envelope import IN_REQUEST
from .metrics import log_context

log = structlog.get_logger(__name__)

READ_ONLY_KINDS = frozenset({"read", "navigation"})


def read_only(kinds: Iterable[str]) -> bool:
    kinds = list(kinds)
    return bool(kinds) and all(kind in READ_ONLY_KINDS for kind in kinds)


def run_here_after_commit(execution_id: Any, step_ids: list[str]) -> None:
    """Once the current transaction commits, run these DISPATCHED steps (and the ones they make
    ready, within the budget) in this thread."""
    transaction.on_commit(lambda: run_here(str(execution_id), list(step_ids)))


def run_here(execution_id: str, step_ids: list[str]) -> None:
    token = IN_REQUEST.set(True)
    try:
        _run_here(execution_id, step_ids)
    finally:
        IN_REQUEST.reset(token)


def _run_here(execution_id: str, step_ids: list[str]) -> None:
    deadline = time.monotonic() + settings.EXECUTION_INLINE_READ_MS / 1000
    for step_id in step_ids:
        left = deadline - time.monotonic()
        if left <= 0:
            _to_broker(execution_id, step_id)
            continue
        try:
            with log_context(executionId=execution_id, stepId=step_id):
                wait = run_step(execution_id, step_id, continue_for=left)
        except Exception:  # noqa: BLE001 - the turn has committed; a worker finishes what this thread could not
            log.exception("inline_read_failed", execution=execution_id, step=step_id)
            wait = 0.0
        if wait is not None:
            _to_broker(execution_id, step_id, countdown=wait)


def _to_broker(execution_id: str, step_id: str, *, countdown: float | None = None) -> None:
    send_step(execution_id, step_id, countdown=countdown)
