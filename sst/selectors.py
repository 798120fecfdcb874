"""Reads of the SST system. Every query names its tenant; missing and "not yours" are one 404."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch, Q, QuerySet

from tenancy.models import Tenant

from .errors import ObjectNotFound
from .models import Company, ComponentType, Employee, PermitComponent, PermitWorker, WorkPermit
from .text import fold


def company_list(*, tenant: Tenant, q: str | None = None) -> QuerySet[Company]:
    companies = Company.objects.for_tenant(tenant)
    if q:
        companies = companies.filter(name_folded__contains=fold(q))
    return companies.order_by("name", "id")


def company_get_by_name(*, tenant: Tenant, name: str) -> Company | None:
    return Company.objects.for_tenant(tenant).filter(name=name).first()


def component_type_list(*, tenant: Tenant, q: str | None = None) -> QuerySet[ComponentType]:
    types = ComponentType.objects.for_tenant(tenant)
    if q:
        folded = fold(q)
        types = types.filter(Q(name_folded__contains=folded) | Q(key__icontains=q.strip()))
    return types.order_by("name", "id")


def component_type_get_by_key(*, tenant: Tenant, key: str) -> ComponentType | None:
    return ComponentType.objects.for_tenant(tenant).filter(key=key).first()


def employee_list(*, tenant: Tenant, q: str | None = None, company_id: int | None = None) -> QuerySet[Employee]:
    employees = Employee.objects.for_tenant(tenant).select_related("company")
    if q:
        employees = employees.filter(name_folded__contains=fold(q))
    if company_id is not None:
        employees = employees.filter(company_id=company_id)
    return employees.order_by("name", "id")


def employee_get(*, tenant: Tenant, employee_id: int) -> Employee:
    employee = Employee.objects.for_tenant(tenant).select_related("company").filter(pk=employee_id).first()
    if employee is None:
        raise ObjectNotFound(employee=employee_id)
    return employee


def employee_get_by_name(*, tenant: Tenant, name: str, company: Company) -> Employee | None:
    return Employee.objects.for_tenant(tenant).filter(name=name, company=company).first()


@dataclass(frozen=True)
class NumberedFilters:
    """The filters of the numbered records of a company (permits, inspections); `q` searches each one's own text."""

    number: str | None = None
    company_id: int | None = None
    company_name: str | None = None
    status: str | None = None
    q: str | None = None


@dataclass(frozen=True)
class PermitFilters(NumberedFilters):
    ids: tuple[int, ...] | None = None  # batch reads: these permits only
    has_components: str | None = None  # HAS_ANY | HAS_NONE
    has_workers: str | None = None  # HAS_ANY | HAS_NONE
    responsible_id: int | None = None
    component: str | None = None  # a component type's key


def has_children(rows: QuerySet, relation: str, said: str | None) -> QuerySet:
    """`rows` that have (HAS_ANY) or have not (HAS_NONE) a row in `relation`; each row once."""
    if said == "HAS_NONE":
        return rows.filter(**{f"{relation}__isnull": True})
    if said == "HAS_ANY":
        return rows.filter(**{f"{relation}__isnull": False}).distinct()
    return rows


def numbered_filtered(rows: QuerySet, filters: NumberedFilters) -> QuerySet:
    """`rows` narrowed by number, company (id or part of its name) and status; `q` is left to the caller."""
    if filters.number:
        rows = rows.filter(number=filters.number.strip())
    if filters.company_id is not None:
        rows = rows.filter(company_id=filters.company_id)
    if filters.company_name:
        rows = rows.filter(company__name_folded__contains=fold(filters.company_name))
    if filters.status:
        rows = rows.filter(status=filters.status)
    return rows


def _permit_representation_queryset(tenant: Tenant) -> QuerySet[WorkPermit]:
    # Children are prefetched through tenant-scoped querysets, so the scoping guard holds there too.
    components = PermitComponent.objects.for_tenant(tenant).select_related("component_type").order_by("id")
    workers = PermitWorker.objects.for_tenant(tenant).select_related("employee").order_by("id")
    return (
        WorkPermit.objects.for_tenant(tenant)
        .select_related("company", "responsible")
        .prefetch_related(Prefetch("components", queryset=components), Prefetch("workers", queryset=workers))
    )


def _permit_filtered(permits: QuerySet[WorkPermit], filters: PermitFilters) -> QuerySet[WorkPermit]:
    permits = numbered_filtered(permits, filters)
    permits = has_children(has_children(permits, "components", filters.has_components), "workers",
                           filters.has_workers)
    if filters.ids is not None:
        permits = permits.filter(pk__in=filters.ids)
    if filters.responsible_id is not None:
        permits = permits.filter(responsible_id=filters.responsible_id)
    if filters.component:
        permits = permits.filter(components__component_type__key=filters.component).distinct()
    if filters.q:
        folded = fold(filters.q)
        permits = permits.filter(
            Q(number__icontains=filters.q.strip())
            | Q(company__name_folded__contains=folded)
            | Q(responsible__name_folded__contains=folded)
        )
    return permits


def permit_list(*, tenant: Tenant, filters: PermitFilters | None = None) -> QuerySet[WorkPermit]:
    return _permit_filtered(_permit_representation_queryset(tenant), filters or PermitFilters()).order_by("id")


def permit_count(*, tenant: Tenant, filters: PermitFilters | None = None) -> int:
    return _permit_filtered(WorkPermit.objects.for_tenant(tenant), filters or PermitFilters()).count()


def permit_get(*, tenant: Tenant, permit_id: int) -> WorkPermit:
    permit = _permit_representation_queryset(tenant).filter(pk=permit_id).first()
    if permit is None:
        raise ObjectNotFound(permit=permit_id)
    return permit


def permit_get_by_number(*, tenant: Tenant, company: Company, number: str) -> WorkPermit | None:
    return WorkPermit.objects.for_tenant(tenant).filter(company=company, number=number).first()


def permit_component_list(*, tenant: Tenant, permit_id: int) -> QuerySet[PermitComponent]:
    permit_get_id(tenant=tenant, permit_id=permit_id)
    return (
        PermitComponent.objects.for_tenant(tenant)
        .filter(permit_id=permit_id)
        .select_related("component_type")
        .order_by("id")
    )


def permit_worker_list(*, tenant: Tenant, permit_id: int) -> QuerySet[PermitWorker]:
    permit_get_id(tenant=tenant, permit_id=permit_id)
    return PermitWorker.objects.for_tenant(tenant).filter(permit_id=permit_id).select_related("employee").order_by("id")


def permit_get_id(*, tenant: Tenant, permit_id: int) -> int:
    if not WorkPermit.objects.for_tenant(tenant).filter(pk=permit_id).exists():
        raise ObjectNotFound(permit=permit_id)
    return permit_id
