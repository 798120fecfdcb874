"""PAUSED (PRD-034 §44, §50-§51): a supervisor pauses a running batch — no new item starts, the batch
steps park and free their worker — and resume continues from the checkpoint after re-validating it.

Inline (eager) on PostgreSQL and Redis; the same on real worker processes in test_batch_worker.py."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission
from django.utils import timezone

from events.models import ConversationEvent
from execution.models import BatchItem, RuntimeExecution, StepRun, TimelineEntry
from execution.runtime_control import RuntimeControlError, runtime_pause, runtime_resume
from execution.runtime_state import runtime_transition
from execution.services import execution_start
from execution.watchdog import runtime_watchdog
from policy.models import AuditEvent
from policy.services import kill_switch_lift, kill_switch_set
from sst.models import PermitEvaluation

from .batch_helpers import batch_plan, duplicate_effects, lanes, make_batch_world  # noqa: F401

pytestmark = pytest.mark.usefixtures("registry", "eager", "lanes")


@pytest.fixture
def started(tenant, operator, django_capture_on_commit_callbacks):
    """A batch execution whose first steps are dispatched but whose tasks have not run yet."""
    ids = make_batch_world(tenant, 6)
    plan, receipt = batch_plan(tenant=tenant, actor=operator, ids=ids, conversation_id=uuid.uuid4())
    with django_capture_on_commit_callbacks(execute=False) as sent:
        execution = execution_start(plan=plan, receipt_id=receipt.pk, actor=operator, tenant=tenant)
    return execution, sent


def _deliver(callbacks, capture):
    """Run the tasks that were sent (and whatever they send in turn) inline."""
    with capture(execute=True):
        for callback in list(callbacks):
            callback()


def test_a_paused_batch_starts_no_item_and_parks_its_steps_then_resume_finishes_it(
        started, tenant, supervisor, django_capture_on_commit_callbacks):
    execution, sent = started
    runtime = runtime_pause(execution_id=execution.pk, tenant=tenant, actor=supervisor, reason="maintenance")
    assert runtime.status == "PAUSED"
    _deliver(sent, django_capture_on_commit_callbacks)  # the workers pick the steps up while paused

    runs = {r.step_id: r for r in StepRun.objects.for_tenant(tenant).filter(execution=execution)}
    parked = {sid for sid, r in runs.items() if r.status == "dispatched" and (r.error or {}).get("code") == "PAUSED"}
    assert parked == {"training", "risk", "compliance"} and runs["decision"].status == "pending"
    assert not BatchItem.objects.for_tenant(tenant).filter(execution=execution).exclude(status="pending").exists()
    assert not PermitEvaluation.objects.for_tenant(tenant).exists()
    execution.refresh_from_db()
    assert execution.status == "running"
    assert TimelineEntry.objects.for_tenant(tenant).filter(execution=execution, type="EXECUTION_PAUSED").exists()
    assert ConversationEvent.objects.for_tenant(tenant).filter(conversation_id=execution.conversation_id,
                                                               type="EXECUTION_PAUSED").exists()

    with django_capture_on_commit_callbacks(execute=True):
        resumed = runtime_resume(execution_id=execution.pk, tenant=tenant, actor=supervisor)
    assert resumed.status in ("RUNNING", "COMPLETED", "DEGRADED")
    execution.refresh_from_db()
    assert execution.status == "completed", execution.error
    assert PermitEvaluation.objects.for_tenant(tenant).count() == 6 and duplicate_effects(tenant) == 0
    resumed_entry = TimelineEntry.objects.for_tenant(tenant).filter(execution=execution,
                                                                    type="EXECUTION_RESUMED").first()
    assert resumed_entry.data["checkpoint"] == "valid"
    events = set(AuditEvent.objects.for_tenant(tenant).filter(target_id=str(execution.pk))
                 .values_list("event_type", flat=True))
    assert {"runtime.paused", "runtime.resumed"} <= events


def test_only_a_supervisor_admin_or_runtime_admin_of_the_tenant_may_pause(
        started, tenant, operator, viewer, other_user, other_tenant):
    execution, _ = started
    for actor, code in ((operator, "NOT_ALLOWED"), (viewer, "NOT_ALLOWED")):
        with pytest.raises(RuntimeControlError) as caught:
            runtime_pause(execution_id=execution.pk, tenant=tenant, actor=actor)
        assert caught.value.code == code
    with pytest.raises(RuntimeControlError) as caught:  # another tenant's supervisor: not found in their tenant
        runtime_pause(execution_id=execution.pk, tenant=other_tenant, actor=other_user)
    assert caught.value.code == "NOT_FOUND"
    operator.user_permissions.add(Permission.objects.get(codename="runtime_admin", content_type__app_label="policy"))
    from django.contrib.auth import get_user_model

    runtime_admin = get_user_model().objects.get(pk=operator.pk)  # fresh permission cache
    assert runtime_pause(execution_id=execution.pk, tenant=tenant, actor=runtime_admin).status == "PAUSED"
    with pytest.raises(RuntimeControlError) as caught:
        runtime_pause(execution_id=execution.pk, tenant=tenant, actor=runtime_admin)
    assert caught.value.code == "NOT_PAUSABLE"  # already paused


def test_the_controller_never_unpauses_and_the_watchdog_leaves_a_paused_runtime_alone(started, tenant, supervisor):
    execution, _ = started
    runtime_pause(execution_id=execution.pk, tenant=tenant, actor=supervisor)
    assert runtime_transition(execution=execution, status="RUNNING", reason="RESOURCE_BACK") is False
    assert runtime_transition(execution=execution, status="DEGRADED", reason="lane") is False
    RuntimeExecution.objects.for_tenant(tenant).filter(execution=execution).update(
        last_heartbeat_at=timezone.now() - timedelta(hours=1))
    from execution.control import store

    store().clear("rt:watchdog")
    assert runtime_watchdog() == []  # a paused runtime has no worker on purpose: not stalled
    assert RuntimeExecution.objects.for_tenant(tenant).get(execution=execution).status == "PAUSED"


def test_a_resume_whose_checkpoint_no_longer_holds_stops_the_batch_instead(
        started, tenant, supervisor, admin_user, django_capture_on_commit_callbacks):
    execution, sent = started
    runtime_pause(execution_id=execution.pk, tenant=tenant, actor=supervisor)
    _deliver(sent, django_capture_on_commit_callbacks)
    switch = kill_switch_set(actor=admin_user, scope="TENANT", tenant=tenant, reason="incident while paused")
    try:
        with django_capture_on_commit_callbacks(execute=True):
            runtime = runtime_resume(execution_id=execution.pk, tenant=tenant, actor=supervisor)
        assert (runtime.status, runtime.reason) in {("STOPPING", "KILL_SWITCH"), ("TERMINATED", "KILL_SWITCH")}
        execution.refresh_from_db()
        assert execution.status == "failed"
        assert not BatchItem.objects.for_tenant(tenant).filter(execution=execution).exclude(
            status="pending").exists()  # nothing new started after the failed re-validation
        entry = TimelineEntry.objects.for_tenant(tenant).filter(execution=execution, type="EXECUTION_RESUMED").get()
        assert entry.data["checkpoint"] == "invalid"
    finally:
        kill_switch_lift(actor=admin_user, switch_id=switch.pk, reason="over")


def test_pause_and_resume_over_http_answer_by_role_and_tenant(
        started, operator_client, supervisor_client, other_client):
    execution, _ = started
    pause, resume = (f"/agent/executions/{execution.pk}/pause", f"/agent/executions/{execution.pk}/resume")
    assert operator_client.post(pause, {"reason": "x"}, format="json").status_code == 403
    assert other_client.post(pause, {}, format="json").status_code == 404  # another tenant's id
    assert supervisor_client.post(resume, {}, format="json").status_code == 409  # NOT_PAUSED
    paused = supervisor_client.post(pause, {"reason": "manutenção"}, format="json")
    assert paused.status_code == 200 and paused.json()["runtime_status"] == "PAUSED"
    assert supervisor_client.post(pause, {}, format="json").status_code == 409  # already paused
    assert supervisor_client.post(pause, {"reason": "x" * 501}, format="json").status_code == 400
    resumed = supervisor_client.post(resume, {}, format="json")
    assert resumed.status_code == 200 and resumed.json()["runtime_status"] != "PAUSED"
