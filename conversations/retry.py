"""Retry ("tente de novo", "try again"): a failed operation again (§41), as a new plan.

Before anything is planned again: the operation must be within its context TTL (AGENT_OPERATION_
CONTEXT_TTL_SECONDS), no step of it may have an unknown outcome awaiting review (repeating it could
do it twice), and a target taken from the screen must still be the one on screen. Completed steps
are not repeated: a partly done plan is retried as what is left of it (planning.remaining), and
policy decides on that new plan as on any other (invariant 4). A target that cannot be read because
its service is down (an open breaker, a 5xx) is not "gone": the user is told to try again, and roughly
when (the breaker's open window), instead.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.utils.dateparse import parse_datetime

from execution.envelope import breaker_wait_s
from execution.messages import when_text
from execution.models import Execution, StepRun, StepStatus
from planning.models import PlanStep

from .flow import rest
from .metrics import stale_context_observe, task_retried
from .operations import plan_and_decide
from .statemachine import Status
from .turns import Turn


def retry(turn: Turn) -> None:
    """A failed operation again (§41): re-validated as a new plan; a still-valid soft confirmation of the
    same plan hash is reused, anything stronger is asked again (invariant 4)."""
    operation = turn.conversation.active_operation or {}
    last = turn.conversation.last_result or {}
    failed = turn.resting_before == Status.FAILED or last.get("status") in ("failed", "compensated")
    if not failed or not operation.get("intent"):
        rest(turn)
        return turn.error("NOTHING_PENDING", "nothing.to_retry")
    refusal = _refusal(turn, operation, last)
    if refusal is not None:
        if refusal[0] == "UI_CONTEXT_CHANGED":
            stale_context_observe(reason="selection_changed", at="retry")
        rest(turn)
        return turn.error(*refusal)
    state = dict(operation["intent"])
    state["id"] = str(uuid.uuid4())
    for _name, values in (state.get("slots") or {}).items():
        for value in values:
            entity = value.get("entity")
            if entity and turn.reader.read_capability(str(entity.get("type"))):
                if turn.reader.entity(str(entity.get("type")), value.get("value")) is None:
                    rest(turn)
                    unavailable = _unavailable(turn, str(entity.get("type")), value.get("value"))
                    if unavailable is not None:  # not gone: the service that tells us is down for now
                        return turn.error("SERVICE_UNAVAILABLE", "retry.unavailable", number=value.get("label"),
                                          when=unavailable, **turn.nouns(str(entity.get("type"))))
                    return turn.error("NOT_FOUND", "clarify.entity_not_found", number=value.get("label"),
                                      **turn.nouns(str(entity.get("type"))))
    execution = _execution(turn, operation, last)
    if execution is not None and _wrote(turn, execution):
        state["remaining_of"] = str(execution.pk)  # what it did stays done (operations._plan)
    action = str(operation.get("summary") or "")
    task_retried(turn.conversation)
    plan_and_decide(turn, state, reuse_soft_of=operation.get("confirmation_id"),
                    lead=turn.say("retry.asks_again", action=action) if action else "")


def _unavailable(turn: Turn, entity_type: str, entity_id: Any) -> str | None:
    """When the entity's read failed because its service is unavailable (an open breaker refused it, a
    5xx, a timeout) rather than because it is gone: roughly when to try again, in words; else None."""
    capability, id_field = turn.reader.read_capability(entity_type) or ("", "")
    try:
        read = turn.reader.call(capability, {id_field: int(entity_id)})  # this turn's read, from its cache
    except (TypeError, ValueError):
        return None
    if read.ok or read.not_found or (read.status_code is not None and read.status_code < 500
                                     and read.status_code != 429):
        return None
    spec = turn.snapshot.get(capability, tenant=turn.tenant)
    wait = breaker_wait_s(turn.tenant.pk, spec) if spec is not None and spec.resource else None
    return when_text(wait, turn.language)


def _wrote(turn: Turn, execution: Execution) -> bool:
    done = StepRun.objects.for_tenant(turn.tenant).filter(execution=execution, status=StepStatus.COMPLETED) \
        .values_list("step_id", flat=True)
    return PlanStep.objects.for_tenant(turn.tenant).filter(plan=execution.plan_id, step_id__in=list(done),
                                                           kind="write").exists()


def _execution(turn: Turn, operation: dict[str, Any], last: dict[str, Any]) -> Execution | None:
    execution_id = operation.get("execution_id") or last.get("execution_id")
    if not execution_id:
        return None
    return Execution.objects.for_tenant(turn.tenant).filter(pk=execution_id).first()


def _refusal(turn: Turn, operation: dict[str, Any], last: dict[str, Any]) -> tuple[str, str] | None:
    """(code, template) when the operation may not be tried again as it stands."""
    expires = parse_datetime(str(operation.get("expires_at") or ""))
    if expires is not None and expires <= turn.now:
        return "OPERATION_EXPIRED", "retry.expired"
    execution = _execution(turn, operation, last)
    if execution is not None and execution.needs_review and StepRun.objects.for_tenant(turn.tenant).filter(
            execution=execution, status=StepStatus.UNKNOWN).exists():
        return "NEEDS_REVIEW", "retry.unknown_outcome"
    then = operation.get("ui_snapshot") or {}
    now = (turn.conversation.context or {}).get("selection") or {}
    slots = (operation["intent"].get("slots") or {}).values()
    from_screen = any(v.get("source") in ("ui", "context") for values in slots for v in values)
    if from_screen and then and now and (then.get("type"), str(then.get("id"))) != (now.get("type"),
                                                                                   str(now.get("id"))):
        return "UI_CONTEXT_CHANGED", "retry.context_changed"
    return None
