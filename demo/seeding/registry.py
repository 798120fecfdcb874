"""Demo seeding of the Capability Registry: the shipped manifest active, and one version left to approve.

`seed()` loads `capabilities/*.yaml` as `demo-capability-author` and activates the shipped
manifest's new versions through the same services the admin uses (submit, technical approval,
business approval), under two seeding identities (`seed-bootstrap-technical`,
`seed-bootstrap-business`): staff users with an unusable password, so nobody logs in as them and
the approval records say plainly that the seeder gave them. It never approves on a person's behalf:

- the people who try the flow, `demo-approver-tech` (`registry.approve_technical`) and
  `demo-approver-business` (`registry.approve_business`), log in with the demo password and give
  their approvals themselves;
- a version that already holds an approval (someone started approving it) is left as it is: a
  second run reports it as waiting instead of completing it;
- only the shipped manifest's capabilities are bootstrapped, never the demo's pending one.

`seed_pending()` (run by `manage.py seed_demo` only) loads `demo/capabilities/` — one harmless
navigation capability — and submits it, so the demo has a version waiting for approval.

Idempotent: users are looked up first, an unchanged manifest creates no version, and a version is
approved at most once. Capabilities are global: the demo tenant is accepted and not used.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TextIO

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db import transaction

from demo.seeding.sst import DEMO_PASSWORD
from registry.approval_selectors import approvals_still_needed
from registry.manifest import manifest_read
from registry.models import ApprovalKind, CapabilityStatus, CapabilityVersion
from registry.services import capability_approve, capability_submit, manifest_load

AUTHOR = "demo-capability-author"
BOOTSTRAP = {ApprovalKind.TECHNICAL: "seed-bootstrap-technical", ApprovalKind.BUSINESS: "seed-bootstrap-business"}
APPROVERS = {ApprovalKind.TECHNICAL: "demo-approver-tech", ApprovalKind.BUSINESS: "demo-approver-business"}
VIEW_PERMS = ["view_capability", "view_capabilityversion", "view_capabilityapproval", "view_capabilitystatuschange",
              "view_resource"]
MANIFEST_DIR = Path(settings.BASE_DIR) / "capabilities"
PENDING_DIR = Path(settings.BASE_DIR) / "demo" / "capabilities"
WAITING = (CapabilityStatus.DRAFT, CapabilityStatus.PENDING_APPROVAL)


def _staff(username: str, codenames: list[str], password: str | None = None):
    user_model = get_user_model()
    user = user_model.objects.filter(username=username).first()
    if user is None:
        user = user_model(username=username, is_staff=True)
        if password is None:
            user.set_unusable_password()
        else:
            user.set_password(password)
        user.save()
    user.user_permissions.add(*Permission.objects.filter(content_type__app_label="registry", codename__in=codenames))
    return user_model.objects.get(pk=user.pk)  # fresh permission cache


def _approvers() -> None:
    for kind, username in APPROVERS.items():
        _staff(username, [*VIEW_PERMS, f"approve_{kind}"], password=DEMO_PASSWORD)


@transaction.atomic
def seed(*, stdout: TextIO, tenant: Any = None) -> None:
    author = _staff(AUTHOR, VIEW_PERMS)
    bootstrap = {kind: _staff(username, [*VIEW_PERMS, f"approve_{kind}"]) for kind, username in BOOTSTRAP.items()}
    _approvers()
    report = manifest_load(directory=MANIFEST_DIR, author=author)
    shipped = set(manifest_read(MANIFEST_DIR).capabilities)
    activated, left = 0, []
    waiting = (CapabilityVersion.objects.select_related("capability").prefetch_related("approvals")
               .filter(status__in=WAITING, capability__key__in=shipped).order_by("capability__key", "version"))
    for version in waiting:
        if version.author_id != author.pk or version.approvals.exists():
            left.append(version)  # someone else's, or someone started approving it: theirs to finish
            continue
        if version.status == CapabilityStatus.DRAFT:
            capability_submit(version=version, actor=author, reason="demo: shipped manifest, submitted by seed_demo")
        for kind, approver in bootstrap.items():
            capability_approve(version=version, approver=approver, kind=kind,
                               reason=f"demo bootstrap: the shipped manifest's {kind} approval, given by seed_demo")
        activated += 1
    stdout.write(f"registry: {len(report.created)} new versions, {activated} activated by the seeding identities, "
                 f"{CapabilityVersion.objects.filter(status=CapabilityStatus.ACTIVE).count()} active\n")
    for version in left:
        stdout.write(f"registry: {version.capability.key} v{version.version} is waiting for approval "
                     f"({_still_needed(version)}); seed_demo leaves it to the approvers\n")


@transaction.atomic
def seed_pending(*, stdout: TextIO, tenant: Any = None) -> None:
    """The demo's version waiting for approval (demo/capabilities/), submitted once and never approved here."""
    author = _staff(AUTHOR, VIEW_PERMS)
    manifest_load(directory=PENDING_DIR, author=author)
    keys = set(manifest_read(PENDING_DIR).capabilities)
    for version in (CapabilityVersion.objects.select_related("capability")
                    .filter(capability__key__in=keys, status__in=WAITING).order_by("capability__key", "version")):
        if version.status == CapabilityStatus.DRAFT:
            capability_submit(version=version, actor=author, reason="demo: a version to try the two-person approval")
        stdout.write(f"registry: {version.capability.key} v{version.version} waits for approval "
                     f"({_still_needed(version)}): log in at /admin/ as {APPROVERS[ApprovalKind.TECHNICAL]} "
                     f"and {APPROVERS[ApprovalKind.BUSINESS]}\n")


def _still_needed(version: CapabilityVersion) -> str:
    missing = approvals_still_needed(version=version)
    return " and ".join(kind.label.lower() for kind in missing) + " approval still needed" if missing else "complete"
