"""The cached token context (tenancy/token_cache.py) is never served after what it was built from
changed: each test authenticates once (the context is cached), changes one thing, and checks the
very next request. The cache is the real one of the settings (Redis under `make test`)."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from conftest import make_tenant, make_user
from tenancy.models import AccessToken, Membership, Role
from tenancy.services import access_token_issue, membership_grant

pytestmark = pytest.mark.django_db(transaction=True)


def _client(user, tenant, **issue) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {access_token_issue(user=user, tenant=tenant, **issue)}")
    return client


def _me(client):
    return client.get("/api/tenancy/me")


def test_a_cached_token_costs_no_statement(operator, tenant):
    client = _client(operator, tenant)
    assert _me(client).status_code == 200
    with CaptureQueriesContext(connection) as queries:
        assert _me(client).json()["role"] == Role.OPERATOR
    assert [q["sql"] for q in queries.captured_queries
            if "tenancy_accesstoken" in q["sql"] or "tenancy_membership" in q["sql"]] == []


def test_a_revoked_token_is_refused_at_once(operator, tenant):
    client = _client(operator, tenant)
    assert _me(client).status_code == 200
    AccessToken.objects.filter(user=operator).delete()
    assert _me(client).status_code == 401


def test_a_role_change_is_seen_at_once(operator, tenant):
    client = _client(operator, tenant)
    assert _me(client).json()["role"] == Role.OPERATOR
    membership_grant(user=operator, tenant=tenant, role=Role.VIEWER)  # a save
    assert _me(client).json()["role"] == Role.VIEWER
    Membership.objects.filter(user=operator, tenant=tenant).update(role=Role.SUPERVISOR)  # a bulk update
    assert _me(client).json()["role"] == Role.SUPERVISOR


def test_a_removed_membership_is_refused_at_once(operator, tenant):
    client = _client(operator, tenant)
    assert _me(client).status_code == 200
    Membership.objects.filter(user=operator, tenant=tenant).delete()
    assert _me(client).status_code == 401


def test_a_deactivated_user_is_refused_at_once(operator, tenant):
    client = _client(operator, tenant)
    assert _me(client).status_code == 200
    operator.is_active = False
    operator.save()
    assert _me(client).status_code == 401


def test_an_expired_token_is_refused_though_cached(operator, tenant):
    client = _client(operator, tenant, expires_at=timezone.now() + timedelta(minutes=10))
    assert _me(client).status_code == 200
    with time_machine.travel(timezone.now() + timedelta(minutes=11)):
        assert _me(client).status_code == 401


def test_a_change_elsewhere_leaves_other_tokens_alone_and_never_crosses_tenants(operator, tenant):
    other = make_tenant("Elsewhere")
    membership_grant(user=operator, tenant=other, role=Role.VIEWER)
    here, there = _client(operator, tenant), _client(operator, other)
    assert (_me(here).json()["tenant"], _me(there).json()["tenant"]) == (str(tenant.pk), str(other.pk))
    stranger = make_user(other, Role.ADMIN, "stranger")
    Membership.objects.filter(user=stranger).update(role=Role.VIEWER)
    assert (_me(here).json()["role"], _me(there).json()["role"]) == (Role.OPERATOR, Role.VIEWER)
