"""The one place policy touches the registry.

Reads go through the registry's immutable snapshot of ACTIVE capabilities and tenant blocks. The
registry version it must match is read by policy's live statement (`policy.live`), in the same
round trip as the other live checks; `snapshot_at(version)` reuses the snapshot policy last used
only when it was built for exactly that version (versions come from a PostgreSQL sequence, so an
equal version is an equal registry), and otherwise asks `registry_snapshot()` for the current one.
What the snapshot does not carry is read here from the registry's models, on the rare path that
needs it: a version that is not the ACTIVE one (to tell CAPABILITY_VERSION_STALE from
NOT_ACTIVE/UNKNOWN). Capability primary keys (what guardian's grants are keyed by) come from the
live statement too.

Preconditions come from the capability version itself (the manifest's `preconditions`, stored on
the version and carried by its spec). Missing in registry (would let this module shrink): a
"version status" lookup for non-ACTIVE versions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q

from registry.models import CapabilityStatus, CapabilityVersion
from registry.roles import permissions_for_role as _registry_permissions_for_role
from registry.selectors import RegistrySnapshot, registry_snapshot

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
    # The registered fallbacks a call may be routed to: its RESOURCE kill switches are checked on the
    # primary and these (a call is stopped only when all are, policy.engine._step_switches).
    fallbacks: tuple[str, ...] = ()


@dataclass(frozen=True)
class CapabilityFacts:
    key: str
    pk: int
    versions: dict[int, VersionFacts] = field(default_factory=dict)

    @property
    def active_version(self) -> int | None:
        return next((v.version for v in self.versions.values() if v.status == ACTIVE), None)


def _preconditions(definition: Any) -> tuple[dict[str, Any], ...]:
    """The version's declared rules (a spec of the snapshot or a CapabilityVersion row)."""
    declared = getattr(definition, "preconditions", None)
    return tuple(declared) if isinstance(declared, list | tuple) else ()


def _facts(key: str, row: Any, *, resource: str, risk: str, status: str,
           fallbacks: tuple[str, ...] = ()) -> VersionFacts:
    return VersionFacts(version=row.version, status=status, kind=row.kind, risk=risk,
                        required_permissions=frozenset(row.required_permissions or ()), resource=resource,
                        preconditions=_preconditions(row), fallbacks=fallbacks)


_last: list[RegistrySnapshot | None] = [None]


def snapshot_at(version: int | None) -> RegistrySnapshot:
    """The registry snapshot for `version` (read live by the caller), or a newer one; never an older one."""
    last = _last[0]
    if version is not None and last is not None and last.version == version:
        return last
    snapshot = registry_snapshot()  # reads the version again: at least as new as `version`
    _last[0] = snapshot
    return snapshot


def capability_facts(wanted: Iterable[tuple[str, int]], *, tenant: Any, snapshot: RegistrySnapshot,
                     pks: Mapping[str, int]) -> tuple[dict[str, CapabilityFacts], frozenset[str]]:
    """(facts per capability id: the asked-for versions and the ACTIVE one; ids blocked for `tenant`).

    `pks`: capability id → primary key of the capabilities that exist (read live); others are unknown.
    """
    wanted = list(wanted)
    result: dict[str, CapabilityFacts] = {}
    off_snapshot: list[tuple[str, int]] = []
    for key, version in wanted:
        if key not in pks:
            continue
        facts = result.setdefault(key, CapabilityFacts(key=key, pk=pks[key]))
        spec = snapshot.capabilities.get(key)
        if spec is not None:
            facts.versions[spec.version] = _facts(key, spec, resource=spec.resource.key if spec.resource else "",
                                                  risk=spec.risk_level, status=ACTIVE, fallbacks=spec.fallbacks)
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
