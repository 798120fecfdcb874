from __future__ import annotations

from dataclasses import replace

import pytest

from execution.errors import ErrorClass, Outcome
from execution.tool_runtime import ToolSession, build_request
from sst import services as sst
from sst.faults import fault_add
from sst.models import WorkPermit
from tests.registry_fixtures import activate_manifest


@pytest.fixture
def registry(db):
    return activate_manifest()


@pytest.fixture
def permit(tenant):
    company = sst.company_create(tenant=tenant, name="Alfa")
    sst.component_type_create(tenant=tenant, key="workingAtHeight", name="Trabalho em Altura")
    return sst.permit_create(tenant=tenant, company=company, number="77", validity_days=30)


@pytest.fixture
def session(operator, tenant):
    tool_session = ToolSession(user=operator, tenant=tenant)
    yield tool_session
    tool_session.close()


def test_a_read_capability_returns_the_api_answer(registry, session, permit):
    result = session.invoke(capability=registry.require("workPermit.read"), input={"permit_id": permit.pk})
    assert (result.outcome, result.status_code, result.body["number"]) == (Outcome.SUCCEEDED, 200, "77")


def test_a_write_carries_the_step_idempotency_key_and_a_replay_changes_nothing(registry, session, permit, tenant):
    add = registry.require("workPermit.components.add")
    step_input = {"permit_id": permit.pk, "component": "workingAtHeight"}
    first = session.invoke(capability=add, input=step_input, idempotency_key="agent:plan-1:step-1")
    again = session.invoke(capability=add, input=step_input, idempotency_key="agent:plan-1:step-1")
    assert (first.outcome, first.status_code, again.status_code, again.replayed) == (Outcome.SUCCEEDED, 201, 201, True)
    assert again.body == first.body
    assert WorkPermit.objects.for_tenant(tenant).get(pk=permit.pk).components.count() == 1


def test_a_business_rule_is_a_failure_that_is_never_retried(registry, session, permit, tenant):
    sst.permit_approve(tenant=tenant, permit_id=permit.pk)
    result = session.invoke(capability=registry.require("workPermit.updateValidity"),
                            input={"permit_id": permit.pk, "validity_days": 60}, idempotency_key="agent:p:s")
    assert (result.outcome, result.error_class, result.error_code, result.retryable) == (
        Outcome.FAILED, ErrorClass.BUSINESS_RULE, "PERMIT_APPROVED", False)


def test_another_tenants_permit_is_not_found(registry, other_user, other_tenant, permit):
    other = ToolSession(user=other_user, tenant=other_tenant)
    result = other.invoke(capability=registry.require("workPermit.read"), input={"permit_id": permit.pk})
    assert (result.status_code, result.error_class, result.retryable) == (404, ErrorClass.NOT_FOUND, False)


def test_an_injected_503_is_temporary_and_retryable(registry, session, permit, tenant, settings):
    settings.SST_FAULT_INJECTION = True
    fault_add(tenant=tenant, route="sst:permit-validity", status=503, times=1)
    validity = registry.require("workPermit.updateValidity")
    step_input = {"permit_id": permit.pk, "validity_days": 45}
    failed = session.invoke(capability=validity, input=step_input, idempotency_key="agent:p:s2")
    retried = session.invoke(capability=validity, input=step_input, idempotency_key="agent:p:s2")
    assert (failed.error_class, failed.retryable) == (ErrorClass.TEMPORARY_UNAVAILABLE, True)
    assert (retried.outcome, retried.replayed, retried.body["validity_days"]) == (Outcome.SUCCEEDED, False, 45)


def test_undeclared_input_fields_never_leave_the_process(registry):
    request = build_request(registry.require("workPermit.updateValidity"),
                            {"permit_id": 5, "validity_days": 10, "status": "APPROVED"}, "agent:p:s")
    assert (request.method, request.path, request.body) == ("POST", "permits/5/validity", {"validity_days": 10})
    assert request.headers["Idempotency-Key"] == "agent:p:s"


def _over_http(spec, base_url):
    return replace(spec, resource=replace(spec.resource, transport="http", base_url=base_url))


@pytest.mark.django_db(transaction=True)
def test_a_write_that_times_out_over_http_has_an_unknown_outcome(live_server, settings, operator, tenant):
    settings.SST_FAULT_INJECTION = True
    registry = activate_manifest()
    company = sst.company_create(tenant=tenant, name="Alfa")
    permit = sst.permit_create(tenant=tenant, company=company, number="9", validity_days=30)
    fault_add(tenant=tenant, route="sst:permit-validity", latency_ms=1500, times=1)
    session = ToolSession(user=operator, tenant=tenant)
    result = session.invoke(capability=_over_http(registry.require("workPermit.updateValidity"), live_server.url),
                            input={"permit_id": permit.pk, "validity_days": 40}, idempotency_key="agent:p:t",
                            timeout_ms=300)
    session.close()
    assert (result.outcome, result.error_class, result.retryable) == (Outcome.UNKNOWN, ErrorClass.TIMEOUT, True)


def test_a_connection_that_never_opened_failed_for_sure(registry, session):
    spec = _over_http(registry.require("workPermit.updateValidity"), "http://127.0.0.1:9")
    result = session.invoke(capability=spec, input={"permit_id": 1, "validity_days": 40}, idempotency_key="k")
    assert (result.outcome, result.error_class, result.retryable) == (Outcome.FAILED, ErrorClass.NETWORK, True)
