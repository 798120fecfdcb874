"""Writes of the registry: manifest load, the lifecycle, approvals, per-tenant blocks.

Every status change locks the version row, checks the lifecycle table, moves the status with a
conditional UPDATE and writes its append-only CapabilityStatusChange in the same transaction; the
database triggers re-check the same rules (and move the registry version the hot-path cache is
keyed by), so a bug here cannot activate, edit or resurrect a capability.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from tenancy.models import Tenant

from .manifest import Manifest, definition_hash, manifest_read
from .messages import message
from .models import (
    TRANSITIONS,
    ApprovalKind,
    Capability,
    CapabilityApproval,
    CapabilityStatus,
    CapabilityStatusChange,
    CapabilityVersion,
    Resource,
    ResourceFallback,
    TenantCapabilityBlock,
)

APPROVE_PERMISSION = {ApprovalKind.TECHNICAL: "registry.approve_technical",
                      ApprovalKind.BUSINESS: "registry.approve_business"}


class RegistryRefusal(Exception):
    """A rule forbids the action. `code` is stable; `message()` is for people (pt-BR / en)."""

    def __init__(self, code: str, **params: Any) -> None:
        self.code = code
        self.params = params
        super().__init__(f"{code}: {message(code, 'en', **params)}")

    def message(self, language: str | None = None) -> str:
        return message(self.code, language, **self.params)


# --- manifest -------------------------------------------------------------------------------


@dataclass
class LoadReport:
    created: list[tuple[str, int]] = field(default_factory=list)
    updated_drafts: list[tuple[str, int]] = field(default_factory=list)
    unchanged: list[tuple[str, int]] = field(default_factory=list)
    resources: list[str] = field(default_factory=list)


def version_fields(definition: dict[str, Any], resources: dict[str, Resource]) -> dict[str, Any]:
    """Model field values of a normalized manifest definition (registry.selectors.definition_of inverts it)."""
    call = definition["call"] or {}
    return {
        "description": definition["description"], "kind": definition["kind"], "risk_level": definition["risk"],
        "required_permissions": definition["permissions"], "input_schema": definition["input"],
        "output_schema": definition["output"], "resource": resources[call["resource"]] if call else None,
        "http_method": call.get("method", ""), "path_template": call.get("path", ""),
        "call": {k: call[k] for k in ("query", "body", "if_match")} if call else {},
        "navigation": definition["navigation"], "idempotent": definition["idempotent"],
        "honours_idempotency_key": definition["idempotency_key"], "cancellable": definition["cancellable"],
        "undo": definition["undo"], "compensation": definition["compensation"],
        "verification": definition["verification"], "retry_policy": definition["retry"],
        "adaptation": definition["adaptation"], "language": definition["language"],
        "preconditions": definition.get("preconditions") or [],
        "discoverable": definition["discoverable"], "definition_hash": definition_hash(definition),
    }


@transaction.atomic
def manifest_load(*, directory: Path, author: AbstractBaseUser | None, submit: bool = False) -> LoadReport:
    """Load the manifest. A changed definition becomes a new DRAFT version (never an ACTIVE one).

    Raises registry.manifest.ManifestInvalid (nothing written) when any file is invalid.
    `submit` moves the new or changed drafts to PENDING_APPROVAL.
    """
    manifest = manifest_read(directory)
    report = LoadReport()
    resources = _resources_upsert(manifest, report)
    for capability_id, definition in manifest.capabilities.items():
        fields = version_fields(definition, resources)
        version = _version_upsert(capability_id, fields, manifest, author, report)
        if submit and version.status == CapabilityStatus.DRAFT:
            capability_submit(version=version, actor=author, reason="submitted by manifest load")
    return report


def _resources_upsert(manifest: Manifest, report: LoadReport) -> dict[str, Resource]:
    resources: dict[str, Resource] = {}
    for key, entry in manifest.resources.items():
        timeouts = entry.get("timeout_ms", {"initial": 2000, "max": 10000})
        resources[key], _ = Resource.objects.update_or_create(key=key, defaults={
            "description": entry.get("description", ""), "base_path": entry["base_path"],
            "transport": entry.get("transport", "inprocess"), "base_url_setting": entry.get("base_url_setting", ""),
            "timeout_initial_ms": timeouts["initial"], "timeout_max_ms": timeouts["max"],
            "auth": entry.get("auth", "user_context"),
        })
        report.resources.append(key)
    for key, entry in manifest.resources.items():
        wanted = entry.get("fallbacks", [])
        ResourceFallback.objects.filter(resource=resources[key]).exclude(fallback__key__in=wanted).delete()
        for priority, fallback in enumerate(wanted):
            ResourceFallback.objects.update_or_create(resource=resources[key], fallback=resources[fallback],
                                                      defaults={"priority": priority})
    return resources


def _version_upsert(capability_id: str, fields: dict[str, Any], manifest: Manifest,
                    author: AbstractBaseUser | None, report: LoadReport) -> CapabilityVersion:
    capability, _ = Capability.objects.get_or_create(key=capability_id)
    latest = capability.versions.select_for_update().order_by("-version").first()
    source = f"capabilities/{manifest.sources[capability_id]}"
    if latest is not None and latest.definition_hash == fields["definition_hash"]:
        report.unchanged.append((capability_id, latest.version))
        return latest
    if latest is not None and latest.status == CapabilityStatus.DRAFT:
        # A draft has no approvals yet: editing it in place loses nothing.
        CapabilityVersion.objects.filter(pk=latest.pk).update(**fields, source=source, author=author)
        latest.refresh_from_db()
        report.updated_drafts.append((capability_id, latest.version))
        return latest
    version = CapabilityVersion.objects.create(
        capability=capability, version=(latest.version + 1) if latest else 1, status=CapabilityStatus.DRAFT,
        source=source, author=author, **fields,
    )
    CapabilityStatusChange.objects.create(capability_version=version, from_status="",
                                          to_status=CapabilityStatus.DRAFT, actor=author,
                                          reason=f"loaded from {source}")
    report.created.append((capability_id, version.version))
    return version


# --- lifecycle ------------------------------------------------------------------------------


def _lock(version: CapabilityVersion) -> CapabilityVersion:
    return CapabilityVersion.objects.select_related("capability").select_for_update(of=("self",)).get(pk=version.pk)


def _transition(*, version: CapabilityVersion, to_status: str, actor: AbstractBaseUser | None,
                reason: str) -> CapabilityVersion:
    """Move a locked version along the lifecycle table and record it (caller holds the transaction)."""
    if to_status not in TRANSITIONS[version.status]:
        raise RegistryRefusal("ILLEGAL_TRANSITION", from_status=version.status, to_status=to_status)
    moved = CapabilityVersion.objects.filter(pk=version.pk, status=version.status).update(status=to_status)
    if moved != 1:  # pragma: no cover - the row lock makes this unreachable; kept as a guard
        raise RegistryRefusal("ILLEGAL_TRANSITION", from_status=version.status, to_status=to_status)
    CapabilityStatusChange.objects.create(capability_version=version, from_status=version.status,
                                          to_status=to_status, actor=actor, reason=reason)
    version.status = to_status
    return version


def _synced(original: CapabilityVersion, locked: CapabilityVersion) -> CapabilityVersion:
    """Keep the caller's instance in step with the row it asked to move."""
    original.status = locked.status
    return locked


