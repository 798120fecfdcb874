"""Settling an execution: the one place an execution ends (PRD-006 §21, §32-§33) — its final
status, the timeline entry and the conversation event, the plan's status mirrored, the runtime
mirrored, and the completion hooks run after the settling commit (how conversations learn of it
without execution importing conversations).
"""

from __future__ import annotations

from typing import Any

import structlog
from django.db import transaction
from django.db.models import F, Value

from planning.services import plan_status_move
from tenancy import clock

from . import metrics
from .hooks import hooks_after_commit
from .models import Execution, ExecutionStatus, TimelineType
from .runtime_state import runtime_settle
from .states import EXECUTION
from .timeline import conversation_event, timeline_add

log = structlog.get_logger(__name__)

_EVENT_FOR = {ExecutionStatus.COMPLETED: "EXECUTION_COMPLETED", ExecutionStatus.PARTIALLY_COMPLETED:
              "EXECUTION_COMPLETED", ExecutionStatus.FAILED: "EXECUTION_FAILED",
              ExecutionStatus.COMPENSATED: "EXECUTION_FAILED", ExecutionStatus.CANCELLED: "EXECUTION_CANCELLED"}
_ENTRY_FOR = {ExecutionStatus.COMPLETED: TimelineType.EXECUTION_COMPLETED,
              ExecutionStatus.PARTIALLY_COMPLETED: TimelineType.EXECUTION_PARTIALLY_COMPLETED,
              ExecutionStatus.FAILED: TimelineType.EXECUTION_FAILED,
              ExecutionStatus.COMPENSATED: TimelineType.EXECUTION_COMPENSATED,
              ExecutionStatus.CANCELLED: TimelineType.EXECUTION_CANCELLED}


def plan_status_mirror(execution: Execution, status: str) -> None:
    """The plan shows its execution's status; a plan that cannot follow (a concurrent cancel) is logged."""
    plan = execution.plan
    if plan_status_move(tenant_id=execution.tenant_id, plan_id=plan.pk, status=status):
        plan.status = status
        return
    plan.refresh_from_db(fields=["status"])  # not moved: already there, or somewhere it cannot follow from
    if plan.status != status:
        log.warning("plan_status_not_mirrored", plan=str(plan.pk), status=status, was=plan.status)


def settle(execution: Execution, status: str, *, error: dict[str, Any] | None = None,
           needs_review: bool = False) -> None:
    """The one place an execution ends: status, timeline, conversation event, plan mirror, hooks on commit.

    `execution.status` is the status its caller holds (a locked row, or a saga's COMPENSATING);
    the move must be in the table, and the UPDATE is guarded by every status the table lets reach
    `status`, so a row another writer moved meanwhile is left alone.
    """
    EXECUTION.check(execution.status, status)
    now = clock.now()
    fields: dict[str, Any] = {"status": status, "finished_at": now}
    if error is not None:
        fields["error"] = error
    # The runtime may have asked for human review already (resource gone, budget spent: PRD-034 §67, §116):
    # the row's own flag is kept, in the same statement.
    updated = (Execution.objects.for_tenant(execution.tenant_id)
               .filter(pk=execution.pk, finished_at__isnull=True, status__in=EXECUTION.sources(status))
               .update(**fields, needs_review=Value(True) if needs_review else F("needs_review")))
    if updated != 1:
        return
    for key, value in fields.items():
        setattr(execution, key, value)
    # As the caller read it (under the execution lock on the paths that settle: record.lock_and_record, rows.locked)
    execution.needs_review = needs_review or execution.needs_review
    plan_status_mirror(execution, status)
    runtime_settle(execution=execution, status=status)
    timeline_add(execution=execution, type=_ENTRY_FOR[status], at=now,
                 data={"error": execution.error} if execution.error else {})
    conversation_event(execution=execution, type=_EVENT_FOR[status],
                       payload={"status": status, "error": execution.error, "needs_review": needs_review})
    transaction.on_commit(metrics.EXECUTIONS.labels(status=status).inc)
    hooks_after_commit(execution)
