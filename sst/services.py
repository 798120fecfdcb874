"""Writes of the SST system's catalog and work permits: each one a transaction, keyword-only, tenant first.

Every write on a permit or on one of its children goes through `sst.revisions`: the permit row is
locked, the caller's expected revision checked and bumped; numbering locks the company row first.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

from django.db import transaction

from tenancy.models import Tenant

from .errors import BusinessRuleError, ObjectNotFound
from .models import (
    Company,
    ComponentType,
    Employee,
    PermitComponent,
    PermitStatus,
    PermitWorker,
    WorkPermit,
)
from .revisions import bump, check_tenant, lock_company, lock_revisioned, next_number, number_taken
from .text import fold


class _Unset(enum.Enum):
    UNSET = "UNSET"


UNSET = _Unset.UNSET  # "field not sent", distinct from None ("set to null")


@transaction.atomic
def company_create(*, tenant: Tenant, name: str) -> Company:
    return Company.objects.create(tenant=tenant, name=name.strip(), name_folded=fold(name))


@transaction.atomic
def employee_create(*, tenant: Tenant, company: Company, name: str) -> Employee:
    check_tenant(tenant, company, "company")
    return Employee.objects.create(tenant=tenant, company=company, name=name.strip(), name_folded=fold(name))


@transaction.atomic
def component_type_create(*, tenant: Tenant, key: str, name: str, undoable: bool = True) -> ComponentType:
    return ComponentType.objects.create(
        tenant=tenant, key=key.strip(), name=name.strip(), name_folded=fold(name), undoable=undoable
    )


def _unique(items: Iterable) -> list:
    seen: dict = {}
    for item in items:
        seen.setdefault(item.pk, item)
    return list(seen.values())


@transaction.atomic
def permit_create(
    *,
    tenant: Tenant,
    company: Company,
    validity_days: int,
    number: str | None = None,
    responsible: Employee | None = None,
    component_types: Iterable[ComponentType] = (),
    workers: Iterable[Employee] = (),
) -> WorkPermit:
    """A DRAFT permit; without a number it gets the next free number of its company."""
    check_tenant(tenant, company, "company")
    if responsible is not None:
        check_tenant(tenant, responsible, "responsible")
    component_types, workers = _unique(component_types), _unique(workers)
    for component_type in component_types:
        check_tenant(tenant, component_type, "components")
    for worker in workers:
        check_tenant(tenant, worker, "workers")
    company = lock_company(tenant, company.pk)
    if number is None:
        number = next_number(WorkPermit, tenant, company)
    elif number_taken(WorkPermit, tenant, company, number):
        raise BusinessRuleError("NUMBER_TAKEN", number=number)
    permit = WorkPermit.objects.create(
        tenant=tenant, company=company, number=number, validity_days=validity_days, responsible=responsible
    )
    PermitComponent.objects.bulk_create(
        PermitComponent(tenant=tenant, permit=permit, component_type=component_type)
        for component_type in component_types
    )
    PermitWorker.objects.bulk_create(PermitWorker(tenant=tenant, permit=permit, employee=w) for w in workers)
    return permit


def _lock_permit(tenant: Tenant, permit_id: int, expected_revision: int | None) -> WorkPermit:
    return lock_revisioned(WorkPermit, tenant, permit_id, expected_revision, missing="permit")


def _require_editable(permit: WorkPermit) -> None:
    if not permit.is_editable:
        raise BusinessRuleError("PERMIT_NOT_EDITABLE", number=permit.number, status=permit.status)


@transaction.atomic
def permit_update(
    *,
    tenant: Tenant,
    permit_id: int,
    expected_revision: int | None = None,
    number: str | _Unset = UNSET,
    responsible: Employee | None | _Unset = UNSET,
) -> WorkPermit:
    permit = _lock_permit(tenant, permit_id, expected_revision)
    _require_editable(permit)
    changed: list[str] = []
    if responsible is not UNSET:
        if responsible is not None:
            check_tenant(tenant, responsible, "responsible")
        permit.responsible = responsible
        changed.append("responsible")
    if number is not UNSET and number != permit.number:
        company = lock_company(tenant, permit.company_id)
        if number_taken(WorkPermit, tenant, company, number, exclude_id=permit.pk):
            raise BusinessRuleError("NUMBER_TAKEN", number=number)
        permit.number = number
        changed.append("number")
    return bump(permit, *changed)


@transaction.atomic
def permit_delete(*, tenant: Tenant, permit_id: int, expected_revision: int | None = None) -> None:
    permit = _lock_permit(tenant, permit_id, expected_revision)
    WorkPermit.objects.for_tenant(tenant).filter(pk=permit.pk).delete()


@transaction.atomic
def permit_validity_update(
    *, tenant: Tenant, permit_id: int, validity_days: int, expected_revision: int | None = None
) -> WorkPermit:
    permit = _lock_permit(tenant, permit_id, expected_revision)
    if permit.status == PermitStatus.APPROVED:
        raise BusinessRuleError("PERMIT_APPROVED", number=permit.number)
    _require_editable(permit)
    permit.validity_days = validity_days
    return bump(permit, "validity_days")


# The permit lifecycle: action → (statuses it may start from, status it leads to).
_TRANSITIONS: dict[str, tuple[frozenset[str], str]] = {
    "approve": (frozenset({PermitStatus.DRAFT}), PermitStatus.APPROVED),
    "cancel": (frozenset({PermitStatus.DRAFT, PermitStatus.APPROVED}), PermitStatus.CANCELLED),
    "close": (frozenset({PermitStatus.APPROVED}), PermitStatus.CLOSED),
}


def _transition(tenant: Tenant, permit_id: int, action: str, expected_revision: int | None) -> WorkPermit:
    permit = _lock_permit(tenant, permit_id, expected_revision)
    sources, target = _TRANSITIONS[action]
    if permit.status not in sources:
        raise BusinessRuleError("INVALID_STATUS", number=permit.number, status=permit.status)
    permit.status = target
    return permit


@transaction.atomic
def permit_approve(*, tenant: Tenant, permit_id: int, expected_revision: int | None = None) -> WorkPermit:
    return bump(_transition(tenant, permit_id, "approve", expected_revision), "status")


@transaction.atomic
def permit_cancel(
    *, tenant: Tenant, permit_id: int, reason: str = "", expected_revision: int | None = None
) -> WorkPermit:
    permit = _transition(tenant, permit_id, "cancel", expected_revision)
    permit.cancel_reason = reason
    return bump(permit, "status", "cancel_reason")


@transaction.atomic
def permit_close(*, tenant: Tenant, permit_id: int, expected_revision: int | None = None) -> WorkPermit:
    """Not exposed by the API (the work ended); used to build worlds with CLOSED permits."""
    return bump(_transition(tenant, permit_id, "close", expected_revision), "status")


@transaction.atomic
def permit_component_add(
    *,
    tenant: Tenant,
    permit_id: int,
    component_type: ComponentType,
    notes: str = "",
    expected_revision: int | None = None,
) -> PermitComponent:
    check_tenant(tenant, component_type, "component")
    permit = _lock_permit(tenant, permit_id, expected_revision)
    _require_editable(permit)
    if PermitComponent.objects.for_tenant(tenant).filter(permit=permit, component_type=component_type).exists():
        raise BusinessRuleError("COMPONENT_ALREADY_PRESENT", component=component_type.name, number=permit.number)
    component = PermitComponent.objects.create(
        tenant=tenant, permit=permit, component_type=component_type, notes=notes
    )
    component.permit = bump(permit)
    return component


def _permit_component(tenant: Tenant, permit: WorkPermit, component_id: int) -> PermitComponent:
    component = (
        PermitComponent.objects.for_tenant(tenant)
        .select_related("component_type")
        .filter(permit=permit, pk=component_id)
        .first()
    )
    if component is None:
        raise ObjectNotFound(component=component_id)
    return component


@transaction.atomic
def permit_component_update(
    *, tenant: Tenant, permit_id: int, component_id: int, notes: str, expected_revision: int | None = None
) -> PermitComponent:
    permit = _lock_permit(tenant, permit_id, expected_revision)
    component = _permit_component(tenant, permit, component_id)
    _require_editable(permit)
    component.notes = notes
    component.save(update_fields=["notes"])
    component.permit = bump(permit)
    return component


@transaction.atomic
def permit_component_remove(
    *, tenant: Tenant, permit_id: int, component_id: int, expected_revision: int | None = None
) -> PermitComponent:
    """Remove it; returns the removed component as it was (its permit bumped), so a caller can add it back."""
    permit = _lock_permit(tenant, permit_id, expected_revision)
    component = _permit_component(tenant, permit, component_id)
    _require_editable(permit)
    PermitComponent.objects.for_tenant(tenant).filter(pk=component.pk).delete()
    component.permit = bump(permit)
    return component


@transaction.atomic
def permit_worker_add(
    *, tenant: Tenant, permit_id: int, employee: Employee, expected_revision: int | None = None
) -> PermitWorker:
    check_tenant(tenant, employee, "employee")
    permit = _lock_permit(tenant, permit_id, expected_revision)
    _require_editable(permit)
    if PermitWorker.objects.for_tenant(tenant).filter(permit=permit, employee=employee).exists():
        raise BusinessRuleError("WORKER_ALREADY_PRESENT", employee=employee.name, number=permit.number)
    worker = PermitWorker.objects.create(tenant=tenant, permit=permit, employee=employee)
    worker.permit = bump(permit)
    return worker


@transaction.atomic
def permit_worker_remove(
    *, tenant: Tenant, permit_id: int, employee_id: int, expected_revision: int | None = None
) -> WorkPermit:
    permit = _lock_permit(tenant, permit_id, expected_revision)
    workers = PermitWorker.objects.for_tenant(tenant).filter(permit=permit, employee_id=employee_id)
    if not workers.exists():
        raise ObjectNotFound(employee=employee_id)
    _require_editable(permit)
    workers.delete()
    return bump(permit)

