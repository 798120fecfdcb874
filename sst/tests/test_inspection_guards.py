"""Inspections behind the shared guards: validation (400 per field), If-Match, Idempotency-Key and faults."""

from __future__ import annotations

import pytest
from django.urls import reverse

from conftest import client_for, make_user
from sst.faults import fault_add
from sst.models import Finding, Inspection
from tenancy.models import Role

from .helpers import call
from .routes import FUTURE, ROUTES, fill, ids_of

LONG = "x" * 10_000
INSPECTION_WRITES = [r for r in ROUTES if r.method != "get" and "{inspection}" in r.path]


def revision(world) -> int:
    return Inspection.objects.for_tenant(world.tenant).get(pk=world.inspection.pk).revision


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({}, {"company", "site", "scheduled_for"}),
        ({"company": "{alfa}", "site": "x", "scheduled_for": "2030-02-30"}, {"scheduled_for"}),
        ({"company": "{alfa}", "site": "x", "scheduled_for": 20300101}, {"scheduled_for"}),
        ({"company": "{alfa}", "site": "x", "scheduled_for": "2030-01-01T10:00:00"}, {"scheduled_for"}),
        ({"company": "{alfa}", "site": "x", "scheduled_for": "2030-01-01\x00"}, {"scheduled_for"}),
        ({"company": "{alfa}", "site": "x", "scheduled_for": LONG}, {"scheduled_for"}),
        ({"company": "{alfa}", "site": "", "scheduled_for": FUTURE}, {"site"}),
        ({"company": "{alfa}", "site": "nul \x00", "scheduled_for": FUTURE}, {"site"}),
        ({"company": "{alfa}", "site": LONG, "scheduled_for": FUTURE}, {"site"}),
        ({"company": "{alfa}", "site": ["x"], "scheduled_for": FUTURE}, {"site"}),
        ({"company": "{alfa}", "site": "x", "scheduled_for": FUTURE, "number": LONG}, {"number"}),
        ({"company": "{alfa}", "site": "x", "scheduled_for": FUTURE, "number": "4 5; DROP"}, {"number"}),
        ({"company": "{alfa}", "site": "x", "scheduled_for": FUTURE, "inspector": "Paula"}, {"inspector"}),
        ({"company": "{alfa}", "site": "x", "scheduled_for": FUTURE, "inspector": 2**70}, {"inspector"}),
        ({"company": True, "site": "x", "scheduled_for": FUTURE}, {"company"}),
        ({"company": "{alfa}", "site": "x", "scheduled_for": FUTURE, "status": "DONE"}, {"status"}),
    ],
)
def test_malformed_inspection_bodies_are_field_errors(body, fields, world, operator_client):
    body = {k: world.alfa.pk if v == "{alfa}" else v for k, v in body.items()}
    response = call(operator_client, "post", "/inspections", body)
    assert response.status_code == 400, response.content[:300]
    assert (response.json()["code"], set(response.json()["errors"])) == ("invalid", fields)
    assert Inspection.objects.for_tenant(world.tenant).count() == 1


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/reschedule", {}, "scheduled_for"),
        ("/reschedule", {"scheduled_for": None}, "scheduled_for"),
        ("/reschedule", {"scheduled_for": "amanhã"}, "scheduled_for"),
        ("/inspector", {}, "inspector"),
        ("/inspector", {"inspector": "1 OR 1=1"}, "inspector"),
        ("/inspector", {"inspector": 1.5}, "inspector"),
        ("/cancel", {"reason": LONG}, "reason"),
        ("/cancel", {"reason": "nul \x00"}, "reason"),
        ("/complete", {"now": True}, "now"),
        ("/findings", {}, "description"),
        ("/findings", {"description": "   "}, "description"),
        ("/findings", {"description": "x" * 501}, "description"),
        ("/findings", {"description": "nul \x00"}, "description"),
        ("/findings", {"description": {"text": "x"}}, "description"),
        ("/findings", {"description": "ok", "severity": "URGENT"}, "severity"),
        ("/findings", {"description": "ok", "severity": ["HIGH"]}, "severity"),
    ],
)
def test_malformed_inspection_child_bodies_are_field_errors(path, body, field, world, supervisor_client):
    response = call(supervisor_client, "post", f"/inspections/{world.inspection.pk}{path}", body)
    assert response.status_code == 400, response.content[:300]
    assert list(response.json()["errors"]) == [field]
    assert revision(world) == 2


def test_a_description_of_exactly_500_characters_is_accepted(world, operator_client):
    response = call(operator_client, "post", f"/inspections/{world.inspection.pk}/findings", {"description": "é" * 500})
    assert response.status_code == 201


def test_a_reference_to_another_tenants_employee_is_a_field_error(world, other_world, operator_client):
    response = call(operator_client, "post", f"/inspections/{world.inspection.pk}/inspector",
                    {"inspector": other_world.joao.pk})
    assert (response.status_code, list(response.json()["errors"])) == (400, ["inspector"])


