"""Read-only plans run in the thread that started them: in its transaction when the caller asks
(`run_reads_now`), else right after its commit (issue #18, point 1).

A question ("quantas…?", "qual a <campo>…?") or a navigation starts a plan of read steps only.
Sending those through the broker to a worker and polling for the answer cost the turn a broker
round trip, a worker's pick-up and the poll, and under load the queue in front of the worker: at
50 users, questions were answered "Executando…" because the read had not finished within the wait.

Here the request runs the same `engine.run_step` a worker runs — claim, live policy revalidation
with the receipt, the Tool Runtime call with its timeout and breaker, timeline and events, the
completion hook — so nothing of the step's checks or records differs; only the hop is gone. Writes
never come here (`execution_start(inline=)` checks every step's kind).

In the caller's transaction (a conversation turn, which holds its conversation's lock anyway): the
turn writes its plan, receipt and execution, runs the reads, and applies their outcome to its own
conversation before its one save — the execution's completion hooks are not run for it (they would
lock the conversation again to redo the same), and nothing is read back after the commit. The steps
run under a savepoint: should one fail in an unexpected way (a database error), what they wrote is
rolled back and they run after the commit as before, so the turn itself never fails for a read.

The budget: after `EXECUTION_INLINE_READ_MS` of steps run here, the plan's remaining ready
steps go to the broker as any plan's do, and the turn answers "Executando…" if they are not done
within its wait. A step that fails in an unexpected way after the commit (a crash, a lost
connection) is handed to the broker too: its run is DISPATCHED or RUNNING under a lease, which a
worker claims or, once the lease ran out, adopts.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import structlog
from django.conf import settings
from django.db import DatabaseError, transaction

from .dispatch import send_step
from .engine import run_step
from .envelope import IN_REQUEST
from .hooks import outcome_to_caller
from .metrics import log_context

log = structlog.get_logger(__name__)

READ_ONLY_KINDS = frozenset({"read", "navigation"})


def read_only(kinds: Iterable[str]) -> bool:
    kinds = list(kinds)
    return bool(kinds) and all(kind in READ_ONLY_KINDS for kind in kinds)


@dataclass
class _Reads:
    """A read plan's first steps, waiting for the commit unless the caller runs them first."""

    execution_id: str
    step_ids: list[str]
    execution: Any = None  # the row as execution_start wrote it: the first step need not read it
    taken: bool = False


_queued = threading.local()
# Entries of transactions that rolled back are never taken nor run: the oldest go first.
_QUEUE_MAX = 16


def _queue() -> list[_Reads]:
    if not hasattr(_queued, "reads"):
        _queued.reads = []
    return _queued.reads


def run_here_after_commit(execution: Any, step_ids: list[str]) -> None:
    """Once the current transaction commits, run these DISPATCHED steps (and the ones they make
    ready, within the budget) in this thread — unless `run_reads_now` ran them first."""
    reads = _Reads(str(execution.pk), list(step_ids), execution)
    queue = _queue()
    queue.append(reads)
    del queue[:-_QUEUE_MAX]

    def after_commit() -> None:
        _forget(reads)
        if not reads.taken:
            run_here(reads.execution_id, reads.step_ids)

    transaction.on_commit(after_commit)


def _forget(reads: _Reads) -> None:
    queue = _queue()
    if reads in queue:
        queue.remove(reads)


def run_reads_now(execution_id: Any) -> list[Any]:
    """Run the read plan `execution_start(inline=True)` just queued, in the caller's transaction.

    Returns the executions that settled here — their completion hooks are not run: the
    caller applies the outcome itself, in this transaction. Steps left over the budget, and every
    step when one failed in an unexpected way, are sent or run after the commit as before."""
    reads = next((r for r in _queue() if r.execution_id == str(execution_id) and not r.taken), None)
    if reads is None:
        return []
    reads.taken = True
    _forget(reads)
    token = IN_REQUEST.set(True)
    try:
        with outcome_to_caller() as settled, transaction.atomic():
            _run_here(reads.execution_id, reads.step_ids, send=_send_after_commit, reraise=(DatabaseError,),
                      execution=reads.execution)
    except DatabaseError:
        log.exception("inline_read_failed_in_transaction", execution=reads.execution_id)
        transaction.on_commit(lambda: run_here(reads.execution_id, reads.step_ids))
        return []
    finally:
        IN_REQUEST.reset(token)
    return settled


def run_here(execution_id: str, step_ids: list[str]) -> None:
    token = IN_REQUEST.set(True)
    try:
        _run_here(execution_id, step_ids, send=send_step)
    finally:
        IN_REQUEST.reset(token)


def _run_here(execution_id: str, step_ids: list[str], *, send: Any, reraise: tuple[type, ...] = (),
              execution: Any = None) -> None:
    """`reraise`: errors that must reach the caller (in its transaction: it rolls back the steps' writes).
    `execution`: the row as just written, for the first step (the others read it as it is by then)."""
    deadline = time.monotonic() + settings.EXECUTION_INLINE_READ_MS / 1000
    for step_id in step_ids:
        left = deadline - time.monotonic()
        if left <= 0:
            send(execution_id, step_id)
            continue
        try:
            with log_context(executionId=execution_id, stepId=step_id):
                wait = run_step(execution_id, step_id, continue_for=left, execution=execution)
                execution = None
        except reraise:
            raise
        except Exception:  # noqa: BLE001 - a worker finishes what this thread could not
            log.exception("inline_read_failed", execution=execution_id, step=step_id)
            wait = 0.0
        if wait is not None:
            send(execution_id, step_id, countdown=wait)


def _send_after_commit(execution_id: str, step_id: str, *, countdown: float | None = None) -> None:
    transaction.on_commit(lambda: send_step(execution_id, step_id, countdown=countdown))
