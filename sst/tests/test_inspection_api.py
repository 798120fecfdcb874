"""Inspections: every endpoint's happy path, filters, business rules (422 + stable code) and the date rule."""

from __future__ import annotations

from datetime import timedelta

import pytest

from sst import inspection_services
from sst.clock import today
from sst.models import Finding, Inspection

from .helpers import call


def days(n: int) -> str:
    return (today() + timedelta(days=n)).isoformat()


def test_inspection_representation_has_every_field_and_an_etag(world, viewer_client):
    response = call(viewer_client, "get", f"/inspections/{world.inspection.pk}")
    body = response.json()
    assert response["ETag"] == '"2"'
    assert {k: v for k, v in body.items() if k not in ("created_at", "updated_at")} == {
        "id": world.inspection.pk, "number": "45", "company": {"id": world.alfa.pk, "name": "Alfa Construções"},
        "site": "Galpão 3", "status": "SCHEDULED", "scheduled_for": days(7),
        "inspector": {"id": world.joao.pk, "name": "João Silva"},
        "findings": [{"id": world.finding.pk, "description": "Extintor vencido", "severity": "HIGH"}],
        "revision": 2}
    assert body["created_at"] and body["updated_at"]


def test_inspections_are_filtered_by_number_company_status_and_text(world, viewer_client):
    beta_45 = inspection_services.inspection_create(tenant=world.tenant, company=world.beta, number="45",
                                                    site="Pátio Norte", scheduled_for=today())
    inspection_services.inspection_complete(tenant=world.tenant, inspection_id=beta_45.pk)

    def ids(path="/inspections", **query):
        return [i["id"] for i in call(viewer_client, "get", path, query).json()]

    assert ids(number="45") == [world.inspection.pk, beta_45.pk]
    assert ids(number="45", company=world.beta.pk) == [beta_45.pk]
    assert ids(company_name="beta montagens") == [beta_45.pk]
    assert ids(status="DONE") == [beta_45.pk]
    assert ids(q="joão") == [world.inspection.pk]
    assert ids(q="norte") == [beta_45.pk]
    assert ids(q="patio NORTE") == ids(q="Pátio Norte") == [beta_45.pk]  # the site without its accents (site_folded)
    assert ids(q="galpao 3") == [world.inspection.pk]
    assert ids(scheduled_from=days(1), scheduled_to=days(7)) == [world.inspection.pk]  # both days included
    assert ids(scheduled_to=days(0)) == [beta_45.pk] and ids(scheduled_from=days(8)) == []
    response = call(viewer_client, "get", "/inspections/count", {"scheduled_from": days(2), "scheduled_to": days(1)})
    assert (response.status_code, list(response.json()["errors"])) == (400, ["scheduled_to"])
    assert call(viewer_client, "get", "/inspections/count", {"number": "45"}).json() == {"count": 2}
    assert call(viewer_client, "get", "/inspections/count", {"status": "SCHEDULED"}).json() == {"count": 1}


def test_inspections_are_filtered_by_inspector_and_finding_severity(world, viewer_client):
    bare = inspection_services.inspection_create(tenant=world.tenant, company=world.beta, site="Pátio Sul",
                                                 scheduled_for=today())
    inspection_services.inspection_finding_add(tenant=world.tenant, inspection_id=bare.pk, description="Piso solto",
                                               severity="LOW")
    inspection_services.inspection_finding_add(tenant=world.tenant, inspection_id=bare.pk, description="Fio solto",
                                               severity="LOW")

    def ids(path="/inspections", **query):
        return [i["id"] for i in call(viewer_client, "get", path, query).json()]

    assert ids(inspector_status="UNASSIGNED") == [bare.pk]
    assert ids(inspector_status="ASSIGNED") == [world.inspection.pk]
    assert ids(finding_severity="HIGH") == [world.inspection.pk]
    assert ids(finding_severity="LOW") == [bare.pk]  # two LOW findings: still listed once
    assert ids(finding_severity="MEDIUM") == []
    assert ids(has_findings="HAS_ANY") == [world.inspection.pk, bare.pk]
    assert ids(has_findings="HAS_NONE") == []
    assert call(viewer_client, "get", "/inspections/count", {"finding_severity": "LOW"}).json() == {"count": 1}
    refused = call(viewer_client, "get", "/inspections", {"inspector_status": "MAYBE"})
    assert refused.status_code == 400 and "inspector_status" in refused.content.decode()


