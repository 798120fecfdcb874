"""Every read endpoint's happy path and filters (a viewer may read everything of its tenant)."""

from __future__ import annotations

from sst import services
from sst.models import PermitStatus

from .helpers import call


def test_companies_are_listed_and_searched_without_accents(world, viewer_client):
    assert call(viewer_client, "get", "/companies").json() == [
        {"id": world.alfa.pk, "name": "Alfa Construções"}, {"id": world.beta.pk, "name": "Beta Montagens"}]
    assert [c["name"] for c in call(viewer_client, "get", "/companies", {"q": "construcoes"}).json()] == [
        "Alfa Construções"]


def test_component_types_match_name_or_key_ignoring_accents(world, viewer_client):
    body = call(viewer_client, "get", "/component-types", {"q": "espaco"}).json()
    assert body == [{"id": world.types["confinedSpace"].pk, "key": "confinedSpace", "name": "Espaço Confinado",
                     "undoable": True}]
    assert [t["key"] for t in call(viewer_client, "get", "/component-types", {"q": "HOTWORK"}).json()] == ["hotWork"]
    assert len(call(viewer_client, "get", "/component-types").json()) == 4


def test_employees_match_any_part_of_the_name_and_filter_by_company(world, viewer_client):
    other = services.employee_create(tenant=world.tenant, company=world.beta, name="João Pereira")
    names = [e["name"] for e in call(viewer_client, "get", "/employees", {"q": "JOAO"}).json()]
    assert names == ["João Pereira", "João Silva"]
    assert call(viewer_client, "get", "/employees", {"q": "souza"}).json() == [
        {"id": world.maria.pk, "name": "Maria Souza", "company": {"id": world.alfa.pk, "name": "Alfa Construções"}}]
    assert call(viewer_client, "get", "/employees/count", {"q": "joão", "company": world.beta.pk}).json() == {
        "count": 1}
    assert call(viewer_client, "get", f"/employees/{other.pk}").json()["company"]["name"] == "Beta Montagens"


def test_permit_representation_has_every_field_and_an_etag(world, viewer_client):
    response = call(viewer_client, "get", f"/permits/{world.permit.pk}")
    body = response.json()
    assert response["ETag"] == '"1"'
    assert {k: body[k] for k in ("number", "company", "status", "validity_days", "responsible", "revision")} == {
        "number": "123", "company": {"id": world.alfa.pk, "name": "Alfa Construções"}, "status": "DRAFT",
        "validity_days": 30, "responsible": {"id": world.joao.pk, "name": "João Silva"}, "revision": 1}
    assert body["components"] == [{"id": world.permit.components.get().pk, "key": "workingAtHeight",
                                   "name": "Trabalho em Altura", "undoable": True, "notes": ""}]
    assert body["workers"] == [{"id": world.maria.pk, "name": "Maria Souza"}]
    assert body["created_at"] and body["updated_at"]


def test_permits_are_filtered_by_number_company_status_and_text(world, viewer_client):
    beta_123 = services.permit_create(tenant=world.tenant, company=world.beta, number="123", validity_days=10)
    services.permit_approve(tenant=world.tenant, permit_id=beta_123.pk)

    def ids(**query):
        return [p["id"] for p in call(viewer_client, "get", "/permits", query).json()]

    assert ids(number="123") == [world.permit.pk, beta_123.pk]
    assert ids(number="123", company=world.beta.pk) == [beta_123.pk]
    assert ids(company_name="beta montagens") == [beta_123.pk]
    assert ids(status=PermitStatus.APPROVED) == [beta_123.pk]
    assert ids(q="joão") == [world.permit.pk]
    assert call(viewer_client, "get", "/permits/count", {"number": "123"}).json() == {"count": 2}


def test_permits_are_filtered_by_having_components_or_workers(world, viewer_client):
    bare = services.permit_create(tenant=world.tenant, company=world.beta, number="900", validity_days=10)

    def ids(path="/permits", **query):
        return [p["id"] for p in call(viewer_client, "get", path, query).json()]

    # world.permit has one component and one worker; `bare` has neither
    assert ids(has_components="HAS_ANY") == ids(has_workers="HAS_ANY") == [world.permit.pk]
    assert ids(has_components="HAS_NONE") == ids(has_workers="HAS_NONE") == [bare.pk]
    assert call(viewer_client, "get", "/permits/count", {"has_workers": "HAS_NONE"}).json() == {"count": 1}
    refused = call(viewer_client, "get", "/permits", {"has_workers": "maybe"})
    assert refused.status_code == 400 and "has_workers" in refused.content.decode()


def test_permits_are_filtered_by_responsible_and_by_component(world, viewer_client):
    other = services.permit_create(tenant=world.tenant, company=world.beta, number="901", validity_days=10,
                                   responsible=world.maria, component_types=[world.types["confinedSpace"]])

    def ids(path="/permits", **query):
        return [p["id"] for p in call(viewer_client, "get", path, query).json()]

    assert ids(responsible=world.joao.pk) == [world.permit.pk]
    assert ids(responsible=world.maria.pk) == [other.pk]
    assert ids(component="workingAtHeight") == [world.permit.pk]
    assert ids(component="confinedSpace", responsible=world.joao.pk) == []
    assert call(viewer_client, "get", "/permits/count", {"component": "confinedSpace"}).json() == {"count": 1}
    refused = call(viewer_client, "get", "/permits", {"responsible": "joão"})
    assert refused.status_code == 400 and "responsible" in refused.content.decode()


def test_permit_children_are_listed(world, viewer_client):
    components = call(viewer_client, "get", f"/permits/{world.permit.pk}/components").json()
    assert [c["key"] for c in components] == ["workingAtHeight"]
    assert call(viewer_client, "get", f"/permits/{world.permit.pk}/workers").json() == [
        {"id": world.maria.pk, "name": "Maria Souza"}]


def test_a_permit_read_takes_a_fixed_number_of_queries(world, viewer_client, django_assert_max_num_queries):
    for _ in range(3):
        services.permit_create(tenant=world.tenant, company=world.alfa, validity_days=5,
                               component_types=[world.types["hotWork"]], workers=[world.joao])
    # auth (token, membership) + permits + components + workers: not one per permit.
    with django_assert_max_num_queries(6):
        assert len(call(viewer_client, "get", "/permits").json()) == 4


def test_bad_query_parameters_are_field_errors(world, viewer_client):
    response = call(viewer_client, "get", "/permits", {"company": "abc", "status": "NOPE"})
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"company", "status"}
