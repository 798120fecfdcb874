"""The tenant-scoped queryset every tenant-owned model uses.

A query on a tenant-owned model must say which tenant it is about. Evaluating, counting,
updating or deleting a queryset that was never scoped raises `UnscopedQueryError` instead of
silently returning every tenant's rows (ARCHITECTURE.md invariant 2). Django has no kept library
for this guard (django-multitenant/-tenants solve schema routing, not "fail on unscoped"), so it
is written here, small.

A queryset is scoped when it came from `for_tenant(t)`, from a related manager of an instance
that is itself scoped data (`permit.components.all()`), or when its WHERE clause pins the tenant
column (Django's own unique checks filter like that). `all_tenants()` is the one explicit escape
hatch, for the admin, migrations and maintenance commands: grep for it in review.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from django.db.models.lookups import Exact, In


class UnscopedQueryError(RuntimeError):
    """Raised when a tenant-owned model is queried without a tenant."""


class TenantQuerySet(models.QuerySet):
    _scoped: bool = False

    def _clone(self) -> TenantQuerySet:
        clone = super()._clone()
        clone._scoped = self._scoped
        return clone

    def _mark_scoped(self) -> TenantQuerySet:
        clone = self._chain() if self._result_cache is None else self._clone()
        clone._scoped = True
        return clone

    def for_tenant(self, tenant: Any) -> TenantQuerySet:
        if tenant is None:
            raise UnscopedQueryError(f"{self.model.__name__}.for_tenant() needs a tenant, got None")
        tenant_id = getattr(tenant, "pk", tenant)
        return self.filter(tenant_id=tenant_id)._mark_scoped()

    def all_tenants(self) -> TenantQuerySet:
        return self._mark_scoped()

    def _pins_tenant(self) -> bool:
        for child in self.query.where.children:
            if isinstance(child, Exact | In) and getattr(child.lhs, "target", None) is not None:
                if child.lhs.target.name == "tenant" and child.lhs.alias == self.query.get_initial_alias():
                    return True
        return False

    def _guard(self, operation: str) -> None:
        if not self._scoped and not self._pins_tenant():
            raise UnscopedQueryError(
                f"{operation} on {self.model.__name__} without a tenant: use "
                f"{self.model.__name__}.objects.for_tenant(tenant)"
            )

    def _fetch_all(self) -> None:
        if self._result_cache is None:
            self._guard("query")
        super()._fetch_all()

    def iterator(self, *args: Any, **kwargs: Any):
        self._guard("iterator()")
        return super().iterator(*args, **kwargs)

    def count(self) -> int:
        if self._result_cache is None:
            self._guard("count()")
        return super().count()

    def exists(self) -> bool:
        if self._result_cache is None:
            self._guard("exists()")
        return super().exists()

    def aggregate(self, *args: Any, **kwargs: Any) -> dict:
        self._guard("aggregate()")
        return super().aggregate(*args, **kwargs)

    def update(self, **kwargs: Any) -> int:
        self._guard("update()")
        return super().update(**kwargs)

    def delete(self) -> tuple[int, dict[str, int]]:
        self._guard("delete()")
        return super().delete()

    def explain(self, **options: Any) -> str:
        self._guard("explain()")
        return super().explain(**options)


class TenantManager(models.Manager.from_queryset(TenantQuerySet)):
    def get_queryset(self) -> TenantQuerySet:
        queryset = super().get_queryset()
        # Related managers (instance.children) are reached from a row the caller already holds.
        if getattr(self, "instance", None) is not None:
            return queryset._mark_scoped()
        return queryset


class TenantOwnedModel(models.Model):
    """Base for every model whose rows belong to one tenant."""

    tenant = models.ForeignKey("tenancy.Tenant", on_delete=models.CASCADE, related_name="+")

    objects = TenantManager()

    class Meta:
        abstract = True
        # Django's internals (cascades, FK descriptors) use the base manager: it stays plain.
        base_manager_name = "_plain"

    _plain = models.Manager()
