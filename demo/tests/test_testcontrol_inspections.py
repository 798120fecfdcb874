"""Scenario worlds with inspections: seeding (statuses, dates, inspectors, findings), facts, digest, faults."""

from __future__ import annotations

from datetime import timedelta

from demo.seeding.world import world_problems
from sst import inspection_services
from sst.clock import today
from sst.models import Inspection
from tenancy.models import Tenant

from .conftest import sample_world
from .test_testcontrol import create, token_client

INSPECTIONS = [
    {"number": "45", "company": "Alfa Construções", "site": "Galpão 3", "scheduled_in_days": 10,
     "inspector": "Maria Souza", "findings": [{"description": "Extintor vencido", "severity": "HIGH"},
                                              {"description": "Piso molhado"}]},
    {"number": "46", "company": "Alfa Construções", "status": "DONE", "scheduled_in_days": -3},
    {"number": "45", "company": "Ômega Serviços", "status": "CANCELLED"},
]


def facts(control, body) -> dict:
    return control.get(f"/api/_test/worlds/{body['tenant']}/facts").json()


def test_facts_list_the_inspections_as_scenario_facts(control):
    body = create(control, sample_world(inspections=INSPECTIONS))
    seen = facts(control, body)["inspections"]
    assert [{k: v for k, v in fact.items() if k != "id"} for fact in seen] == [
        {"number": "45", "company": "Alfa Construções", "site": "Galpão 3", "status": "SCHEDULED",
         "scheduled_for": (today() + timedelta(days=10)).isoformat(), "scheduled_in_days": 10,
         "inspector": "Maria Souza", "findings": ["Extintor vencido", "Piso molhado"]},
        {"number": "46", "company": "Alfa Construções", "site": "", "status": "DONE",
         "scheduled_for": (today() - timedelta(days=3)).isoformat(), "scheduled_in_days": -3, "inspector": None,
         "findings": []},
        {"number": "45", "company": "Ômega Serviços", "site": "", "status": "CANCELLED",
         "scheduled_for": (today() + timedelta(days=7)).isoformat(), "scheduled_in_days": 7, "inspector": None,
         "findings": []}]
    severities = Inspection.objects.for_tenant(body["tenant"]).get(pk=seen[0]["id"]).findings.values_list(
        "severity", flat=True)
    assert sorted(severities) == ["HIGH", "MEDIUM"]
    assert facts(control, create(control, sample_world()))["inspections"] == []


def test_scheduled_in_days_counts_from_the_server_clock_that_test_control_moves(control):
    body = create(control, sample_world(inspections=INSPECTIONS[:1]))
    assert control.post("/api/_test/clock", {"advance_seconds": 2 * 24 * 3600}, format="json").status_code == 200
    fact = facts(control, body)["inspections"][0]
    assert (fact["scheduled_in_days"], fact["scheduled_for"]) == (8, (today() + timedelta(days=8)).isoformat())


def test_world_users_act_on_inspections_with_their_roles(control):
    body = create(control, sample_world(inspections=INSPECTIONS))
    viewer, operator = (token_client(body["users"][role]["token"]) for role in ("viewer", "operator"))
    inspection = viewer.get("/api/sst/inspections", {"number": "45", "company_name": "alfa"}).json()[0]
    url = f"/api/sst/inspections/{inspection['id']}/findings"
    assert viewer.post(url, {"description": "x"}, format="json").status_code == 403
    assert operator.post(url, {"description": "Guarda-corpo solto"}, format="json").status_code == 201
    assert operator.post(f"/api/sst/inspections/{inspection['id']}/complete", {}, format="json").status_code == 403


def test_a_world_naming_an_inspector_it_lacks_or_an_inspection_twice_is_a_400(control):
    world = sample_world(inspections=[{"number": "45", "company": "Alfa Construções", "inspector": "Paula Reis"},
                                      {"number": "45", "company": "Alfa Construções"}])
    response = control.post("/api/_test/worlds", world, format="json")
    assert response.status_code == 400
    problems = response.json()["errors"]["world"]
    assert any("inspections[0].inspector: unknown employee 'Paula Reis'" in p for p in problems)
    assert any("inspections[1]: inspection '45' of 'Alfa Construções' is listed twice" in p for p in problems)


def test_the_other_tenants_inspections_are_checked_and_seeded_too():
    other = {"employees": [{"name": "Pedro Alves", "company": "Gama Ltda"}],
             "inspections": [{"number": "45", "company": "Gama Ltda", "inspector": "Ninguém"}]}
    assert world_problems(sample_world(other_tenant=other)) == [
        "world.other_tenant.inspections[0].inspector: unknown employee 'Ninguém'"]


def test_the_other_tenant_digest_changes_with_its_inspections_and_findings(control):
    other = {"inspections": [{"number": "45", "company": "Gama Ltda",
                              "findings": [{"description": "Extintor vencido"}]}]}
    body = create(control, sample_world(other_tenant=other))
    tenant = Tenant.objects.get(pk=body["other_tenant"]["tenant"])
    inspection = Inspection.objects.for_tenant(tenant).get()
    digests = [facts(control, body)["other_tenant_digest"]]
    assert facts(control, body)["inspections"] == []  # the other tenant's inspection is not the world's
    inspection_services.inspection_reschedule(tenant=tenant, inspection_id=inspection.pk, scheduled_for=today())
    digests.append(facts(control, body)["other_tenant_digest"])
    finding = inspection.findings.get()
    inspection_services.inspection_finding_remove(tenant=tenant, inspection_id=inspection.pk, finding_id=finding.pk)
    digests.append(facts(control, body)["other_tenant_digest"])
    assert len(set(digests)) == 3


def test_a_fault_by_inspection_capability_hits_its_route_and_matches_the_finding(control):
    body = create(control, sample_world(inspections=INSPECTIONS[:1]))
    operator = token_client(body["users"]["operator"]["token"])
    inspection = operator.get("/api/sst/inspections").json()[0]
    fault = {"tenant": body["tenant"], "capability": "inspection.findings.add", "status": 503,
             "match": {"finding": "guarda-corpo"}}
    answer = control.post("/api/_test/faults", fault, format="json")
    assert (answer.status_code, answer.json()["route"], answer.json()["method"]) == (
        201, "sst:inspection-findings", "POST")
    url = f"/api/sst/inspections/{inspection['id']}/findings"
    assert operator.post(url, {"description": "Guarda-corpo solto"}, format="json").status_code == 503
    assert operator.post(url, {"description": "Piso molhado"}, format="json").status_code == 201
    reschedule = {"tenant": body["tenant"], "capability": "inspection.reschedule", "status": 409, "times": 1}
    assert control.post("/api/_test/faults", reschedule, format="json").json()["route"] == "sst:inspection-reschedule"
