"""Priority and queues (PRD-034 §40-§42): which registered Celery queue a step's task is sent to.

Priority rises by one rule only: the execution's deadline is near (less than `DEADLINE_FRACTION`
of its time budget left). Nothing a user, an intent, a plan or the LLM says is read here, so
"this is CRITICAL" in a message cannot jump a queue (§41). The queues are the ones registered in
settings (`EXECUTION_PRIORITY_QUEUES`, every one also in `CELERY_TASK_QUEUES`, which is what a
worker started without `-Q` consumes). A task may move only between queues registered as
equivalent — the same priority group — and only when its queue is saturated (§42).

Workers take from their queues round-robin (kombu's default for Redis), so a task on the high
queue waits behind its own queue's backlog, not behind the normal queue's.

`route_task` is a Celery router (settings `CELERY_TASK_ROUTES`): every `execution.run_step` sent by
the engine, a resume or the watchdog goes through `queue_for` without the senders knowing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings

from tenancy import clock

from .control import EnvelopeViolation
from .dispatch import dispatch_on_queue
from .limits import default_budget, start_clock_now

NORMAL, HIGH = "normal", "high"
DEADLINE_FRACTION = 0.2
# A queue holding at least this many waiting tasks is saturated: an equivalent one may take the task.
SATURATED = 200
ROUTED_TASKS = frozenset({"execution.run_step"})


def priority_for(*, remaining_s: float | None, total_s: float) -> str:
    """The only rule that raises priority (§40-§41): the deadline is near."""
    if remaining_s is not None and total_s > 0 and remaining_s / total_s < DEADLINE_FRACTION:
        return HIGH
    return NORMAL


def priority_queues() -> Mapping[str, Sequence[str]]:
    """priority → the registered, equivalent queues of that priority (first = preferred)."""
    return settings.EXECUTION_PRIORITY_QUEUES


def time_budget_s() -> float:
    return float(default_budget()["max_duration_s"])


def queue_for(execution: Any, now: datetime, *, backlog: Mapping[str, int] | None = None) -> str:
    """The queue for `execution`'s next task: by the deadline rule, then by saturation among equals.

    Pure: reads only `execution.started_at`, the time budget and the `backlog` it is handed
    (queue → waiting tasks; None when the caller did not measure it)."""
    total = time_budget_s()
    deadline = execution.started_at + timedelta(seconds=total)
    priority = priority_for(remaining_s=(deadline - now).total_seconds(), total_s=total)
    return queue_among(priority_queues()[priority], backlog)


def queue_among(candidates: Sequence[str], backlog: Mapping[str, int] | None) -> str:
    preferred = candidates[0]
    if not backlog or len(candidates) == 1 or backlog.get(preferred, 0) < SATURATED:
        return preferred
    return min(candidates, key=lambda q: (backlog.get(q, 0), candidates.index(q)))


def queue_move(current: str, target: str) -> str:
    """Moving a task from `current` to `target` is allowed only within one registered group (§42)."""
    for group in priority_queues().values():
        if current in group and target in group:
            return target
    raise EnvelopeViolation("QUEUE_NOT_EQUIVALENT", current=current, target=target)


# --- the Celery router ------------------------------------------------------------------------


class _StartedAt:
    """An execution's start never changes: each process reads it once per execution, and the
    process that starts an execution notes it (`started_at_note`), so the router's first decision —
    the start's own dispatch — costs no query."""

    MAX = 4096

    def __init__(self) -> None:
        self._known: dict[str, datetime] = {}

    def __call__(self, execution_id: str) -> datetime | None:
        known = self._known.get(execution_id)
        if known is None:
            from .models import Execution  # the router module is loaded by Celery's settings, maybe before the apps

            known = (Execution.objects.all_tenants().filter(pk=execution_id)
                     .values_list("started_at", flat=True).first())
            if known is not None:
                self.note(execution_id, known)
        return known

    def note(self, execution_id: str, started_at: datetime) -> None:
        self._known[execution_id] = started_at
        if len(self._known) > self.MAX:
            self._known.pop(next(iter(self._known)))

    def cache_clear(self) -> None:
        self._known.clear()


_started_at = _StartedAt()


def started_at_note(execution_id: Any, started_at: datetime) -> None:
    _started_at.note(str(execution_id), started_at)


def _backlog() -> dict[str, int] | None:
    """Waiting tasks per queue (Redis list lengths), measured only when some priority has a choice
    of equivalent queues (by default none has: no round trip)."""
    queues = [q for group in priority_queues().values() if len(group) > 1 for q in group]
    if not queues or not str(settings.CELERY_BROKER_URL).startswith("redis"):
        return None
    import redis

    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    try:
        return {q: int(client.llen(q)) for q in queues}
    finally:
        client.close()


class _Started:
    def __init__(self, started_at: datetime) -> None:
        self.started_at = started_at


def route_task(name: str, args: Sequence[Any], kwargs: Mapping[str, Any], options: Mapping[str, Any],
               task: Any = None, **_: Any) -> dict[str, str] | None:
    """Celery router: `execution.run_step(execution_id, step_id)` → `queue_for` (explicit queues win)."""
    if name not in ROUTED_TASKS or options.get("queue") or not args:
        return None
    started_at = _started_at(str(args[0]))
    if started_at is None:
        return None
    # The rule compares the execution's start with now: both on the clock the start was read on.
    return {"queue": queue_for(_Started(started_at), start_clock_now(), backlog=_backlog())}


def dispatch_parked(execution: Any) -> list[str]:
    """Send the steps a pause parked (dispatched, marked PAUSED) again, after commit, each to the queue
    the rule picks now: a batch resumed close to its deadline goes to the high queue (§40, §42)."""
    from .models import StepRun, StepStatus

    parked = StepRun.objects.for_tenant(execution.tenant_id).filter(
        execution=execution, status=StepStatus.DISPATCHED, error__code="PAUSED")
    step_ids = list(parked.values_list("step_id", flat=True))
    parked.update(dispatched_at=clock.now(), error=None)
    queue = queue_for(execution, start_clock_now(), backlog=_backlog())
    for step_id in step_ids:
        dispatch_on_queue(execution.pk, step_id, queue=queue)
    return step_ids
