"""Writes of safety inspections and their findings: each one a transaction, keyword-only, tenant first.

Like permits (sst.services), every write on an inspection or one of its findings locks the
inspection row, checks the caller's expected revision and bumps it (sst.revisions). Only a
SCHEDULED inspection changes: rescheduling, the inspector, its findings, completing and cancelling
all refuse DONE and CANCELLED ones (422 INSPECTION_NOT_SCHEDULED). Dates are not checked against
today here: the API refuses past dates from users, while scenario worlds seed past inspections.
"""

from __future__ import annotations

from datetime import date

from django.db import transaction

from tenancy.models import Tenant

from .errors import BusinessRuleError, ObjectNotFound
from .models import Company, Employee, Finding, FindingSeverity, Inspection, InspectionStatus
from .revisions import bump, check_tenant, lock_company, lock_revisioned, next_number, number_taken
from .text import fold


def _lock_inspection(tenant: Tenant, inspection_id: int, expected_revision: int | None) -> Inspection:
    return lock_revisioned(Inspection, tenant, inspection_id, expected_revision, missing="inspection")


def _require_scheduled(inspection: Inspection) -> None:
    if inspection.status != InspectionStatus.SCHEDULED:
        raise BusinessRuleError("INSPECTION_NOT_SCHEDULED", number=inspection.number, status=inspection.status)


@transaction.atomic
def inspection_create(
    *,
    tenant: Tenant,
    company: Company,
    site: str,
    scheduled_for: date,
    number: str | None = None,
    inspector: Employee | None = None,
) -> Inspection:
    """A SCHEDULED inspection; without a number it gets the next free inspection number of its company."""
    check_tenant(tenant, company, "company")
    if inspector is not None:
        check_tenant(tenant, inspector, "inspector")
    company = lock_company(tenant, company.pk)
    if number is None:
        number = next_number(Inspection, tenant, company)
    elif number_taken(Inspection, tenant, company, number):
        raise BusinessRuleError("INSPECTION_NUMBER_TAKEN", number=number)
    return Inspection.objects.create(tenant=tenant, company=company, number=number, site=site.strip(),
                                     site_folded=fold(site), scheduled_for=scheduled_for, inspector=inspector)


@transaction.atomic
def inspection_reschedule(
    *, tenant: Tenant, inspection_id: int, scheduled_for: date, expected_revision: int | None = None
) -> Inspection:
    inspection = _lock_inspection(tenant, inspection_id, expected_revision)
    _require_scheduled(inspection)
    inspection.scheduled_for = scheduled_for
    return bump(inspection, "scheduled_for")


@transaction.atomic
def inspection_inspector_assign(
    *, tenant: Tenant, inspection_id: int, inspector: Employee | None, expected_revision: int | None = None
) -> Inspection:
    """Set (or, with None, clear) the inspection's inspector."""
    if inspector is not None:
        check_tenant(tenant, inspector, "inspector")
    inspection = _lock_inspection(tenant, inspection_id, expected_revision)
    _require_scheduled(inspection)
    inspection.inspector = inspector
    return bump(inspection, "inspector")


@transaction.atomic
def inspection_complete(*, tenant: Tenant, inspection_id: int, expected_revision: int | None = None) -> Inspection:
    inspection = _lock_inspection(tenant, inspection_id, expected_revision)
    _require_scheduled(inspection)
    inspection.status = InspectionStatus.DONE
    return bump(inspection, "status")


@transaction.atomic
def inspection_cancel(
    *, tenant: Tenant, inspection_id: int, reason: str = "", expected_revision: int | None = None
) -> Inspection:
    inspection = _lock_inspection(tenant, inspection_id, expected_revision)
    _require_scheduled(inspection)
    inspection.status = InspectionStatus.CANCELLED
    inspection.cancel_reason = reason
    return bump(inspection, "status", "cancel_reason")


@transaction.atomic
def inspection_finding_add(
    *,
    tenant: Tenant,
    inspection_id: int,
    description: str,
    severity: str = FindingSeverity.MEDIUM,
    expected_revision: int | None = None,
) -> Finding:
    inspection = _lock_inspection(tenant, inspection_id, expected_revision)
    _require_scheduled(inspection)
    finding = Finding.objects.create(tenant=tenant, inspection=inspection, description=description.strip(),
                                     severity=severity)
    finding.inspection = bump(inspection)
    return finding


@transaction.atomic
def inspection_finding_remove(
    *, tenant: Tenant, inspection_id: int, finding_id: int, expected_revision: int | None = None
) -> Inspection:
    inspection = _lock_inspection(tenant, inspection_id, expected_revision)
    # The finding is looked up under its inspection: a finding id of another inspection is a 404.
    findings = Finding.objects.for_tenant(tenant).filter(inspection=inspection, pk=finding_id)
    if not findings.exists():
        raise ObjectNotFound(finding=finding_id)
    _require_scheduled(inspection)
    findings.delete()
    return bump(inspection)
