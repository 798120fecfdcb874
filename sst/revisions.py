"""Row-locked, revision-checked writes, shared by the SST entities that carry a revision (permits, inspections).

A write on such a row, or on one of its children, locks the row (`SELECT … FOR UPDATE`), checks the
caller's expected revision against the locked row and bumps it, so two writers holding the same
revision cannot both succeed. Numbers are unique per company; creating a numbered row, or
renumbering one, locks the company row first so "next free number" cannot be handed out twice.
"""

from __future__ import annotations

from typing import TypeVar

from django.db.models import BigIntegerField, Max, Model
from django.db.models.functions import Cast

from tenancy.models import Tenant

from .errors import InvalidReference, ObjectNotFound, RevisionMismatch
from .models import Company

# The largest number still read as a number when picking the next one (fits a bigint with room).
_NUMERIC_NUMBER = r"^[0-9]{1,18}$"

Revisioned = TypeVar("Revisioned", bound=Model)


def check_tenant(tenant: Tenant, obj: Model, field: str) -> None:
    # Defense in depth: the API resolves references within the tenant; services re-check it.
    if obj.tenant_id != tenant.pk:
        raise InvalidReference(field, obj.pk)


def lock_company(tenant: Tenant, company_id: int) -> Company:
    return Company.objects.for_tenant(tenant).select_for_update().get(pk=company_id)


def next_number(model: type[Model], tenant: Tenant, company: Company) -> str:
    """One more than the company's highest numeric number of `model` (call with the company locked)."""
    numeric = model.objects.for_tenant(tenant).filter(company=company, number__regex=_NUMERIC_NUMBER)
    top = numeric.aggregate(top=Max(Cast("number", BigIntegerField())))["top"]
    return str((top or 0) + 1)


def number_taken(model: type[Model], tenant: Tenant, company: Company, number: str, *,
                 exclude_id: int | None = None) -> bool:
    rows = model.objects.for_tenant(tenant).filter(company=company, number=number)
    if exclude_id is not None:
        rows = rows.exclude(pk=exclude_id)
    return rows.exists()


def lock_revisioned(model: type[Revisioned], tenant: Tenant, pk: int, expected_revision: int | None, *,
                    missing: str) -> Revisioned:
    """The row locked for this transaction; ObjectNotFound(<missing>=pk) or RevisionMismatch otherwise."""
    row = model.objects.for_tenant(tenant).select_for_update().filter(pk=pk).first()
    if row is None:
        raise ObjectNotFound(**{missing: pk})
    if expected_revision is not None and row.revision != expected_revision:
        raise RevisionMismatch(current=row.revision, expected=expected_revision)
    return row


def bump(row: Revisioned, *fields: str) -> Revisioned:
    # The row is locked by lock_revisioned, so a plain increment cannot lose an update.
    row.revision += 1
    row.save(update_fields=[*fields, "revision", "updated_at"])
    return row
