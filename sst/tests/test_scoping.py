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
