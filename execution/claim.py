"""Claiming a step: the conditional move to `running` (attempts+1, a fresh lease, STEP_STARTED), and
what a task does when its step is held by someone else — wait for the lease, or take over a step
whose holder died (PRD-006 §15-§16).

A step is claimable when pending or dispatched, or running under an expired lease; a completed step
never is. On PostgreSQL outside a transaction the claim is one statement; the ORM path (SQLite, or
inside a caller's transaction) writes the same rows.
"""

from __future__ import annotations

from typing import Any

import structlog
from django.db import transaction
from django.db.models import F, Q

from registry.selectors import registry_version_sql
from tenancy import clock

from . import rows
from .limits import step_lease
from .models import Execution, ExecutionStatus, StepRun, StepStatus, TimelineEntry, TimelineType
from .outcome import Claim
from .rows import fetch_runs, run_columns
from .states import STEP
from .timeline import timeline_add

log = structlog.get_logger(__name__)


# What a claim moves to running: a step not started yet, or (a takeover) one whose holder's lease
# expired. Both the ORM path and the one-statement path put exactly these in their WHERE clause.
_CLAIMABLE = STEP.guard(StepStatus.RUNNING, StepStatus.PENDING, StepStatus.DISPATCHED)
_TAKEN_OVER = STEP.guard(StepStatus.RUNNING, StepStatus.RUNNING)
_STATUS_LIST = ", ".join(f"'{s}'" for s in _CLAIMABLE)


def lease_left(execution: Execution, step_id: str) -> float | None:
    """A redelivered task can arrive just before the dead holder's lease ends: come back then, don't drop it."""
    lease = (StepRun.objects.for_tenant(execution.tenant_id)
             .filter(execution=execution, step_id=step_id, status=StepStatus.RUNNING,
                     execution__status=ExecutionStatus.RUNNING).values_list("lease_until", flat=True).first())
    if lease is None:
        return None
    return max(0.0, (lease - clock.now()).total_seconds()) + 0.5


def adopt_expired(execution: Execution) -> tuple[Claim | None, float | None]:
    """This task's own step is finished: take over a step left running under an expired lease.

    A worker that died while continuing the plan inline from this task's step left that step
    `running`, and its only message is this one (redelivered, unacknowledged). Claim it (the claim
    takes a running step only once its lease expired, so a live holder keeps it); if a lease is
    still live, come back when it ends. Nothing running: nothing to do.
    """
    now = clock.now()
    leases = (StepRun.objects.for_tenant(execution.tenant_id)
              .filter(execution=execution, status=StepStatus.RUNNING, execution__status=ExecutionStatus.RUNNING)
              .order_by("lease_until").values_list("step_id", "lease_until"))
    live = []
    for step_id, lease in leases:
        if lease is not None and lease >= now:
            live.append(lease)
        elif (claim := claim_step(execution, step_id)) is not None:
            log.warning("step_adopted", step=step_id, attempt=claim.run.attempts)
            return claim, None
    return None, (max(0.0, (min(live) - now).total_seconds()) + 0.5 if live else None)


def claim_step(execution: Execution, step_id: str) -> Claim | None:
    """running, attempts+1, a fresh lease and STEP_STARTED, atomically; None when not claimable."""
    now = clock.now()
    if rows.fast_sql():  # one statement is atomic inside a caller's transaction too (a turn's reads)
        return _claim_one_statement(execution, step_id, now)
    with transaction.atomic():
        claimed = (StepRun.objects.for_tenant(execution.tenant_id)
                   .filter(execution=execution, step_id=step_id, execution__status=ExecutionStatus.RUNNING)
                   .filter(Q(status__in=_CLAIMABLE) | Q(status__in=_TAKEN_OVER, lease_until__lt=now))
                   .update(status=StepStatus.RUNNING, attempts=F("attempts") + 1, started_at=now,
                           lease_until=now + step_lease()))
        if claimed != 1:
            return None
        run = StepRun.objects.for_tenant(execution.tenant_id).get(execution=execution, step_id=step_id)
        timeline_add(execution=execution, type=TimelineType.STEP_STARTED, step_id=step_id, at=now,
                     data={"attempt": run.attempts})
    return Claim(run)



# The same conditional UPDATE as the ORM path, and the STEP_STARTED row, in one statement (a single
# statement is atomic in autocommit): one round trip where the ORM path needs five (BEGIN, UPDATE,
# SELECT, INSERT, COMMIT). Hand-written because Django's update() cannot return rows; the ORM path
# above stays the yardstick (SQLite, and a test holds both to the same rows). It also reads the
# registry version `perform` would read next (`registry_snapshot(version)`). Its WHERE clause is the
# transition guard: `_CLAIMABLE`, or running under an expired lease (`_TAKEN_OVER`).
_CLAIM_SQL = f"""
WITH claimed AS (
    UPDATE {StepRun._meta.db_table} AS s
       SET status = %(running)s, attempts = s.attempts + 1, started_at = %(now)s, lease_until = %(lease)s
      FROM {Execution._meta.db_table} AS e
     WHERE s.tenant_id = %(tenant)s AND s.execution_id = %(execution)s AND s.step_id = %(step)s
       AND e.id = s.execution_id AND e.tenant_id = s.tenant_id AND e.status = %(execution_running)s
       AND (s.status IN ({_STATUS_LIST}) OR (s.status = %(running)s AND s.lease_until < %(now)s))
 RETURNING {run_columns("s")}
), started AS (
    INSERT INTO {TimelineEntry._meta.db_table} (tenant_id, execution_id, type, step_id, at, data)
    SELECT tenant_id, execution_id, %(started)s, step_id, %(now)s, jsonb_build_object('attempt', attempts)
      FROM claimed
)
SELECT *, {registry_version_sql()} FROM claimed
"""


def _claim_one_statement(execution: Execution, step_id: str, now: Any) -> Claim | None:
    rows = fetch_runs(_CLAIM_SQL, {
        "running": StepStatus.RUNNING, "now": now, "lease": now + step_lease(), "tenant": execution.tenant_id,
        "execution": execution.pk, "step": step_id, "execution_running": ExecutionStatus.RUNNING,
        "started": TimelineType.STEP_STARTED})
    return Claim(rows[0][0], rows[0][1][0]) if rows else None
