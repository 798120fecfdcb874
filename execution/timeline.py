"""Writing the execution timeline (own append-only table) and the conversation-level progress events.

Fine-grained entries (STEP_*, RETRY_SCHEDULED, VERIFICATION_*, COMPENSATION_*) stay in the
execution's timeline; the conversation log gets EXECUTION_STARTED / EXECUTION_PROGRESS (step id,
labels, status, done/total) / EXECUTION_COMPLETED / EXECUTION_FAILED / EXECUTION_CANCELLED, through
`events.services.event_append`, which publishes after commit. Call both inside the transaction of
the transition they describe.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from events.models import Actor
from events.services import event_append
from tenancy import clock

from .models import Execution, TimelineEntry

# state_version: the conversation's version belongs to conversations; execution events carry 0.
STATE_VERSION = 0


def timeline_add(*, execution: Execution, type: str, step_id: str = "",  # noqa: A002
                 data: dict[str, Any] | None = None, at: datetime | None = None) -> TimelineEntry:
    return TimelineEntry.objects.create(tenant_id=execution.tenant_id, execution=execution, type=type,
                                        step_id=step_id, at=at or clock.now(), data=data or {})


def timeline_add_many(*, execution: Execution, step_id: str,
                      entries: Sequence[tuple[str, dict[str, Any], datetime]]) -> None:
    """Several entries of one step in one INSERT, ids in the given order."""
    TimelineEntry.objects.bulk_create([
        TimelineEntry(tenant_id=execution.tenant_id, execution=execution, type=type_, step_id=step_id, at=at,
                      data=data or {}) for type_, data, at in entries])


def conversation_event(*, execution: Execution, type: str, payload: dict[str, Any]) -> None:  # noqa: A002
    if execution.conversation_id is None:
        return
    event_append(tenant=execution.tenant, conversation_id=execution.conversation_id, type=type,
                 actor=Actor.AGENT, state_version=STATE_VERSION,
                 payload={"execution_id": str(execution.pk), **payload}, operation_id=execution.plan_id)
