from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from registry.models import CapabilityVersion
from registry.services import capability_suspend, tenant_capability_block

from .conftest import activate, version_of

SOME = ["workPermit.read", "workPermit.components.add", "workPermit.delete", "employee.read",
        "navigation.workPermit.open", "knowledge.search", "workPermit.approve"]


@pytest.fixture
def some_active(loaded, tech, biz):
    for capability_id in SOME:
        activate(version_of(capability_id), tech, biz)


def _ids(client) -> set[str]:
    response = client.get("/agent/capabilities")
    assert response.status_code == 200, response.content
    return {item["id"] for item in response.json()}


def test_viewer_discovers_reads_navigation_and_knowledge_only(some_active, viewer_client):
    assert _ids(viewer_client) == {"workPermit.read", "navigation.workPermit.open", "knowledge.search"}


def test_operator_also_discovers_medium_writes_but_not_supervisor_operations(some_active, operator_client):
    assert _ids(operator_client) == {"workPermit.read", "navigation.workPermit.open", "knowledge.search",
                                     "workPermit.components.add"}


def test_supervisor_discovers_delete_and_approve(some_active, supervisor_client):
    assert {"workPermit.delete", "workPermit.approve"} <= _ids(supervisor_client)


def test_internal_draft_and_suspended_capabilities_are_never_discovered(some_active, supervisor_client, tech):
    capability_suspend(version=version_of("workPermit.read"), actor=tech, reason="incident")
    ids = _ids(supervisor_client)
    assert "employee.read" not in ids  # ACTIVE but internal
    assert "workPermit.search" not in ids  # still DRAFT
    assert "workPermit.read" not in ids  # suspended


def test_a_capability_blocked_for_a_tenant_is_hidden_there_only(some_active, tech, tenant, supervisor_client,
                                                               other_client):
    tenant_capability_block(tenant=tenant, capability_key="workPermit.delete", actor=tech, reason="not here")
    assert "workPermit.delete" not in _ids(supervisor_client)
    assert "workPermit.delete" in _ids(other_client)


def test_discovery_needs_authentication(some_active):
    assert APIClient().get("/agent/capabilities").status_code in (401, 403)
    forged = APIClient()
    forged.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert forged.get("/agent/capabilities").status_code == 401


def test_discovery_answers_with_the_capability_description(some_active, viewer_client):
    item = next(i for i in viewer_client.get("/agent/capabilities").json() if i["id"] == "workPermit.read")
    active = CapabilityVersion.objects.get(capability__key="workPermit.read", status="ACTIVE")
    assert item == {"id": "workPermit.read", "version": active.version, "description": active.description,
                    "kind": "read", "risk_level": "read", "required_permissions": ["sst.read"],
                    "entity": "workPermit", "input_schema": active.input_schema}