def _require_reason(reason: str) -> str:
    if not reason or not reason.strip():
        raise RegistryRefusal("REASON_REQUIRED")
    return reason.strip()


def _require_staff(actor: AbstractBaseUser | None, *permissions: str) -> None:
    """Staff only, holding at least one of `permissions` (global perms: capabilities are not a tenant's)."""
    if actor is None or not actor.is_active or not actor.is_staff:
        raise RegistryRefusal("NOT_STAFF")
    if not any(actor.has_perm(p) for p in permissions):
        raise RegistryRefusal("MISSING_PERMISSION", permission=" / ".join(permissions))


@transaction.atomic
def capability_submit(*, version: CapabilityVersion, actor: AbstractBaseUser | None,
                      reason: str = "submitted for approval") -> CapabilityVersion:
    """DRAFT → PENDING_APPROVAL. The author (or the loader on the author's behalf) submits."""
    return _synced(version, _transition(version=_lock(version), to_status=CapabilityStatus.PENDING_APPROVAL,
                                        actor=actor, reason=_require_reason(reason)))


@transaction.atomic
def capability_approve(*, version: CapabilityVersion, approver: AbstractBaseUser, kind: str,
                       reason: str) -> CapabilityVersion:
    """Record one approval; the second one (other kind, other person) activates the version.

    Activating retires the capability's previous ACTIVE or SUSPENDED version in the same transaction.
    """
    kind = ApprovalKind(kind)
    reason = _require_reason(reason)
    _require_staff(approver, APPROVE_PERMISSION[kind])
    locked = _lock(version)
    if locked.status != CapabilityStatus.PENDING_APPROVAL:
        raise RegistryRefusal("NOT_PENDING", status=locked.status)
    if locked.author_id is not None and locked.author_id == approver.pk:
        raise RegistryRefusal("AUTHOR_CANNOT_APPROVE")
    given = list(locked.approvals.all())
    if any(a.approver_id == approver.pk for a in given):
        raise RegistryRefusal("SAME_PERSON_TWICE")
    if any(a.kind == kind for a in given):
        raise RegistryRefusal("ALREADY_APPROVED", kind=kind.label.lower())
    CapabilityApproval.objects.create(capability_version=locked, kind=kind, approver=approver, reason=reason)
    if {a.kind for a in given} | {kind} == set(ApprovalKind.values):
        _activate(locked, approver)
    return _synced(version, locked)


