"""The test-control API: gated by a setting and a token; worlds, facts, faults by capability, the clock."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import resolve, reverse
from django.utils import timezone
from rest_framework.test import APIClient

from demo.testcontrol import services
from knowledge.models import KnowledgeSection
from registry.selectors import registry_snapshot
from sst import services as sst_services
from sst.models import FaultRule, WorkPermit
from tenancy import clock
from tenancy.models import Tenant

from .conftest import CONTROL_TOKEN, sample_world

ROUTES = [("post", "/api/_test/worlds"), ("get", "/api/_test/worlds/x/facts"), ("delete", "/api/_test/worlds/x"),
          ("post", "/api/_test/faults"), ("delete", "/api/_test/faults?tenant=x"), ("post", "/api/_test/clock")]


def token_client(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def create(control: APIClient, world: dict) -> dict:
    response = control.post("/api/_test/worlds", world, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


@pytest.mark.parametrize(("method", "url"), ROUTES)
def test_every_route_is_absent_while_test_control_is_off(db, settings, method, url):
    settings.AGENT_TEST_CONTROL = False
    settings.AGENT_TEST_CONTROL_TOKEN = CONTROL_TOKEN
    client = APIClient()
    client.credentials(HTTP_X_TEST_CONTROL_TOKEN=CONTROL_TOKEN)
    assert getattr(client, method)(url, {}, format="json").status_code == 404


@pytest.mark.parametrize(("method", "url"), ROUTES)
def test_every_route_refuses_a_missing_or_wrong_token(control_on, db, method, url):
    assert getattr(APIClient(), method)(url, {}, format="json").status_code == 403
    forged = APIClient()
    forged.credentials(HTTP_X_TEST_CONTROL_TOKEN=CONTROL_TOKEN + "x")
    assert getattr(forged, method)(url, {}, format="json").status_code == 403


def test_an_unset_token_setting_refuses_everything_even_an_empty_header(control_on, db, settings):
    settings.AGENT_TEST_CONTROL_TOKEN = None
    client = APIClient()
    client.credentials(HTTP_X_TEST_CONTROL_TOKEN="")
    assert client.post("/api/_test/clock", {"advance_seconds": 1}, format="json").status_code == 403


def test_a_normal_user_token_does_not_open_test_control(control_on, operator_client):
    assert operator_client.post("/api/_test/worlds", sample_world(), format="json").status_code == 403


def test_a_world_is_a_fresh_tenant_whose_users_act_with_their_roles(control):
    body = create(control, sample_world())
    assert set(body["users"]) == {"viewer", "operator", "supervisor"} and body["other_tenant"] is None
    viewer, supervisor = token_client(body["users"]["viewer"]["token"]), token_client(
        body["users"]["supervisor"]["token"])
    permits = viewer.get("/api/sst/permits").json()
    assert sorted((p["number"], p["company"]["name"], p["status"]) for p in permits) == [
        ("123", "Alfa Construções", "DRAFT"), ("123", "Beta Montagens", "APPROVED")]
    alfa = next(p for p in permits if p["company"]["name"] == "Alfa Construções")
    assert (alfa["responsible"]["name"], [c["name"] for c in alfa["components"]], [w["name"] for w in alfa["workers"]]
            ) == ("João Silva", ["Trabalho em Altura"], ["Maria Souza"])
    assert viewer.delete(f"/api/sst/permits/{alfa['id']}").status_code == 403
    assert supervisor.delete(f"/api/sst/permits/{alfa['id']}").status_code == 204


def test_a_knowledge_document_titled_like_a_component_is_that_components_document(control):
    body = create(control, sample_world())
    sections = KnowledgeSection.objects.for_tenant(body["tenant"])
    assert [s.semantic_ids for s in sections] == [["component:workingAtHeight"]]


def test_a_world_naming_an_employee_it_lacks_is_a_400_naming_the_employee(control):
    world = sample_world()
    world["permits"][0]["workers"] = ["Pedro Ninguém"]
    response = control.post("/api/_test/worlds", world, format="json")
    assert response.status_code == 400
    assert "unknown employee 'Pedro Ninguém'" in str(response.json()["errors"]["world"])
    assert not Tenant.objects.filter(slug__startswith=services.WORLD_SLUG_PREFIX).exists()


def test_a_world_breaking_the_schema_is_a_400_with_the_field_path(control):
    response = control.post("/api/_test/worlds", {"permits": [{"number": 123}]}, format="json")
    assert response.status_code == 400
    messages = " ".join(response.json()["errors"]["world"])
    assert "permits[0].number" in messages and "company" in messages


def test_facts_list_the_permits_as_scenario_facts(control):
    body = create(control, sample_world())
    facts = control.get(f"/api/_test/worlds/{body['tenant']}/facts").json()
    alfa = next(p for p in facts["permits"] if p["company"] == "Alfa Construções")
    assert {k: v for k, v in alfa.items() if k != "id"} == {
        "number": "123", "company": "Alfa Construções", "status": "DRAFT", "validity_days": 30,
        "responsible": "João Silva", "components": ["Trabalho em Altura"], "workers": ["Maria Souza"]}
    assert WorkPermit.objects.for_tenant(body["tenant"]).get(pk=alfa["id"]).number == "123"
    assert facts["other_tenant_digest"] is None


def test_the_other_tenant_digest_changes_when_anything_there_changes_and_only_then(control, world_with_other):
    body = create(control, world_with_other)
    assert set(body["other_tenant"]["users"]) == {"viewer", "operator", "supervisor"}
    facts_url = f"/api/_test/worlds/{body['tenant']}/facts"
    first = control.get(facts_url).json()["other_tenant_digest"]
    main = Tenant.objects.get(pk=body["tenant"])
    sst_services.permit_validity_update(tenant=main, permit_id=control.get(facts_url).json()["permits"][0]["id"],
                                       validity_days=45)
    assert control.get(facts_url).json()["other_tenant_digest"] == first
    other = Tenant.objects.get(pk=body["other_tenant"]["tenant"])
    other_operator = token_client(body["other_tenant"]["users"]["operator"]["token"])
    permit = other_operator.get("/api/sst/permits").json()[0]
    assert other_operator.post(f"/api/sst/permits/{permit['id']}/validity", {"validity_days": 31},
                               format="json").status_code == 200
    second = control.get(facts_url).json()["other_tenant_digest"]
    assert second != first
    sst_services.employee_create(tenant=other, company=WorkPermit.objects.for_tenant(other).get().company,
                                 name="Novo Funcionário")
    assert control.get(facts_url).json()["other_tenant_digest"] not in (first, second)


def test_deleting_a_world_removes_both_tenants_their_users_and_data(control, world_with_other):
    body = create(control, world_with_other)
    usernames = [u["username"] for t in (body, body["other_tenant"]) for u in t["users"].values()]
    assert control.delete(f"/api/_test/worlds/{body['tenant']}").status_code == 204
    assert not Tenant.objects.filter(pk__in=[body["tenant"], body["other_tenant"]["tenant"]]).exists()
    assert not get_user_model().objects.filter(username__in=usernames).exists()
    assert control.get(f"/api/_test/worlds/{body['tenant']}/facts").status_code == 404


def test_test_control_cannot_reach_a_tenant_that_is_not_a_scenario_world(control, tenant):
    assert control.delete(f"/api/_test/worlds/{tenant.pk}").status_code == 404
    assert control.get(f"/api/_test/worlds/{tenant.pk}/facts").status_code == 404
    fault = {"tenant": str(tenant.pk), "capability": "workPermit.updateValidity", "status": 503}
    assert control.post("/api/_test/faults", fault, format="json").status_code == 404
    assert Tenant.objects.filter(pk=tenant.pk).exists()


def write_capabilities() -> list[str]:
    return sorted(key for key, spec in registry_snapshot().capabilities.items() if spec.kind == "write")


# The SST contract (sst_api.md) for the writes the scenarios fault: an independent spot check.
CONTRACT = {"workPermit.updateValidity": ("sst:permit-validity", "POST"),
            "workPermit.components.add": ("sst:permit-components", "POST"),
            "workPermit.components.remove": ("sst:permit-component-detail", "DELETE"),
            "workPermit.delete": ("sst:permit-detail", "DELETE"),
            "workPermit.create": ("sst:permit-list", "POST"),
            "inspection.create": ("sst:inspection-list", "POST"),
            "inspection.reschedule": ("sst:inspection-reschedule", "POST"),
            "inspection.assignInspector": ("sst:inspection-inspector", "POST"),
            "inspection.complete": ("sst:inspection-complete", "POST"),
            "inspection.cancel": ("sst:inspection-cancel", "POST"),
            "inspection.findings.add": ("sst:inspection-findings", "POST"),
            "inspection.findings.remove": ("sst:inspection-finding-detail", "DELETE")}


def test_every_write_capability_of_the_manifest_maps_to_the_sst_route_it_calls(control):
    create(control, sample_world())  # activates the manifest
    writes = write_capabilities()
    assert len(writes) >= 9 and set(CONTRACT) <= set(writes)
    for capability in writes:
        route, method = services.capability_route(capability=capability)
        spec = registry_snapshot().require(capability)
        path = spec.resource.base_path + re.sub(r"\{[^}]+\}", "7", spec.path_template)
        match = resolve(path)
        assert (match.view_name, method) == (route, spec.http_method.upper())
        assert reverse(route, kwargs=match.kwargs) == path
        assert hasattr(match.func.view_class, method.lower()), f"{capability}: {route} has no {method}"
        assert CONTRACT.get(capability, (route, method)) == (route, method)


def test_a_fault_by_capability_makes_that_sst_call_fail_the_given_times(control):
    body = create(control, sample_world())
    operator = token_client(body["users"]["operator"]["token"])
    permit = operator.get("/api/sst/permits", {"company_name": "Alfa"}).json()[0]
    fault = {"tenant": body["tenant"], "capability": "workPermit.updateValidity", "status": 503, "times": 1}
    answer = control.post("/api/_test/faults", fault, format="json")
    assert answer.status_code == 201 and answer.json()["route"] == "sst:permit-validity"
    url = f"/api/sst/permits/{permit['id']}/validity"
    assert operator.post(url, {"validity_days": 40}, format="json").status_code == 503
    assert operator.post(url, {"validity_days": 40}, format="json").status_code == 200


def test_a_matched_fault_hits_only_the_named_component_and_clear_removes_it(control):
    body = create(control, sample_world())
    operator = token_client(body["users"]["operator"]["token"])
    permit = operator.get("/api/sst/permits", {"company_name": "Alfa"}).json()[0]
    fault = {"tenant": body["tenant"], "capability": "workPermit.components.add", "status": 422,
             "match": {"component": "Trabalho a Quente"}}
    assert control.post("/api/_test/faults", fault, format="json").status_code == 201
    url = f"/api/sst/permits/{permit['id']}/components"
    assert operator.post(url, {"component": "hotWork"}, format="json").status_code == 422
    assert control.delete(f"/api/_test/faults?tenant={body['tenant']}").status_code == 204
    assert not FaultRule.objects.for_tenant(body["tenant"]).exists()
    assert operator.post(url, {"component": "hotWork"}, format="json").status_code == 201


def test_a_fault_body_is_validated_field_by_field(control):
    body = create(control, sample_world())
    bad = control.post("/api/_test/faults", {"tenant": body["tenant"], "capability": "workPermit.updateValidity",
                                             "status": 42, "times": 0}, format="json")
    assert bad.status_code == 400 and {"status", "times"} <= set(bad.json()["errors"])
    unknown = control.post("/api/_test/faults", {"tenant": body["tenant"], "capability": "workPermit.fly",
                                                 "status": 503}, format="json")
    assert unknown.status_code == 400 and "capability" in unknown.json()["errors"]
    no_effect = control.post("/api/_test/faults", {"tenant": body["tenant"], "capability": "workPermit.delete"},
                             format="json")
    assert no_effect.status_code == 400 and "status" in no_effect.json()["errors"]
    assert control.delete("/api/_test/faults").status_code == 400


def test_a_read_or_navigation_capability_has_no_sst_fault_route_to_inject_into(control):
    create(control, sample_world())
    with pytest.raises(services.UnknownCapability):
        services.capability_route(capability="navigation.workPermit.open")
    with pytest.raises(services.UnknownCapability):
        services.capability_route(capability="knowledge.search")


def test_the_clock_moves_forward_for_ttl_checks_and_never_back(control):
    before = clock.now()
    answer = control.post("/api/_test/clock", {"advance_seconds": 360}, format="json")
    assert answer.status_code == 200
    assert clock.now() - before >= timedelta(seconds=360)
    assert abs(timezone.datetime.fromisoformat(answer.json()["now"]) - clock.now()) < timedelta(seconds=60)
    bad = control.post("/api/_test/clock", {"advance_seconds": -5}, format="json")
    assert bad.status_code == 400 and "advance_seconds" in bad.json()["errors"]


def test_a_fault_is_refused_when_the_server_would_not_inject_it(control, settings):
    body = create(control, sample_world())
    settings.SST_FAULT_INJECTION = False
    fault = {"tenant": body["tenant"], "capability": "workPermit.updateValidity", "status": 503}
    answer = control.post("/api/_test/faults", fault, format="json")
    assert answer.status_code == 409 and answer.json()["code"] == "FAULT_INJECTION_OFF"
