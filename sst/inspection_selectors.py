"""Reads of safety inspections. Every query names its tenant; missing and "not yours" are one 404."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.db.models import Prefetch, Q, QuerySet

from tenancy.models import Tenant

from .errors import ObjectNotFound
from .models import Company, Finding, Inspection
from .selectors import NumberedFilters, has_children, numbered_filtered
from .text import fold


@dataclass(frozen=True)
class InspectionFilters(NumberedFilters):
    """Inspections are filtered like permits (number, company, status), with their own free text, and by
    whether an inspector is assigned and by the severity of a finding they have."""

    inspector_status: str | None = None  # ASSIGNED | UNASSIGNED
    inspector_id: int | None = None  # the inspections this employee inspects
    finding_severity: str | None = None
    has_findings: str | None = None  # HAS_ANY | HAS_NONE
    scheduled_from: date | None = None  # scheduled on or after this day
    scheduled_to: date | None = None  # scheduled on or before this day


def _representation_queryset(tenant: Tenant) -> QuerySet[Inspection]:
    # Findings are prefetched through a tenant-scoped queryset, so the scoping guard holds there too.
    findings = Finding.objects.for_tenant(tenant).order_by("id")
    return (
        Inspection.objects.for_tenant(tenant)
        .select_related("company", "inspector")
        .prefetch_related(Prefetch("findings", queryset=findings))
    )


def _filtered(inspections: QuerySet[Inspection], filters: InspectionFilters) -> QuerySet[Inspection]:
    inspections = numbered_filtered(inspections, filters)
    if filters.inspector_status:
        inspections = inspections.filter(inspector__isnull=filters.inspector_status == "UNASSIGNED")
    if filters.inspector_id is not None:
        inspections = inspections.filter(inspector_id=filters.inspector_id)
    inspections = has_children(inspections, "findings", filters.has_findings)
    if filters.finding_severity:
        inspections = inspections.filter(findings__severity=filters.finding_severity).distinct()
    if filters.scheduled_from is not None:
        inspections = inspections.filter(scheduled_for__gte=filters.scheduled_from)
    if filters.scheduled_to is not None:
        inspections = inspections.filter(scheduled_for__lte=filters.scheduled_to)
    if filters.q:
        text, folded = filters.q.strip(), fold(filters.q)
        inspections = inspections.filter(
            Q(number__icontains=text)
            | Q(site_folded__contains=folded)
            | Q(company__name_folded__contains=folded)
            | Q(inspector__name_folded__contains=folded)
        )
    return inspections


def inspection_list(*, tenant: Tenant, filters: InspectionFilters | None = None) -> QuerySet[Inspection]:
    return _filtered(_representation_queryset(tenant), filters or InspectionFilters()).order_by("id")


def inspection_count(*, tenant: Tenant, filters: InspectionFilters | None = None) -> int:
    return _filtered(Inspection.objects.for_tenant(tenant), filters or InspectionFilters()).count()


def inspection_get(*, tenant: Tenant, inspection_id: int) -> Inspection:
    inspection = _representation_queryset(tenant).filter(pk=inspection_id).first()
    if inspection is None:
        raise ObjectNotFound(inspection=inspection_id)
    return inspection


def inspection_get_by_number(*, tenant: Tenant, company: Company, number: str) -> Inspection | None:
    return Inspection.objects.for_tenant(tenant).filter(company=company, number=number).first()


def inspection_finding_list(*, tenant: Tenant, inspection_id: int) -> QuerySet[Finding]:
    if not Inspection.objects.for_tenant(tenant).filter(pk=inspection_id).exists():
        raise ObjectNotFound(inspection=inspection_id)
    return (Finding.objects.for_tenant(tenant).filter(inspection_id=inspection_id).select_related("inspection")
            .order_by("id"))