def _activate(version: CapabilityVersion, approver: AbstractBaseUser) -> None:
    previous = (CapabilityVersion.objects.select_for_update()
                .filter(capability_id=version.capability_id,
                        status__in=[CapabilityStatus.ACTIVE, CapabilityStatus.SUSPENDED])
                .exclude(pk=version.pk))
    for old in previous:
        _transition(version=old, to_status=CapabilityStatus.RETIRED, actor=approver,
                    reason=f"superseded by version {version.version}")
    _transition(version=version, to_status=CapabilityStatus.ACTIVE, actor=approver,
                reason="technical and business approvals recorded")


@transaction.atomic
def capability_suspend(*, version: CapabilityVersion, actor: AbstractBaseUser, reason: str) -> CapabilityVersion:
    """ACTIVE → SUSPENDED: from the commit on, no snapshot taken anywhere serves it."""
    reason = _require_reason(reason)
    _require_staff(actor, *APPROVE_PERMISSION.values())
    return _synced(version, _transition(version=_lock(version), to_status=CapabilityStatus.SUSPENDED, actor=actor,
                                        reason=reason))


@transaction.atomic
def capability_resume(*, version: CapabilityVersion, actor: AbstractBaseUser, reason: str) -> CapabilityVersion:
    """SUSPENDED → ACTIVE: the same, already approved definition; a technical approver decides."""
    reason = _require_reason(reason)
    _require_staff(actor, APPROVE_PERMISSION[ApprovalKind.TECHNICAL])
    return _synced(version, _transition(version=_lock(version), to_status=CapabilityStatus.ACTIVE, actor=actor,
                                        reason=reason))


@transaction.atomic
def capability_retire(*, version: CapabilityVersion, actor: AbstractBaseUser, reason: str) -> CapabilityVersion:
    reason = _require_reason(reason)
    _require_staff(actor, *APPROVE_PERMISSION.values())
    return _synced(version, _transition(version=_lock(version), to_status=CapabilityStatus.RETIRED, actor=actor,
                                        reason=reason))


# --- per-tenant blocks ----------------------------------------------------------------------


@transaction.atomic
def tenant_capability_block(*, tenant: Tenant, capability_key: str, actor: AbstractBaseUser,
                            reason: str) -> TenantCapabilityBlock:
    """Switch a capability off for one tenant (discovery and the hot path stop offering it there)."""
    reason = _require_reason(reason)
    _require_staff(actor, *APPROVE_PERMISSION.values())
    capability = Capability.objects.filter(key=capability_key).first()
    if capability is None:
        raise RegistryRefusal("UNKNOWN_CAPABILITY", capability=capability_key)
    block, _ = TenantCapabilityBlock.objects.for_tenant(tenant).get_or_create(
        tenant=tenant, capability=capability, defaults={"reason": reason, "created_by": actor})
    return block


@transaction.atomic
def tenant_capability_unblock(*, tenant: Tenant, capability_key: str, actor: AbstractBaseUser) -> None:
    _require_staff(actor, *APPROVE_PERMISSION.values())
    TenantCapabilityBlock.objects.for_tenant(tenant).filter(capability__key=capability_key).delete()
