"""Test capabilities built through the registry's models, walking its real lifecycle.

The registry's load/approve services are being written in parallel; its database guards are not
bypassed here: a version is inserted as DRAFT, submitted, approved by two people who are not its
author, then activated (the triggers of registry migration 0002 check all of it).
"""

from __future__ import annotations

import hashlib
import itertools
from typing import Any

from django.contrib.auth import get_user_model

from registry.models import (
    ApprovalKind,
    Capability,
    CapabilityApproval,
    CapabilityStatus,
    CapabilityVersion,
    Resource,
)

_seq = itertools.count()


def _people() -> tuple[Any, Any, Any]:
    users = get_user_model().objects
    n = next(_seq)
    return tuple(users.create_user(username=f"{role}-{n}") for role in ("author", "tech", "biz"))  # type: ignore


def resource(key: str = "sst-api") -> Resource:
    return Resource.objects.get_or_create(key=key, defaults={"base_path": "/api/sst/"})[0]


def _set_status(version: CapabilityVersion, status: str) -> None:
    version.status = status
    version.save(update_fields=["status"])


def capability(key: str, *, version: int = 1, risk: str = "medium", permissions: tuple[str, ...] = ("sst.write",),
               kind: str | None = None, status: str = CapabilityStatus.ACTIVE, resource_key: str = "sst-api",
               method: str = "POST", preconditions: list[dict[str, Any]] | None = None) -> CapabilityVersion:
    """A capability version in `status`, approved by two people when it reaches ACTIVE."""
    kind = kind or ("read" if risk == "read" else "write")
    author, tech, biz = _people()
    identity, _ = Capability.objects.get_or_create(key=key)
    row = CapabilityVersion.objects.create(
        capability=identity, version=version, description=f"test capability {key}", kind=kind, risk_level=risk,
        required_permissions=list(permissions), resource=resource(resource_key),
        http_method="GET" if kind == "read" else method, path_template="permits/{id}", definition_hash="0" * 64,
        author=author, preconditions=preconditions or [],
    )
    if status == CapabilityStatus.DRAFT:
        return row
    _set_status(row, CapabilityStatus.PENDING_APPROVAL)
    if status == CapabilityStatus.PENDING_APPROVAL:
        return row
    CapabilityApproval.objects.create(capability_version=row, kind=ApprovalKind.TECHNICAL, approver=tech, reason="ok")
    CapabilityApproval.objects.create(capability_version=row, kind=ApprovalKind.BUSINESS, approver=biz, reason="ok")
    _set_status(row, CapabilityStatus.ACTIVE)
    if status != CapabilityStatus.ACTIVE:
        _set_status(row, status)
    return row


def suspend(row: CapabilityVersion) -> None:
    _set_status(row, CapabilityStatus.SUSPENDED)


def activate_next_version(row: CapabilityVersion) -> CapabilityVersion:
    """Load v+1 of the same capability, retire the current one and activate the new one."""
    _set_status(row, CapabilityStatus.RETIRED)
    return capability(row.capability.key, version=row.version + 1, risk=row.risk_level,
                      permissions=tuple(row.required_permissions), kind=row.kind, preconditions=row.preconditions)


def step(cap, *, step_id: str = "s1", input: dict | None = None, targets=(("workPermit", 1),), **extra) -> dict:  # noqa: A002
    return {"id": step_id, "capability": cap.capability.key, "version": cap.version,
            "input": input if input is not None else {"id": 1, "validity_days": 10},
            "targets": [{"type": t, "id": i, **extra} for t, i in targets]}


def facts_for(tenant, *pairs, status: str = "DRAFT", revision: int = 3) -> dict:
    return {f"{t}:{i}": {"tenant": str(tenant.pk), "status": status, "revision": revision} for t, i in pairs}


def plan_hash(text: str = "plan") -> str:
    return hashlib.sha256(text.encode()).hexdigest()