@pytest.mark.parametrize("route", INSPECTION_WRITES, ids=lambda r: f"{r.method}-{r.name}")
def test_a_stale_revision_is_refused_on_every_inspection_write(route, world, tenant):
    admin = client_for(make_user(tenant, Role.ADMIN), tenant)
    path, body = fill(route, ids_of(world))
    stale = call(admin, route.method, path, body, **{"If-Match": '"1"'})
    assert (stale.status_code, stale.json()["code"], stale.json()["current_revision"]) == (409, "REVISION_MISMATCH", 2)
    assert revision(world) == 2
    assert call(admin, route.method, path, body, **{"If-Match": 'W/"2"'}).status_code in (200, 201, 204)
    assert revision(world) == 3


def test_the_same_key_twice_creates_one_inspection_and_replays_the_answer(world, operator_client):
    body = {"company": world.alfa.pk, "site": "Pátio", "scheduled_for": FUTURE}
    first = call(operator_client, "post", "/inspections", body, **{"Idempotency-Key": "insp-1"})
    second = call(operator_client, "post", "/inspections", body, **{"Idempotency-Key": "insp-1"})
    assert (first.status_code, second.status_code, second["Idempotent-Replayed"]) == (201, 201, "true")
    assert (first.content, first["ETag"]) == (second.content, second["ETag"])
    assert Inspection.objects.for_tenant(world.tenant).count() == 2


@pytest.mark.parametrize("route", INSPECTION_WRITES, ids=lambda r: f"{r.method}-{r.name}")
def test_every_inspection_write_is_replayed_under_its_key(route, world, tenant):
    admin = client_for(make_user(tenant, Role.ADMIN), tenant)
    path, body = fill(route, ids_of(world))
    first = call(admin, route.method, path, body, **{"Idempotency-Key": f"k-{route.name}"})
    replay = call(admin, route.method, path, body, **{"Idempotency-Key": f"k-{route.name}"})
    assert (replay.status_code, replay.content, replay["Idempotent-Replayed"]) == (
        first.status_code, first.content, "true")
    assert revision(world) == 3  # the effect happened once
    reused = call(admin, route.method, path, {**(body or {}), "x": 1}, **{"Idempotency-Key": f"k-{route.name}"})
    assert (reused.status_code, reused.json()["code"]) == (422, "IDEMPOTENCY_KEY_REUSED")


@pytest.fixture
def faults_on(settings):
    settings.SST_FAULT_INJECTION = True


def test_a_fault_on_an_inspection_route_answers_its_status_the_given_times(faults_on, world, operator_client):
    fault_add(tenant=world.tenant, route="sst:inspection-reschedule", status=503, times=1)
    path = f"/inspections/{world.inspection.pk}/reschedule"
    assert call(operator_client, "post", path, {"scheduled_for": FUTURE}).json()["code"] == "INJECTED_FAULT"
    assert revision(world) == 2
    assert call(operator_client, "post", path, {"scheduled_for": FUTURE}).status_code == 200


def test_match_finding_hits_the_addition_and_removal_of_that_finding_only(faults_on, world, operator_client):
    base = f"/inspections/{world.inspection.pk}/findings"
    fault_add(tenant=world.tenant, route="sst:inspection-findings", method="POST", status=422,
              match={"finding": "GUARDA-CORPO"})
    fault_add(tenant=world.tenant, route="sst:inspection-finding-detail", status=503, match={"finding": "EXTINTOR"})
    assert call(operator_client, "post", base, {"description": "Piso molhado"}).status_code == 201
    assert call(operator_client, "post", base, {"description": "Guarda-corpo solto"}).status_code == 422
    assert call(operator_client, "get", base).status_code == 200
    assert call(operator_client, "delete", f"{base}/{world.finding.pk}").status_code == 503
    added = Finding.objects.for_tenant(world.tenant).get(description="Piso molhado")
    assert call(operator_client, "delete", f"{base}/{added.pk}").status_code == 204


def test_match_inspection_and_inspector_compare_the_number_and_the_name(faults_on, world, operator_client,
                                                                        supervisor_client):
    fault_add(tenant=world.tenant, route="sst:inspection-inspector", status=503,
              match={"inspection": "45", "inspector": "maria"})
    path = f"/inspections/{world.inspection.pk}/inspector"
    assert call(operator_client, "post", path, {"inspector": world.joao.pk}).status_code == 200
    assert call(operator_client, "post", path, {"inspector": world.maria.pk}).status_code == 503
    # `permit` names a permit's number on permit routes only: the inspection's id is not a permit's.
    fault_add(tenant=world.tenant, route="sst:inspection-complete", status=503, match={"permit": "45"})
    assert call(supervisor_client, "post", f"/inspections/{world.inspection.pk}/complete", {}).status_code == 200


def test_the_admin_lists_inspections_with_their_findings_read_only(world, other_world, admin_client):
    response = admin_client.get(reverse("admin:sst_inspection_changelist"))
    assert (response.status_code, response.context["cl"].result_count) == (200, 2)
    page = admin_client.get(reverse("admin:sst_inspection_change", args=[world.inspection.pk]))
    assert page.status_code == 200 and "Extintor vencido" in page.content.decode()
    assert admin_client.get(reverse("admin:sst_inspection_add")).status_code == 403
