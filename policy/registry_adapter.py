"""The one place policy touches the registry.

Reads go through `registry.selectors.registry_snapshot()` (one version read, then the process's
immutable snapshot of ACTIVE capabilities and tenant blocks). What the snapshot does not carry is
read here from the registry's models, and only on the rare paths that need it:

- a version that is not the ACTIVE one (to tell CAPABILITY_VERSION_STALE from NOT_ACTIVE/UNKNOWN);
- the Capability primary key, which guardian's `use_capability` grants are keyed by (cached per
  process: a capability row is never deleted — its versions PROTECT it — so key → pk never changes).

Missing in registry (would let this module shrink): the capability pk (or the guardian grants)
and `preconditions` in the capability spec, and a "version status" lookup for non-ACTIVE versions.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q

from registry.models import Capability, CapabilityStatus, CapabilityVersion
from registry.roles import permissions_for_role as _registry_permissions_for_role
from registry.selectors import registry_snapshot

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


def _preconditions(key: str, definition: Any) -> tuple[dict[str, Any], ...]:
    declared = getattr(definition, "preconditions", None)  # once the registry's definition carries them
    if isinstance(declared, list | tuple):
        return tuple(declared)
    return PRECONDITIONS.get(key, ())


def _facts(key: str, row: Any, *, resource: str, risk: str, status: str) -> VersionFacts:
    return VersionFacts(version=row.version, status=status, kind=row.kind, risk=risk,
                        required_permissions=frozenset(row.required_permissions or ()), resource=resource,
                        preconditions=_preconditions(key, row))


_pks: dict[str, int] = {}
_pks_version: list[int | None] = [None]


def _capability_pks(keys: set[str], version: int | None) -> dict[str, int]:
    # Dropped whenever the registry version moves (every capability insert moves it), so a key
    # rolled back and re-created (tests) is never served a stale pk.
    if version is None or version != _pks_version[0]:
        _pks.clear()
        _pks_version[0] = version
    unknown = keys - _pks.keys()
    if unknown:
        _pks.update(Capability.objects.filter(key__in=unknown).values_list("key", "pk"))
    return {key: _pks[key] for key in keys if key in _pks}


def capability_facts(wanted: Iterable[tuple[str, int]], *, tenant: Any = None) -> tuple[dict[str, CapabilityFacts],
                                                                                        frozenset[str]]:
    """(facts per capability id: the asked-for versions and the ACTIVE one; ids blocked for `tenant`)."""
    wanted = list(wanted)
    snapshot = registry_snapshot()
    result: dict[str, CapabilityFacts] = {}
    off_snapshot: list[tuple[str, int]] = []
    pks = _capability_pks({key for key, _ in wanted}, snapshot.version)
    for key, version in wanted:
        if key not in pks:
            continue
        facts = result.setdefault(key, CapabilityFacts(key=key, pk=pks[key]))
        spec = snapshot.capabilities.get(key)
        if spec is not None:
            facts.versions[spec.version] = _facts(key, spec, resource=spec.resource.key if spec.resource else "",
                                                  risk=spec.risk_level, status=ACTIVE)
        if spec is None or spec.version != version:
            off_snapshot.append((key, version))
    if off_snapshot:
        query = Q()
        for key, version in off_snapshot:
            query |= Q(capability__key=key, version=version)
        for row in CapabilityVersion.objects.filter(query).select_related("capability", "resource"):
            key = row.capability.key
            result[key].versions.setdefault(row.version, _facts(
                key, row, resource=row.resource.key if row.resource_id else "", risk=row.risk_level,
                status=row.status))
    blocked = snapshot.blocked.get(str(getattr(tenant, "pk", tenant)), frozenset()) if tenant is not None else ()
    return result, frozenset(blocked) & {key for key, _ in wanted}


def permissions_for_role(role: str | None) -> frozenset[str]:
    return _registry_permissions_for_role(role) if role else frozenset()


def capability_model() -> type[Capability]:
    return Capability
