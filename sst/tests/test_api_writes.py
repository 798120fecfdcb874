"""Every write endpoint's happy path, its business rules (422 + stable code) and its roles."""

from __future__ import annotations

import pytest

from sst import services
from sst.models import PermitStatus, WorkPermit

from .helpers import call


def test_creating_a_permit_without_a_number_takes_the_next_free_one_of_its_company(world, operator_client):
    services.permit_create(tenant=world.tenant, company=world.alfa, number="ABC-1", validity_days=3)
    response = call(operator_client, "post", "/permits", {
        "company": world.alfa.pk, "validity_days": 15, "responsible": world.maria.pk,
        "components": ["hotWork", "confinedSpace"], "workers": [world.joao.pk]})
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["number"], body["status"], body["revision"], body["responsible"]["name"]) == (
        "124", "DRAFT", 1, "Maria Souza")
    assert [c["key"] for c in body["components"]] == ["hotWork", "confinedSpace"]
    assert body["workers"] == [{"id": world.joao.pk, "name": "João Silva"}]
    # Beta has no numeric permit yet: numbering is per company.
    beta = call(operator_client, "post", "/permits", {"company": world.beta.pk, "validity_days": 1}).json()
    assert beta["number"] == "1"


def test_a_number_may_repeat_across_companies_but_not_within_one(world, operator_client):
    assert call(operator_client, "post", "/permits",
                {"company": world.beta.pk, "number": "123", "validity_days": 5}).status_code == 201
    response = call(operator_client, "post", "/permits",
                    {"company": world.alfa.pk, "number": "123", "validity_days": 5})
    assert (response.status_code, response.json()["code"]) == (422, "NUMBER_TAKEN")


def test_patch_changes_responsible_and_number_and_bumps_revision(world, operator_client):
    response = call(operator_client, "patch", f"/permits/{world.permit.pk}",
                    {"responsible": world.maria.pk, "number": "900"}, **{"If-Match": '"1"'})
    assert response.status_code == 200
    assert (response.json()["responsible"]["name"], response.json()["number"], response["ETag"]) == (
        "Maria Souza", "900", '"2"')
    cleared = call(operator_client, "patch", f"/permits/{world.permit.pk}", {"responsible": None}).json()
    assert (cleared["responsible"], cleared["revision"]) == (None, 3)


def test_patch_to_a_number_the_company_already_has_is_refused(world, operator_client):
    services.permit_create(tenant=world.tenant, company=world.alfa, number="500", validity_days=3)
    response = call(operator_client, "patch", f"/permits/{world.permit.pk}", {"number": "500"})
    assert (response.status_code, response.json()["code"]) == (422, "NUMBER_TAKEN")


def test_validity_of_a_draft_changes_and_of_an_approved_permit_is_refused(world, operator_client):
    response = call(operator_client, "post", f"/permits/{world.permit.pk}/validity", {"validity_days": 60})
    assert (response.status_code, response.json()["validity_days"], response.json()["revision"]) == (200, 60, 2)
    services.permit_approve(tenant=world.tenant, permit_id=world.permit.pk)
    refused = call(operator_client, "post", f"/permits/{world.permit.pk}/validity", {"validity_days": 90},
                   **{"Accept-Language": "en"})
    assert (refused.status_code, refused.json()["code"]) == (422, "PERMIT_APPROVED")
    assert "approved" in refused.json()["detail"]
    pt = call(operator_client, "post", f"/permits/{world.permit.pk}/validity", {"validity_days": 90},
              **{"Accept-Language": "pt-BR"})
    assert "aprovada" in pt.json()["detail"]
    assert WorkPermit.objects.for_tenant(world.tenant).get(pk=world.permit.pk).validity_days == 60


def test_supervisor_approves_a_draft_once(world, supervisor_client):
    response = call(supervisor_client, "post", f"/permits/{world.permit.pk}/approve", {})
    assert (response.status_code, response.json()["status"]) == (200, "APPROVED")
    again = call(supervisor_client, "post", f"/permits/{world.permit.pk}/approve", {})
    assert (again.status_code, again.json()["code"]) == (422, "INVALID_STATUS")


