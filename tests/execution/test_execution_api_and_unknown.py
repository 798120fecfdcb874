from __future__ import annotations

import time

import pytest
from django.contrib.auth.models import Permission

from conftest import client_for, make_user
from execution.models import StepRun
from execution.outcome import StepOutcome
from execution.services import execution_start
from execution.tool_runtime import ToolResult
from execution.verify import verify
from planning.intents import StructuredIntent
from policy.models import KillSwitch
from registry.selectors import registry_snapshot, snapshot_clear
from sst.faults import fault_add
from sst.models import IdempotencyRecord
from tenancy.models import Role

from .helpers import make_world, permit_target, plan_and_approve, wait_settled


@pytest.fixture
def started(registry, tenant, operator, eager, django_capture_on_commit_callbacks):
    world = make_world(tenant)
    intent = StructuredIntent(name="workPermit.updateValidity", slots={"validity_days": 40},
                              targets={"permit": permit_target(world.permit)})
    plan, receipt = plan_and_approve(tenant=tenant, actor=operator, intent=intent)
    with django_capture_on_commit_callbacks(execute=True):
        return execution_start(plan=plan, receipt_id=receipt.pk, actor=operator, tenant=tenant)


@pytest.mark.urls("tests.execution.urls")
def test_the_execution_shows_its_steps_and_timeline_to_its_tenant(started, operator_client):
    body = operator_client.get(f"/agent/executions/{started.pk}").json()
    assert (body["status"], [s["status"] for s in body["steps"]]) == ("completed", ["completed"])
    assert [e["type"] for e in body["timeline"]][-5:-1] == ["STEP_STARTED", "VERIFICATION_STARTED",
                                                            "VERIFICATION_COMPLETED", "STEP_COMPLETED"]
    assert body["timeline"][-1]["type"] == "EXECUTION_COMPLETED"


@pytest.mark.urls("tests.execution.urls")
def test_another_tenants_execution_is_not_found(started, other_client, viewer_client):
    assert other_client.get(f"/agent/executions/{started.pk}").status_code == 404
    assert viewer_client.get(f"/agent/executions/{started.pk}").status_code == 404  # another user's
    assert other_client.post(f"/agent/executions/{started.pk}/kill", {}, format="json").status_code == 404


@pytest.mark.urls("tests.execution.urls")
def test_killing_an_execution_needs_the_runtime_admin_permission(started, operator_client, tenant):
    response = operator_client.post(f"/agent/executions/{started.pk}/kill", {"reason": "stop"}, format="json")
    assert response.status_code == 403
    admin = make_user(tenant, Role.ADMIN)
    admin.user_permissions.add(Permission.objects.get(codename="runtime_admin", content_type__app_label="policy"))
    response = client_for(type(admin).objects.get(pk=admin.pk), tenant).post(
        f"/agent/executions/{started.pk}/kill", {"reason": "incident"}, format="json")
    assert response.status_code == 200
    assert KillSwitch.objects.filter(scope="EXECUTION", target=str(started.pk), lifted_at__isnull=True).exists()


def test_a_200_whose_read_back_disagrees_fails_verification(registry):
    spec = registry.require("workPermit.updateValidity")

    class StaleReads:
        def invoke(self, **kwargs):
            return ToolResult(outcome="succeeded", status_code=200, body={"validity_days": 15}, error_class=None,
                              error_code=None, latency_ms=1.0)

    outcome = StepOutcome("running")
    assert verify(spec, StaleReads(), registry, {"permit_id": 1, "validity_days": 30}, {}, outcome) is False
    assert [e[0] for e in outcome.entries] == ["VERIFICATION_STARTED", "VERIFICATION_FAILED"]


@pytest.mark.django_db(transaction=True)
def test_a_timed_out_non_idempotent_write_is_unknown_and_never_called_again(live_server, settings, tenant, operator,
                                                                          eager):
    from tests.registry_fixtures import activate_manifest

    activate_manifest()
    settings.SST_FAULT_INJECTION = True
    settings.SST_API_BASE_URL = live_server.url  # real HTTP, so the call can time out
    snapshot_clear()
    world = make_world(tenant)
    timeout_ms = registry_snapshot().require("workPermit.components.add").adaptation["timeout_ms"]["initial"]
    fault_add(tenant=tenant, route="sst:permit-components", latency_ms=timeout_ms + 700, times=1)
    intent = StructuredIntent(name="workPermit.components.add", slots={"component": "excavation"},
                              targets={"permit": permit_target(world.permit)})
    plan, receipt = plan_and_approve(tenant=tenant, actor=operator, intent=intent)
    execution = wait_settled(execution_start(plan=plan, receipt_id=receipt.pk, actor=operator, tenant=tenant))
    step = StepRun.objects.for_tenant(tenant).get(execution=execution)
    assert (execution.status, execution.needs_review, step.status, step.attempts) == ("failed", True, "unknown", 1)
    assert execution.error["code"] == "STEP_UNKNOWN"
    assert step.calls == 3  # facts read, the write once, one verification read; never a second write
    deadline = time.monotonic() + 5  # the server finishes the slow request on its own
    while not world.permit.components.filter(component_type__key="excavation").exists():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert IdempotencyRecord.objects.for_tenant(tenant).filter(key=f"agent:{plan.pk}:s1").count() == 1
    snapshot_clear()
