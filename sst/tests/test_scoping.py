"""Tenant-owned SST models refuse unscoped queries; scoped and related ones work."""

from __future__ import annotations

import pytest

from sst.models import Company, PermitComponent, WorkPermit
from tenancy.scoping import UnscopedQueryError


@pytest.mark.parametrize(
    "query",
    [
        lambda: list(Company.objects.all()),
        lambda: Company.objects.count(),
        lambda: list(Company.objects.filter(name="Alfa Construções")),
        lambda: Company.objects.filter(name="Alfa Construções").update(name="x"),
        lambda: WorkPermit.objects.filter(number="123").exists(),
        lambda: PermitComponent.objects.all().delete(),
    ],
    ids=["all", "count", "filter", "update", "exists", "delete"],
)
def test_unscoped_query_on_a_tenant_owned_model_raises(world, query):
    with pytest.raises(UnscopedQueryError):
        query()


def test_scoped_and_related_queries_work(world, other_world):
    assert Company.objects.for_tenant(world.tenant).count() == 2
    assert list(Company.objects.for_tenant(world.tenant).filter(name="Alfa Construções")) == [world.alfa]
    permit = WorkPermit.objects.for_tenant(world.tenant).get(number="123")
    assert [c.component_type.key for c in permit.components.all()] == ["workingAtHeight"]
    assert permit.pk != other_world.permit.pk


def test_deleting_a_tenant_removes_all_its_sst_rows_and_nothing_else(world, other_world):
    from sst.faults import fault_add

    fault_add(tenant=world.tenant, route="sst:permit-detail", status=503)
    world.tenant.delete()
    assert not WorkPermit.objects.for_tenant(world.tenant).exists()
    assert not PermitComponent.objects.for_tenant(world.tenant).exists()
    assert WorkPermit.objects.for_tenant(other_world.tenant).count() == 1


def test_a_company_with_permits_cannot_be_deleted_on_its_own(world):
    from django.db.models import RestrictedError

    with pytest.raises(RestrictedError):
        world.alfa.delete()
