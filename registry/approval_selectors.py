"""Reads of the two-person approval: what waits for a given approver, and what a version still needs."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Exists, OuterRef, Q, QuerySet

from .models import ApprovalKind, CapabilityApproval, CapabilityStatus, CapabilityVersion
from .services import APPROVE_PERMISSION


def kinds_user_may_give(user: AbstractBaseUser) -> list[ApprovalKind]:
    if not (user.is_active and user.is_staff):
        return []
    return [kind for kind, permission in APPROVE_PERMISSION.items() if user.has_perm(permission)]


def versions_waiting_for(*, user: AbstractBaseUser) -> QuerySet[CapabilityVersion]:
    """PENDING_APPROVAL versions `user` could approve now: a kind they hold is still missing, they are not
    the author and have not approved the version yet (the same rules capability_approve enforces)."""
    kinds = kinds_user_may_give(user)
    if not kinds:
        return CapabilityVersion.objects.none()
    missing = Q()
    for kind in kinds:
        missing |= ~Exists(CapabilityApproval.objects.filter(capability_version=OuterRef("pk"), kind=kind))
    return (CapabilityVersion.objects.filter(status=CapabilityStatus.PENDING_APPROVAL).filter(missing)
            .exclude(author=user).exclude(approvals__approver=user))


def approvals_still_needed(*, version: CapabilityVersion) -> list[ApprovalKind]:
    """The kinds a pending version still lacks (empty when it is not pending)."""
    if version.status != CapabilityStatus.PENDING_APPROVAL:
        return []
    given = set(version.approvals.values_list("kind", flat=True))
    return [kind for kind in ApprovalKind if kind not in given]
