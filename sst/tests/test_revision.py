"""If-Match: <revision> on every permit write; a stale revision is a 409 and changes nothing."""

from __future__ import annotations

import pytest

from sst.models import WorkPermit

from .helpers import call
from .routes import ROUTES, fill, ids_of

PERMIT_WRITES = [r for r in ROUTES if r.method != "get" and "{permit}" in r.path]


@pytest.mark.parametrize("route", PERMIT_WRITES, ids=lambda r: f"{r.method}-{r.name}")
def test_a_stale_revision_is_refused_on_every_permit_write(route, world, tenant):
    from conftest import client_for, make_user
    from tenancy.models import Role

    admin = client_for(make_user(tenant, Role.ADMIN), tenant)
    path, body = fill(route, ids_of(world))
    stale = call(admin, route.method, path, body, **{"If-Match": '"7"'})
    assert (stale.status_code, stale.json()["code"], stale.json()["current_revision"]) == (
        409, "REVISION_MISMATCH", 1)
    assert WorkPermit.objects.for_tenant(tenant).get(pk=world.permit.pk).revision == 1
    fresh = call(admin, route.method, path, body, **{"If-Match": '"1"'})
    assert fresh.status_code in (200, 201, 204)


@pytest.mark.parametrize("header", ["1", '"1"', 'W/"1"', "*"])
def test_if_match_accepts_bare_quoted_weak_and_any(header, world, operator_client):
    response = call(operator_client, "post", f"/permits/{world.permit.pk}/validity", {"validity_days": 5},
                    **{"If-Match": header})
    assert (response.status_code, response["ETag"]) == (200, '"2"')


def test_a_malformed_if_match_is_a_bad_request(world, operator_client):
    response = call(operator_client, "post", f"/permits/{world.permit.pk}/validity", {"validity_days": 5},
                    **{"If-Match": "abc"})
    assert (response.status_code, response.json()["code"]) == (400, "INVALID_IF_MATCH")


def test_each_write_bumps_the_revision_once(world, operator_client):
    base = f"/permits/{world.permit.pk}"
    call(operator_client, "post", f"{base}/validity", {"validity_days": 5})
    call(operator_client, "post", f"{base}/components", {"component": "hotWork"})
    call(operator_client, "post", f"{base}/workers", {"employee": world.joao.pk})
    assert call(operator_client, "get", base).json()["revision"] == 4
