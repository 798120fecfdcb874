from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from conftest import make_tenant, make_user
from tenancy.models import Role
from tenancy.services import NotAMember, access_token_issue


def test_token_acts_in_the_tenant_it_was_issued_for(operator, tenant, other_tenant):
    # The same user belongs to two tenants; each token acts in its own tenant only.
    from tenancy.services import membership_grant

    membership_grant(user=operator, tenant=other_tenant, role=Role.VIEWER)
    for t, role in ((tenant, "operator"), (other_tenant, "viewer")):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {access_token_issue(user=operator, tenant=t)}")
        body = client.get("/api/tenancy/me").json()
        assert (body["tenant"], body["role"]) == (str(t.pk), role)


def test_token_cannot_be_issued_for_a_tenant_the_user_is_not_in(operator, other_tenant):
    with pytest.raises(NotAMember):
        access_token_issue(user=operator, tenant=other_tenant)


def test_forged_or_missing_token_is_refused(db):
    client = APIClient()
    assert client.get("/api/tenancy/me").status_code in (401, 403)
    client.credentials(HTTP_AUTHORIZATION="Token forged-token-value")
    assert client.get("/api/tenancy/me").status_code == 401


def test_token_of_a_removed_membership_stops_working(operator, tenant):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {access_token_issue(user=operator, tenant=tenant)}")
    operator.memberships.all().delete()
    assert client.get("/api/tenancy/me").status_code == 401


def test_session_user_with_two_tenants_must_choose_one(db):
    first, second, third = make_tenant("First"), make_tenant("Second"), make_tenant("Third")
    user = make_user(first, Role.OPERATOR, "two-tenants")
    from tenancy.services import membership_grant

    membership_grant(user=user, tenant=second, role=Role.VIEWER)
    client = APIClient()
    client.force_login(user)
    assert client.get("/api/tenancy/me").status_code == 403
    assert client.post("/api/tenancy/switch", {"tenant": str(third.pk)}, format="json").status_code == 404
    assert client.post("/api/tenancy/switch", {"tenant": str(second.pk)}, format="json").status_code == 200
    assert client.get("/api/tenancy/me").json()["role"] == "viewer"


def test_session_user_with_one_tenant_needs_no_choice(operator, tenant):
    client = APIClient()
    client.force_login(operator)
    assert client.get("/api/tenancy/me").json()["tenant"] == str(tenant.pk)
