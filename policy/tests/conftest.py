from __future__ import annotations

import uuid

import pytest

from . import factories


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings) -> None:
    """The shared user factory sets passwords; PBKDF2 would dominate this suite's run time."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


# Preconditions as the manifest declares them (capabilities/work_permits.yaml).
_SAYS = {"pt-BR": "não pode", "en": "cannot"}
EDITABLE_ONLY = {"target": "workPermit", "fact": "status", "not_in": ["CANCELLED", "CLOSED"],
                 "code": "PERMIT_NOT_EDITABLE", "says": _SAYS}
NOT_APPROVED = {"target": "workPermit", "fact": "status", "not_in": ["APPROVED"], "code": "PERMIT_APPROVED",
                "says": {"pt-BR": "a permissão está aprovada", "en": "the permit is approved"}}


@pytest.fixture
def caps(db):
    """Capabilities shaped like the SST manifest's, one per risk level."""
    return {
        "get": factories.capability("workPermit.get", risk="read", permissions=("sst.read",)),
        "validity": factories.capability("workPermit.updateValidity", risk="medium",
                                         preconditions=[NOT_APPROVED, EDITABLE_ONLY]),
        "add": factories.capability("workPermit.components.add", risk="low", preconditions=[EDITABLE_ONLY]),
        "delete": factories.capability("workPermit.delete", risk="high", permissions=("sst.delete",),
                                       method="DELETE"),
        "approve": factories.capability("workPermit.approve", risk="high", permissions=("sst.approve",),
                                        preconditions=[{"target": "workPermit", "fact": "status", "in": ["DRAFT"],
                                                        "code": "INVALID_STATUS", "says": _SAYS}]),
        "purge": factories.capability("workPermit.purge", risk="critical", permissions=("sst.delete",),
                                      method="DELETE"),
    }


@pytest.fixture
def plan_id() -> uuid.UUID:
    return uuid.uuid4()