def test_cancelled_permit_is_not_editable(world, supervisor_client):
    response = call(supervisor_client, "post", f"/permits/{world.permit.pk}/cancel", {"reason": "chuva"})
    assert response.json()["status"] == "CANCELLED"
    assert call(supervisor_client, "post", f"/permits/{world.permit.pk}/cancel", {}).json()["code"] == (
        "INVALID_STATUS")
    component_id = world.permit.components.get().pk
    for method, path, body in [
        ("post", "/components", {"component": "hotWork"}),
        ("patch", f"/components/{component_id}", {"notes": "x"}),
        ("delete", f"/components/{component_id}", None),
        ("post", "/workers", {"employee": world.joao.pk}),
        ("delete", f"/workers/{world.maria.pk}", None),
        ("post", "/validity", {"validity_days": 3}),
        ("patch", "", {"number": "77"}),
    ]:
        refused = call(supervisor_client, method, f"/permits/{world.permit.pk}{path}", body)
        assert (refused.status_code, refused.json()["code"]) == (422, "PERMIT_NOT_EDITABLE"), (method, path)


def test_components_are_added_annotated_and_removed(world, operator_client):
    base = f"/permits/{world.permit.pk}/components"
    added = call(operator_client, "post", base, {"component": "hotWork", "notes": "solda"})
    assert added.status_code == 201
    assert {k: added.json()[k] for k in ("key", "name", "undoable", "notes", "permit_revision")} == {
        "key": "hotWork", "name": "Trabalho a Quente", "undoable": True, "notes": "solda", "permit_revision": 2}
    duplicate = call(operator_client, "post", base, {"component": "hotWork"})
    assert (duplicate.status_code, duplicate.json()["code"]) == (422, "COMPONENT_ALREADY_PRESENT")
    patched = call(operator_client, "patch", f"{base}/{added.json()['id']}", {"notes": "solda MIG"})
    assert (patched.json()["notes"], patched.json()["permit_revision"]) == ("solda MIG", 3)
    removed = call(operator_client, "delete", f"{base}/{added.json()['id']}")
    assert (removed.status_code, removed["ETag"]) == (200, '"4"')
    # The removed component as it was: enough to add it back (its undo).
    assert {k: removed.json()[k] for k in ("key", "notes", "undoable", "permit_revision")} == {
        "key": "hotWork", "notes": "solda MIG", "undoable": True, "permit_revision": 4}
    assert [c["key"] for c in call(operator_client, "get", base).json()] == ["workingAtHeight"]


def test_workers_are_added_once_and_removed_by_employee_id(world, operator_client):
    base = f"/permits/{world.permit.pk}/workers"
    added = call(operator_client, "post", base, {"employee": world.joao.pk})
    assert (added.status_code, added.json()) == (201, {"id": world.joao.pk, "name": "João Silva",
                                                       "permit_revision": 2})
    duplicate = call(operator_client, "post", base, {"employee": world.joao.pk})
    assert (duplicate.status_code, duplicate.json()["code"]) == (422, "WORKER_ALREADY_PRESENT")
    assert call(operator_client, "delete", f"{base}/{world.maria.pk}").status_code == 204
    assert call(operator_client, "get", base).json() == [{"id": world.joao.pk, "name": "João Silva"}]
    assert call(operator_client, "delete", f"{base}/{world.maria.pk}").status_code == 404


def test_supervisor_deletes_a_permit(world, supervisor_client):
    assert call(supervisor_client, "delete", f"/permits/{world.permit.pk}").status_code == 204
    assert call(supervisor_client, "get", f"/permits/{world.permit.pk}").status_code == 404


def test_permit_close_is_only_for_approved_permits(world):
    from sst.errors import BusinessRuleError

    with pytest.raises(BusinessRuleError):
        services.permit_close(tenant=world.tenant, permit_id=world.permit.pk)
    services.permit_approve(tenant=world.tenant, permit_id=world.permit.pk)
    assert services.permit_close(tenant=world.tenant, permit_id=world.permit.pk).status == PermitStatus.CLOSED
