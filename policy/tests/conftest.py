from __future__ import annotations

import uuid

import pytest

from . import factories


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings) -> None:
    """The shared user factory sets passwords; PBKDF2 would dominate this suite's run time."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def caps(db):
    """Capabilities shaped like the SST manifest's, one per risk level."""
    return {
        "get": factories.capability("workPermit.get", risk="read", permissions=("sst.read",)),
        "validity": factories.capability("workPermit.updateValidity", risk="medium"),
        "add": factories.capability("workPermit.components.add", risk="low"),
        "delete": factories.capability("workPermit.delete", risk="high", permissions=("sst.delete",),
                                       method="DELETE"),
        "approve": factories.capability("workPermit.approve", risk="high", permissions=("sst.approve",)),
        "purge": factories.capability("workPermit.purge", risk="critical", permissions=("sst.delete",),
                                      method="DELETE"),
    }


@pytest.fixture
def plan_id() -> uuid.UUID:
    return uuid.uuid4()
