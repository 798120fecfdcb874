"""Registry fixtures: the real manifest, an author, two approvers, and an activation helper."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from registry.models import (
    ApprovalKind,
    Capability,
    CapabilityStatus,
    CapabilityStatusChange,
    CapabilityVersion,
    Resource,
)
from registry.selectors import snapshot_clear
from registry.services import capability_approve, capability_submit, manifest_load

MANIFEST_DIR = Path(settings.BASE_DIR) / "capabilities"


def make_staff(username: str, *codenames: str):
    user = get_user_model().objects.create_user(username=username, password="pw-12345678", is_staff=True)
    perms = Permission.objects.filter(content_type__app_label="registry", codename__in=codenames)
    assert perms.count() == len(codenames)
    user.user_permissions.add(*perms)
    return get_user_model().objects.get(pk=user.pk)  # fresh: no stale permission cache


@pytest.fixture(autouse=True)
def _fresh_snapshot():
    snapshot_clear()
    yield
    snapshot_clear()


@pytest.fixture
def author(db):
    return make_staff("cap-author", "view_capabilityversion")


@pytest.fixture
def tech(db):
    return make_staff("approver-tech", "approve_technical", "view_capabilityversion")


@pytest.fixture
def biz(db):
    return make_staff("approver-biz", "approve_business", "view_capabilityversion")


@pytest.fixture
def loaded(author):
    """The real manifest loaded as DRAFT versions authored by `author`."""
    return manifest_load(directory=MANIFEST_DIR, author=author)


@pytest.fixture
def draft(author) -> CapabilityVersion:
    """One small DRAFT version (workPermit.read), without loading the whole manifest: fast lifecycle tests."""
    resource = Resource.objects.create(key="sst-api", base_path="/api/sst/")
    capability = Capability.objects.create(key="workPermit.read")
    version = CapabilityVersion.objects.create(
        capability=capability, version=1, description="Read one work permit.", kind="read", risk_level="read",
        required_permissions=["sst.read"], input_schema={"type": "object"}, resource=resource, http_method="GET",
        path_template="permits/{permit_id}", definition_hash="0" * 64, author=author)
    CapabilityStatusChange.objects.create(capability_version=version, to_status=CapabilityStatus.DRAFT,
                                          actor=author, reason="created by the test")
    return CapabilityVersion.objects.select_related("capability", "author").get(pk=version.pk)


def version_of(capability_id: str, version: int | None = None) -> CapabilityVersion:
    queryset = CapabilityVersion.objects.select_related("capability").filter(capability__key=capability_id)
    return queryset.get(version=version) if version else queryset.order_by("-version").first()


def activate(version: CapabilityVersion, tech, biz) -> CapabilityVersion:
    if version.status == CapabilityStatus.DRAFT:
        capability_submit(version=version, actor=version.author)
    capability_approve(version=version, approver=tech, kind=ApprovalKind.TECHNICAL, reason="schemas reviewed")
    capability_approve(version=version, approver=biz, kind=ApprovalKind.BUSINESS, reason="business agrees")
    version.refresh_from_db()
    return version


@pytest.fixture
def all_active(loaded, tech, biz):
    """Every capability of the manifest ACTIVE."""
    for version in CapabilityVersion.objects.select_related("capability", "author"):
        activate(version, tech, biz)
