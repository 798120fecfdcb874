"""Demo seeding of the Capability Registry: load the manifest and approve it like people would.

Creates a capability author and two approver staff users (`demo-approver-tech` holding
`registry.approve_technical`, `demo-approver-business` holding `registry.approve_business`),
loads `capabilities/*.yaml` and takes every new or changed version through the same services the
admin uses (submit, technical approval, business approval), so the two-person and author rules
apply to the demo too. Capabilities are global: the demo tenant is accepted and not used.

Idempotent: users are looked up first, an unchanged manifest creates no version, and only the
approvals a version still lacks are given. The approvers get an unusable password; to try the
admin, `manage.py changepassword demo-approver-tech` (and the business one).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TextIO

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db import transaction

from registry.models import ApprovalKind, CapabilityStatus, CapabilityVersion
from registry.services import capability_approve, capability_submit, manifest_load

AUTHOR = "demo-capability-author"
APPROVERS = {ApprovalKind.TECHNICAL: "demo-approver-tech", ApprovalKind.BUSINESS: "demo-approver-business"}
VIEW_PERMS = ["view_capability", "view_capabilityversion", "view_capabilityapproval", "view_capabilitystatuschange",
              "view_resource"]


def _staff(username: str, codenames: list[str]):
    user_model = get_user_model()
    user = user_model.objects.filter(username=username).first()
    if user is None:
        user = user_model(username=username, is_staff=True)
        user.set_unusable_password()
        user.save()
    user.user_permissions.add(*Permission.objects.filter(content_type__app_label="registry", codename__in=codenames))
    return user_model.objects.get(pk=user.pk)  # fresh permission cache


@transaction.atomic
def seed(*, stdout: TextIO, tenant: Any = None) -> None:
    author = _staff(AUTHOR, VIEW_PERMS)
    approvers = {kind: _staff(username, [*VIEW_PERMS, f"approve_{kind}"]) for kind, username in APPROVERS.items()}
    report = manifest_load(directory=Path(settings.BASE_DIR) / "capabilities", author=author)
    approved = 0
    waiting = (CapabilityVersion.objects.select_related("capability")
               .filter(status__in=[CapabilityStatus.DRAFT, CapabilityStatus.PENDING_APPROVAL])
               .order_by("capability__key", "version"))
    for version in waiting:
        if version.status == CapabilityStatus.DRAFT:
            capability_submit(version=version, actor=author, reason="demo: submitted by seed_demo")
        given = set(version.approvals.values_list("kind", flat=True))
        for kind, approver in approvers.items():
            if kind not in given:
                capability_approve(version=version, approver=approver, kind=kind,
                                   reason=f"demo: {kind} approval by seed_demo")
        approved += 1
    stdout.write(f"registry: {len(report.created)} new versions, {approved} approved, "
                 f"{CapabilityVersion.objects.filter(status=CapabilityStatus.ACTIVE).count()} active\n")