def test_an_inspection_list_takes_a_fixed_number_of_queries(world, viewer_client, django_assert_max_num_queries):
    for n in range(3):
        inspection = inspection_services.inspection_create(tenant=world.tenant, company=world.beta, site="x",
                                                           scheduled_for=today(), inspector=world.maria)
        inspection_services.inspection_finding_add(tenant=world.tenant, inspection_id=inspection.pk,
                                                   description=f"achado {n}")
    # auth (token, membership) + inspections + findings: not one per inspection.
    with django_assert_max_num_queries(5):
        assert len(call(viewer_client, "get", "/inspections").json()) == 4


def test_creating_without_a_number_takes_the_next_free_one_of_its_company(world, operator_client):
    response = call(operator_client, "post", "/inspections", {
        "company": world.alfa.pk, "site": " Pátio ", "scheduled_for": days(0), "inspector": world.maria.pk})
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["number"], body["site"], body["status"], body["revision"], body["inspector"]["name"],
            body["findings"], response["ETag"]) == ("46", "Pátio", "SCHEDULED", 1, "Maria Souza", [], '"1"')
    # Numbering is per company and apart from permits ("123" is a permit of Alfa, not an inspection).
    beta = call(operator_client, "post", "/inspections", {"company": world.beta.pk, "site": "x",
                                                          "scheduled_for": days(1)}).json()
    assert (beta["number"], beta["inspector"]) == ("1", None)


def test_a_number_may_repeat_across_companies_but_not_within_one(world, operator_client):
    body = {"number": "45", "site": "x", "scheduled_for": days(3)}
    assert call(operator_client, "post", "/inspections", {**body, "company": world.beta.pk}).status_code == 201
    taken = call(operator_client, "post", "/inspections", {**body, "company": world.alfa.pk})
    assert (taken.status_code, taken.json()["code"]) == (422, "INSPECTION_NUMBER_TAKEN")


def test_reschedule_moves_the_date_and_bumps_the_revision(world, operator_client):
    response = call(operator_client, "post", f"/inspections/{world.inspection.pk}/reschedule",
                    {"scheduled_for": days(10)})
    assert (response.status_code, response.json()["scheduled_for"], response["ETag"]) == (200, days(10), '"3"')
    assert call(operator_client, "post", f"/inspections/{world.inspection.pk}/reschedule",
                {"scheduled_for": days(0)}).status_code == 200  # today is not the past


@pytest.mark.parametrize("path", ["/inspections/{id}/reschedule", "/inspections"])
def test_a_date_in_the_past_is_a_field_error_naming_the_date(path, world, operator_client):
    body = {"scheduled_for": days(-1)}
    if path == "/inspections":
        body |= {"company": world.alfa.pk, "site": "x"}
    response = call(operator_client, "post", path.format(id=world.inspection.pk), body, **{"Accept-Language": "en"})
    assert (response.status_code, list(response.json()["errors"])) == (400, ["scheduled_for"])
    assert "past" in str(response.json()["errors"]["scheduled_for"])
    assert Inspection.objects.for_tenant(world.tenant).get(pk=world.inspection.pk).revision == 2


def test_the_past_is_judged_by_the_server_clock_that_test_control_moves(world, operator_client, settings):
    from tenancy import clock

    settings.AGENT_TEST_CONTROL = True
    clock.reset()
    try:
        tomorrow = days(1)
        clock.advance(3 * 24 * 3600)
        path = f"/inspections/{world.inspection.pk}/reschedule"
        assert call(operator_client, "post", path, {"scheduled_for": tomorrow}).status_code == 400
        assert call(operator_client, "post", path, {"scheduled_for": days(0)}).status_code == 200
        assert days(0) > tomorrow
    finally:
        clock.reset()


