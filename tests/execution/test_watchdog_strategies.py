"""The watchdog's three strategies (issue 19 point 3.3; execution/watchdog.py): a step nobody works
on any more is resumed (its worker died and repeating it is safe), retried (its last outcome is a
known-retryable failure) or escalated (attempts exhausted, or a write whose outcome is unknown):
UNKNOWN, NEEDS_REVIEW, an event for the conversation, a metric — and the execution settles."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import timedelta
from types import SimpleNamespace

import pytest

from events.models import ConversationEvent
from execution import watchdog
from execution.models import Execution, StepRun, TimelineEntry
from execution.services import execution_start
from execution.watchdog import ESCALATE, RECOVERIES, RESUME, RETRY, recovery_for, step_watchdog, watchdog_sweep
from planning.intents import StructuredIntent
from registry.selectors import registry_snapshot
from sst.models import WorkPermit
from tenancy import clock

from .helpers import make_world, permit_target, plan_and_approve

pytestmark = pytest.mark.usefixtures("registry", "eager")
UNAVAILABLE = {"code": "SERVICE_UNAVAILABLE", "class": "TEMPORARY_UNAVAILABLE", "status": 503}


@pytest.fixture
def world(tenant):
    return make_world(tenant)


@pytest.fixture
def orphaned(world, tenant, operator, django_capture_on_commit_callbacks):
    """An update whose worker claimed it and died: `orphan(attempts, error)` leaves it running under
    an expired lease (or, `status="dispatched"`, sent long ago and never received)."""
    intent = StructuredIntent(name="workPermit.updateValidity", slots={"validity_days": 40},
                              targets={"permit": permit_target(world.permit)})
    plan, receipt = plan_and_approve(tenant=tenant, actor=operator, intent=intent, conversation_id=uuid.uuid4())
    with django_capture_on_commit_callbacks(execute=False):  # the message is never delivered
        execution = execution_start(plan=plan, receipt_id=receipt.pk, actor=operator, tenant=tenant)

    def orphan(attempts=1, error=None, status="running"):
        past = clock.now() - timedelta(hours=1)
        StepRun.objects.for_tenant(tenant).filter(execution=execution).update(
            status=status, attempts=attempts, error=error, started_at=past, lease_until=past, dispatched_at=past)
        return execution
    return orphan


def _sweep(capture):
    """One beat; what it sends runs inline, as a worker would run it."""
    with capture(execute=True):
        counts = step_watchdog()
    return counts


def _step(execution) -> StepRun:
    return StepRun.objects.for_tenant(execution.tenant_id).get(execution=execution)


def _entries(execution, type_):
    return list(TimelineEntry.objects.for_tenant(execution.tenant_id).filter(execution=execution, type=type_)
                .values_list("data", flat=True))


def _escalations(reason: str) -> float:
    return RECOVERIES.labels(strategy=ESCALATE, reason=reason)._value.get()


# --- the choice ------------------------------------------------------------------------------------


def _spec(kind="write", idempotent=False, key=True, attempts=3):
    return SimpleNamespace(kind=kind, idempotent=idempotent, honours_idempotency_key=key,
                           retry_policy={"max_attempts": attempts})


@pytest.mark.parametrize(("status", "attempts", "error", "spec", "batch", "expected"), [
    ("running", 1, None, _spec(), False, (RESUME, "LEASE_EXPIRED")),
    ("running", 1, None, _spec(kind="read", key=False), False, (RESUME, "LEASE_EXPIRED")),
    ("dispatched", 1, None, _spec(), False, (RESUME, "MESSAGE_LOST")),
    ("running", 1, None, _spec(key=False), True, (RESUME, "LEASE_EXPIRED")),  # items are the checkpoint
    ("running", 1, UNAVAILABLE, _spec(), False, (RETRY, "RETRYABLE_OUTCOME")),
    ("dispatched", 2, UNAVAILABLE, _spec(), False, (RETRY, "RETRY_NOT_DELIVERED")),
    ("running", 3, None, _spec(), False, (ESCALATE, "ATTEMPTS_EXHAUSTED")),
    ("running", 1, None, _spec(key=False), False, (ESCALATE, "OUTCOME_UNKNOWN")),
    ("running", 1, {"code": "VALIDATION", "class": "VALIDATION"}, _spec(), False, (RESUME, "LEASE_EXPIRED")),
])
def test_the_strategy_follows_what_is_known_of_the_step(status, attempts, error, spec, batch, expected):
    run = SimpleNamespace(status=status, attempts=attempts, error=error)
    recovery = recovery_for(run, spec, batch=batch)
    assert (recovery.strategy, recovery.reason) == expected


# --- what each does --------------------------------------------------------------------------------


def test_a_step_whose_worker_died_is_resumed_once_and_applied_once(
        orphaned, world, tenant, django_capture_on_commit_callbacks):
    execution = orphaned(attempts=1)
    revision = world.permit.revision
    assert _sweep(django_capture_on_commit_callbacks) == {RESUME: 1, RETRY: 0, ESCALATE: 0}
    assert _sweep(django_capture_on_commit_callbacks) == {RESUME: 0, RETRY: 0, ESCALATE: 0}  # recovered once
    execution.refresh_from_db()
    assert (execution.status, execution.needs_review) == ("completed", False)
    world.permit.refresh_from_db()
    assert (world.permit.validity_days, world.permit.revision) == (40, revision + 1)
    (resumed,) = _entries(execution, "EXECUTION_RESUMED")
    assert (resumed["strategy"], resumed["reason"], resumed["by"]) == (RESUME, "LEASE_EXPIRED", "watchdog")


def test_a_step_that_died_retrying_a_503_is_retried_from_the_budget_and_completes(
        orphaned, world, tenant, django_capture_on_commit_callbacks):
    execution = orphaned(attempts=1, error=UNAVAILABLE)
    budget = execution.retry_budget
    assert _sweep(django_capture_on_commit_callbacks)[RETRY] == 1
    execution.refresh_from_db()
    assert execution.status == "completed" and execution.retry_budget == budget - 1
    (retry,) = [e for e in _entries(execution, "RETRY_SCHEDULED") if e.get("by") == "watchdog"]
    assert (retry["reason"], retry["error"]["class"]) == ("RETRYABLE_OUTCOME", "TEMPORARY_UNAVAILABLE")
    assert retry["delay_ms"] > 0  # the policy's backoff, as the engine would schedule it


def test_a_retry_whose_message_never_came_is_sent_again_without_spending_more_budget(
        orphaned, tenant, django_capture_on_commit_callbacks):
    execution = orphaned(attempts=2, error=UNAVAILABLE, status="dispatched")
    budget = execution.retry_budget
    assert _sweep(django_capture_on_commit_callbacks)[RETRY] == 1
    execution.refresh_from_db()
    assert (execution.status, execution.retry_budget) == ("completed", budget)
    assert _step(execution).attempts == 3


def test_a_step_past_its_attempts_is_escalated_for_review_and_the_user_is_told(
        orphaned, world, tenant, django_capture_on_commit_callbacks):
    execution = orphaned(attempts=3, error=UNAVAILABLE)
    before = _escalations("ATTEMPTS_EXHAUSTED")
    assert _sweep(django_capture_on_commit_callbacks)[ESCALATE] == 1
    execution.refresh_from_db()
    step = _step(execution)
    assert (step.status, step.error["code"], step.error["reason"]) == (
        "unknown", "WATCHDOG_ESCALATED", "ATTEMPTS_EXHAUSTED")
    assert step.error["last_error"] == UNAVAILABLE
    assert (execution.status, execution.needs_review) == ("failed", True)
    assert _escalations("ATTEMPTS_EXHAUSTED") == before + 1
    events = ConversationEvent.objects.for_tenant(tenant).filter(conversation_id=execution.conversation_id)
    progress = events.get(type="EXECUTION_PROGRESS", payload__reason="ATTEMPTS_EXHAUSTED")
    assert (progress.payload["status"], progress.payload["needs_review"]) == ("unknown", True)
    assert events.filter(type="EXECUTION_FAILED").exists()
    assert WorkPermit.objects.for_tenant(tenant).get(pk=world.permit.pk).validity_days == 15  # never repeated


def test_a_write_not_safe_to_repeat_that_died_mid_call_is_escalated_never_repeated(
        orphaned, world, tenant, monkeypatch, django_capture_on_commit_callbacks):
    class Unsafe:
        """The registry as if the capability's API did not honour the idempotency key."""

        def __init__(self, real):
            self.real = real

        def get(self, key, tenant=None):
            return replace(self.real.get(key, tenant=tenant), idempotent=False, honours_idempotency_key=False)
    monkeypatch.setattr(watchdog, "registry_snapshot", lambda: Unsafe(registry_snapshot()))
    execution = orphaned(attempts=1)
    assert _sweep(django_capture_on_commit_callbacks)[ESCALATE] == 1
    execution.refresh_from_db()
    assert (_step(execution).error["reason"], execution.needs_review) == ("OUTCOME_UNKNOWN", True)
    assert WorkPermit.objects.for_tenant(tenant).get(pk=world.permit.pk).validity_days == 15


def test_the_beat_runs_both_sweeps(orphaned, django_capture_on_commit_callbacks):
    from execution.control import store

    execution = orphaned(attempts=1)
    store().clear("rt:watchdog")
    with django_capture_on_commit_callbacks(execute=True):
        assert watchdog_sweep() == 1
    assert Execution.objects.for_tenant(execution.tenant_id).get(pk=execution.pk).status == "completed"


def test_a_paused_executions_parked_steps_are_left_to_its_resume(orphaned, tenant, django_capture_on_commit_callbacks):
    from execution.runtime_state import runtime_ensure

    execution = orphaned(attempts=1, status="dispatched")  # parked long ago by a pause
    runtime = runtime_ensure(execution)
    type(runtime).objects.for_tenant(tenant).filter(pk=runtime.pk).update(status="PAUSED")
    assert _sweep(django_capture_on_commit_callbacks) == {RESUME: 0, RETRY: 0, ESCALATE: 0}
    assert _step(execution).status == "dispatched"
