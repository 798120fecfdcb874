"""Shared fixtures: named users per role in a tenant, an other-tenant user, and API clients.

Tests run against the real PostgreSQL and Redis that `make test` points at.
"""

from __future__ import annotations

import itertools

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from config import logqueue
from execution import hedge_pool
from tenancy import db as tenancy_db
from tenancy.models import Role, Tenant
from tenancy.services import access_token_issue, membership_grant, tenant_create

# Fixtures every test may use without importing them (the fake LLM on a loopback socket).
pytest_plugins = ["tests.fakes.llm_server"]

# Log lines written while their test runs, so the test's output capture holds them.
logqueue.SYNCHRONOUS = True

_seq = itertools.count()

# The test database is created, migrated and dropped by the login (the owner); the tests run as the
# application's runtime role (DATABASE_RUNTIME_ROLE), which cannot delete an audit row (tenancy.db).
tenancy_db.act_as_owner(True)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        tenancy_db.act_as_owner(False)
    yield
    with django_db_blocker.unblock():
        hedge_pool.close_connections()  # kept threads' connections would stop the test database's drop
        tenancy_db.act_as_owner(True)


def make_tenant(name: str = "Tenant") -> Tenant:
    n = next(_seq)
    return tenant_create(slug=f"t{n}-{name.lower().replace(' ', '-')}"[:60], name=name)


def make_user(tenant: Tenant, role: str, username: str | None = None):
    user = get_user_model().objects.create_user(username=username or f"{role}-{next(_seq)}", password="pw-12345678")
    membership_grant(user=user, tenant=tenant, role=role)
    return user


def client_for(user, tenant: Tenant) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {access_token_issue(user=user, tenant=tenant)}")
    client.user = user
    client.tenant = tenant
    return client


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings) -> None:
    # Every test user hashes a password; PBKDF2 at production cost would dominate the suite.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def tenant(db) -> Tenant:
    return make_tenant("Acme")


@pytest.fixture
def other_tenant(db) -> Tenant:
    return make_tenant("Other")


@pytest.fixture
def viewer(tenant):
    return make_user(tenant, Role.VIEWER, "viewer")


@pytest.fixture
def operator(tenant):
    return make_user(tenant, Role.OPERATOR, "operator")


@pytest.fixture
def supervisor(tenant):
    return make_user(tenant, Role.SUPERVISOR, "supervisor")


@pytest.fixture
def other_user(other_tenant):
    return make_user(other_tenant, Role.SUPERVISOR, "other-supervisor")


@pytest.fixture
def viewer_client(viewer, tenant) -> APIClient:
    return client_for(viewer, tenant)


@pytest.fixture
def operator_client(operator, tenant) -> APIClient:
    return client_for(operator, tenant)


@pytest.fixture
def supervisor_client(supervisor, tenant) -> APIClient:
    return client_for(supervisor, tenant)


@pytest.fixture
def other_client(other_user, other_tenant) -> APIClient:
    return client_for(other_user, other_tenant)
