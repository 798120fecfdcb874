"""Cross-app test helper: the real capability manifest, loaded and approved by two staff users."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from registry.models import ApprovalKind, CapabilityStatus, CapabilityVersion
from registry.selectors import RegistrySnapshot, registry_snapshot, snapshot_clear
from registry.services import capability_approve, manifest_load


def _staff(username: str, codename: str):
    user, _ = get_user_model().objects.get_or_create(username=username, defaults={"is_staff": True})
    user.user_permissions.add(Permission.objects.get(content_type__app_label="registry", codename=codename))
    return get_user_model().objects.get(pk=user.pk)


def activate_manifest() -> RegistrySnapshot:
    author = get_user_model().objects.get_or_create(username="manifest-author", defaults={"is_staff": True})[0]
    tech, biz = _staff("tech-approver", "approve_technical"), _staff("biz-approver", "approve_business")
    manifest_load(directory=Path(settings.BASE_DIR) / "capabilities", author=author, submit=True)
    for version in CapabilityVersion.objects.filter(status=CapabilityStatus.PENDING_APPROVAL):
        capability_approve(version=version, approver=tech, kind=ApprovalKind.TECHNICAL, reason="tests")
        capability_approve(version=version, approver=biz, kind=ApprovalKind.BUSINESS, reason="tests")
    snapshot_clear()
    return registry_snapshot()
