"""The one place policy touches the registry's internals.

The registry has no read API for policy's needs yet (a hot-path `registry_snapshot()` is being
written), so this module reads its models directly and hands the engine plain frozen data. When
the registry publishes selectors, only this module changes. What policy needs from registry:

- `capability_facts(keys)`: for each capability id, every version asked for plus the ACTIVE one
  (status, kind, risk, required permissions, resource key, preconditions), in one query;
- `blocked_capabilities(tenant, keys)`: the tenant's `TenantCapabilityBlock`s;
- `permissions_for_role(role)`: the role → permission mapping (registry.roles).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q

from registry.models import Capability, CapabilityStatus, CapabilityVersion, TenantCapabilityBlock
from registry.roles import permissions_for_role as _registry_permissions_for_role

from .rules import PRECONDITIONS

ACTIVE = CapabilityStatus.ACTIVE.value


@dataclass(frozen=True)
class VersionFacts:
    version: int
    status: str
    kind: str
    risk: str
    required_permissions: frozenset[str]
    resource: str
    preconditions: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class CapabilityFacts:
    key: str
    pk: int
    versions: dict[int, VersionFacts] = field(default_factory=dict)

    @property
    def active_version(self) -> int | None:
        return next((v.version for v in self.versions.values() if v.status == ACTIVE), None)


def _preconditions(key: str, row: CapabilityVersion) -> tuple[dict[str, Any], ...]:
    declared = getattr(row, "preconditions", None)  # when the registry's definition carries them
    if isinstance(declared, list):
        return tuple(declared)
    return PRECONDITIONS.get(key, ())


def capability_facts(wanted: Iterable[tuple[str, int]]) -> dict[str, CapabilityFacts]:
    """The asked-for versions and the ACTIVE version of each capability id."""
    wanted = list(wanted)
    keys = {key for key, _ in wanted}
    if not keys:
        return {}
    wanted_q = Q(status=ACTIVE)
    for key, version in wanted:
        wanted_q |= Q(capability__key=key, version=version)
    rows = (CapabilityVersion.objects.filter(capability__key__in=keys).filter(wanted_q)
            .select_related("capability", "resource"))
    result: dict[str, CapabilityFacts] = {}
    for row in rows:
        key = row.capability.key
        facts = result.setdefault(key, CapabilityFacts(key=key, pk=row.capability_id))
        facts.versions[row.version] = VersionFacts(
            version=row.version, status=row.status, kind=row.kind, risk=row.risk_level,
            required_permissions=frozenset(row.required_permissions or ()),
            resource=row.resource.key if row.resource_id else "",
            preconditions=_preconditions(key, row),
        )
    return result


def capability_pks(keys: Iterable[str]) -> dict[str, int]:
    return dict(Capability.objects.filter(key__in=list(keys)).values_list("key", "pk"))


def blocked_capabilities(*, tenant: Any, keys: Iterable[str]) -> frozenset[str]:
    return frozenset(TenantCapabilityBlock.objects.for_tenant(tenant).filter(capability__key__in=list(keys))
                     .values_list("capability__key", flat=True))


def permissions_for_role(role: str | None) -> frozenset[str]:
    return _registry_permissions_for_role(role) if role else frozenset()


def capability_model() -> type[Capability]:
    return Capability