def test_the_inspector_is_assigned_and_cleared(world, operator_client):
    path = f"/inspections/{world.inspection.pk}/inspector"
    assigned = call(operator_client, "post", path, {"inspector": world.maria.pk}).json()
    assert (assigned["inspector"], assigned["revision"]) == ({"id": world.maria.pk, "name": "Maria Souza"}, 3)
    cleared = call(operator_client, "post", path, {"inspector": None}).json()
    assert (cleared["inspector"], cleared["revision"]) == (None, 4)


def test_a_supervisor_completes_a_scheduled_inspection_once(world, supervisor_client):
    path = f"/inspections/{world.inspection.pk}/complete"
    response = call(supervisor_client, "post", path, {})
    assert (response.status_code, response.json()["status"], response.json()["revision"]) == (200, "DONE", 3)
    again = call(supervisor_client, "post", path, {}, **{"Accept-Language": "pt-BR"})
    assert (again.status_code, again.json()["code"]) == (422, "INSPECTION_NOT_SCHEDULED")
    assert "45" in again.json()["detail"] and "DONE" in again.json()["detail"]


def test_a_cancelled_inspection_refuses_every_change(world, supervisor_client):
    base = f"/inspections/{world.inspection.pk}"
    cancelled = call(supervisor_client, "post", f"{base}/cancel", {"reason": "chuva"})
    assert cancelled.json()["status"] == "CANCELLED"
    assert Inspection.objects.for_tenant(world.tenant).get(pk=world.inspection.pk).cancel_reason == "chuva"
    for path, body in [("/reschedule", {"scheduled_for": days(3)}), ("/inspector", {"inspector": world.maria.pk}),
                       ("/findings", {"description": "x"}), ("/complete", {}), ("/cancel", {})]:
        refused = call(supervisor_client, "post", f"{base}{path}", body)
        assert (refused.status_code, refused.json()["code"]) == (422, "INSPECTION_NOT_SCHEDULED"), path
    removal = call(supervisor_client, "delete", f"{base}/findings/{world.finding.pk}")
    assert (removal.status_code, removal.json()["code"]) == (422, "INSPECTION_NOT_SCHEDULED")


def test_findings_are_added_with_a_default_severity_listed_and_removed(world, operator_client):
    base = f"/inspections/{world.inspection.pk}/findings"
    added = call(operator_client, "post", base, {"description": "  Guarda-corpo solto "})
    assert added.status_code == 201 and added["ETag"] == '"3"'
    assert {k: added.json()[k] for k in ("description", "severity", "inspection_revision")} == {
        "description": "Guarda-corpo solto", "severity": "MEDIUM", "inspection_revision": 3}
    listed = call(operator_client, "get", base).json()
    assert [(f["description"], f["severity"], f["inspection_revision"]) for f in listed] == [
        ("Extintor vencido", "HIGH", 3), ("Guarda-corpo solto", "MEDIUM", 3)]
    removed = call(operator_client, "delete", f"{base}/{added.json()['id']}")
    assert (removed.status_code, removed["ETag"]) == (204, '"4"')
    assert call(operator_client, "delete", f"{base}/{added.json()['id']}").status_code == 404
    assert [f["description"] for f in call(operator_client, "get", base).json()] == ["Extintor vencido"]


def test_a_finding_is_removed_only_through_its_own_inspection(world, operator_client):
    other = inspection_services.inspection_create(tenant=world.tenant, company=world.alfa, site="x",
                                                  scheduled_for=today())
    response = call(operator_client, "delete", f"/inspections/{other.pk}/findings/{world.finding.pk}")
    assert (response.status_code, response.json()["code"]) == (404, "not_found")
    assert world.inspection.findings.count() == 1


@pytest.mark.parametrize(("model", "field", "value"), [
    ("inspection", "status", "PENDING"), ("inspection", "number", ""), ("finding", "severity", "URGENT"),
    ("finding", "description", "")])
def test_the_database_refuses_what_the_api_never_writes(model, field, value, world):
    from django.db import IntegrityError, transaction

    rows = (Inspection if model == "inspection" else Finding).objects.for_tenant(world.tenant)
    pk = world.inspection.pk if model == "inspection" else world.finding.pk
    with pytest.raises(IntegrityError), transaction.atomic():
        rows.filter(pk=pk).update(**{field: value})
