"""Another tenant's objects are a 404 on every endpoint and a 400 when referenced; roles are enforced."""

from __future__ import annotations

import pytest
from django.urls import reverse

from conftest import client_for, make_user
from sst import urls
from sst.models import Inspection, WorkPermit
from tenancy.models import Role, role_at_least

from .conftest import World
from .helpers import call
from .routes import OBJECT_ROUTES, ROUTES, fill, ids_of


def revisions(world: World) -> tuple[int, int]:
    """(permit, inspection) revisions of the world, as built: (1, 2) until something writes."""
    return (WorkPermit.objects.for_tenant(world.tenant).get(pk=world.permit.pk).revision,
            Inspection.objects.for_tenant(world.tenant).get(pk=world.inspection.pk).revision)


def test_the_route_table_covers_every_url_name():
    assert {f"sst:{r.name}" for r in ROUTES} == urls.route_names()
    assert reverse("sst:permit-validity", kwargs={"id": 5}) == "/api/sst/permits/5/validity"


@pytest.mark.parametrize("route", OBJECT_ROUTES, ids=lambda r: f"{r.method}-{r.name}")
def test_another_tenants_ids_are_not_found(route, world, other_world, tenant):
    admin = client_for(make_user(tenant, Role.ADMIN), tenant)
    # The URL names the other tenant's objects; the body only the caller's own (references in a
    # body are checked by test_references_to_another_tenants_objects_are_field_errors).
    path, body = fill(route, ids_of(other_world), ids_of(world))
    response = call(admin, route.method, path, body)
    assert (response.status_code, response.json()["code"]) == (404, "not_found")
    assert "Gama" not in response.content.decode() and "Alfa" not in response.content.decode()
    assert revisions(other_world) == (1, 2)


@pytest.mark.parametrize("route", OBJECT_ROUTES, ids=lambda r: f"{r.method}-{r.name}")
def test_missing_ids_are_not_found_the_same_way(route, world, tenant):
    admin = client_for(make_user(tenant, Role.ADMIN), tenant)
    path, body = fill(route, {k: 10**9 + v for k, v in ids_of(world).items()} | {"alfa": world.alfa.pk})
    assert call(admin, route.method, path, body).status_code in (404, 400)


def test_lists_and_counts_show_only_the_callers_tenant(world, other_world, viewer_client):
    assert call(viewer_client, "get", "/permits/count").json() == {"count": 1}
    assert [p["id"] for p in call(viewer_client, "get", "/permits").json()] == [world.permit.pk]
    assert call(viewer_client, "get", "/employees", {"company": other_world.alfa.pk}).json() == []


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/permits", {"company": "{other_alfa}", "validity_days": 5}, "company"),
        ("/permits", {"company": "{alfa}", "validity_days": 5, "responsible": "{other_joao}"}, "responsible"),
        ("/permits", {"company": "{alfa}", "validity_days": 5, "workers": ["{other_joao}"]}, "workers"),
        ("/permits/{permit}/workers", {"employee": "{other_joao}"}, "employee"),
    ],
)
def test_references_to_another_tenants_objects_are_field_errors(path, body, field, world, other_world,
                                                                 operator_client):
    ids = {"alfa": world.alfa.pk, "permit": world.permit.pk, "other_alfa": other_world.alfa.pk,
           "other_joao": other_world.joao.pk}

    def resolve(value):
        if isinstance(value, list):
            return [resolve(v) for v in value]
        return ids[value[1:-1]] if isinstance(value, str) and value.startswith("{") else value

    response = call(operator_client, "post", path.format(**ids), {k: resolve(v) for k, v in body.items()})
    assert response.status_code == 400
    assert list(response.json()["errors"]) == [field]


def test_a_component_key_of_another_tenant_is_unknown(world, other_tenant, operator_client):
    from sst import services

    services.component_type_create(tenant=other_tenant, key="secretKey", name="Segredo")
    response = call(operator_client, "post", f"/permits/{world.permit.pk}/components", {"component": "secretKey"})
    assert (response.status_code, list(response.json()["errors"])) == (400, ["component"])


@pytest.mark.parametrize("route", [r for r in ROUTES if r.role != Role.VIEWER], ids=lambda r: f"{r.method}-{r.name}")
@pytest.mark.parametrize("role", [Role.VIEWER, Role.OPERATOR, Role.SUPERVISOR])
def test_writes_need_their_role(route, role, world, tenant):
    client = client_for(make_user(tenant, role), tenant)
    path, body = fill(route, ids_of(world))
    response = call(client, route.method, path, body)
    if role_at_least(role, route.role):
        assert response.status_code in (200, 201, 204), response.content
    else:
        assert response.status_code == 403
        assert revisions(world) == (1, 2)


def test_unauthenticated_calls_are_refused(world, client):
    assert client.get(f"/api/sst/permits/{world.permit.pk}").status_code in (401, 403)
