"""Reads of the registry, and the hot-path snapshot.

The hot path (intent matching, planning, the executor's per-step checks) resolves capability ids
many times per turn. `registry_snapshot()` makes that cheap without ever serving a capability
after its suspension commits, in any process:

1. it reads the registry version — one primary-key SELECT on a one-row table that a trigger moves
   in the same transaction as every status change, tenant block or resource change;
2. if this process already built a snapshot for that exact version it returns it, otherwise it
   builds one from the database (a handful of queries) and keeps it.

A snapshot is immutable: callers take one at the start of a unit of work (a turn, a step) and
resolve from it in microseconds. A suspension that commits after the version read is seen by the
next snapshot; one that committed before is seen by this one. Version numbers come from a
PostgreSQL sequence, so a rolled-back transaction can never make an old number mean a new state.
A cache library (cachetools, Django's cache) would add a TTL, i.e. a window of staleness; the
version check is what gives the guarantee, and the rest is a dict, so it is written here.

The JSON parts of a spec (schemas, language, undo...) are shared between callers: treat them as
read-only.

The planner's composites (`composites:` in the manifest) are not rows: they only arrange registered
capabilities, whose status the plan's validation checks step by step, so there is nothing to approve
or suspend in them. They are read from the manifest files — once per process, again when a file
changes — and carried by the snapshot like the capabilities they arrange.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Any

import jsonschema
from django.conf import settings
from django.db import connection
from prometheus_client import Counter

from .manifest import composites_read
from .models import CapabilityStatus, CapabilityVersion, Resource, TenantCapabilityBlock, Transport
from .roles import permissions_for_role


class CapabilityUnavailable(LookupError):
    """The capability is unknown, not ACTIVE, or switched off for the tenant."""


@dataclass(frozen=True)
class ResourceSpec:
    key: str
    base_path: str
    transport: str
    base_url: str | None
    timeout_initial_ms: int
    timeout_max_ms: int
    auth: str
    fallbacks: tuple[str, ...]


@dataclass(frozen=True)
class CapabilitySpec:
    id: str
    version: int
    description: str
    kind: str
    risk_level: str
    required_permissions: frozenset[str]
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any]
    resource: ResourceSpec | None
    http_method: str
    path_template: str
    call: Mapping[str, Any]
    navigation: Mapping[str, Any] | None
    idempotent: bool
    honours_idempotency_key: bool
    cancellable: bool
    undo: Mapping[str, Any] | None
    compensation: Mapping[str, Any] | None
    verification: Mapping[str, Any] | None
    retry_policy: Mapping[str, Any]
    adaptation: Mapping[str, Any]
    language: Mapping[str, Any]
    discoverable: bool
    definition_hash: str
    preconditions: tuple[Mapping[str, Any], ...] = ()

    def permitted_for(self, permissions: frozenset[str]) -> bool:
        return self.required_permissions <= permissions

    @property
    def fallbacks(self) -> tuple[str, ...]:
        """The resources a call may be routed to besides the primary: named by both the capability
        (adaptation.fallback_resources) and its resource (PRD-034 §21-§22), in the capability's order."""
        registered = set(self.resource.fallbacks) if self.resource is not None else set()
        return tuple(f for f in (self.adaptation or {}).get("fallback_resources", []) if f in registered)

    @cached_property
    def input_validator(self) -> jsonschema.protocols.Validator:
        """A compiled validator of the input schema, built once per snapshot."""
        return jsonschema.Draft202012Validator(self.input_schema)

    @cached_property
    def reference_fields(self) -> Mapping[str, str]:
        """Input field → entity type, for the language slots that name one existing entity by id
        (`parse: reference` on an integer input): what a step of this capability acts on."""
        properties = self.input_schema.get("properties") or {}
        found: dict[str, str] = {}
        for slot in (self.language or {}).get("slots") or ():
            name = slot.get("field") or slot.get("name")
            if slot.get("parse") == "reference" and (properties.get(name) or {}).get("type") == "integer":
                found[name] = slot.get("type")
        return MappingProxyType(found)

    def targets_in(self, values: Mapping[str, Any]) -> list[dict[str, Any]]:
        """`[{type, id}]` of the entities an input names through the reference fields (ids only)."""
        return [{"type": entity, "id": values[name]} for name, entity in self.reference_fields.items()
                if isinstance(values.get(name), int) and not isinstance(values.get(name), bool)]

    def render_path(self, values: Mapping[str, Any]) -> str:
        """The call path with `{placeholders}` filled from the step input (resource base path excluded)."""
        return self.path_template.format_map({k: str(v) for k, v in values.items()})


@dataclass(frozen=True)
class RegistrySnapshot:
    version: int | None
    capabilities: Mapping[str, CapabilitySpec]
    resources: Mapping[str, ResourceSpec]
    blocked: Mapping[str, frozenset[str]] = field(default_factory=dict)  # tenant id -> capability ids
    composites: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # name -> manifest definition

    def get(self, capability_id: str, *, tenant: Any = None) -> CapabilitySpec | None:
        """The ACTIVE spec of `capability_id`, or None (unknown, not ACTIVE, or blocked for `tenant`)."""
        spec = self.capabilities.get(capability_id)
        if spec is None or (tenant is not None and capability_id in self.blocked.get(_tenant_key(tenant), ())):
            return None
        return spec

    def require(self, capability_id: str, *, tenant: Any = None) -> CapabilitySpec:
        spec = self.get(capability_id, tenant=tenant)
        if spec is None:
            raise CapabilityUnavailable(capability_id)
        return spec

    def reader_of(self, entity_type: str, *, tenant: Any = None,
                  many: bool = False) -> tuple[CapabilitySpec, str] | None:
        """(the read of one `entity_type` by id, its id field) from the language metadata: a read of
        that entity with one required input whose output is the entity (has an `id`), `show` first.
        With `many`, the read of several by a comma-separated list (its one required input is a string)."""
        found = []
        for key, spec in sorted(self.capabilities.items()):
            language = spec.language or {}
            required = list(spec.input_schema.get("required") or ())
            if spec.kind != "read" or language.get("entity") != entity_type or len(required) != 1:
                continue
            kind = ((spec.input_schema.get("properties") or {}).get(required[0]) or {}).get("type")
            output = spec.output_schema
            if many and kind == "string" and output.get("type") == "array":
                found.append((0, key, required[0]))
            elif not many and kind == "integer" and "id" in (output.get("properties") or {}):
                found.append((language.get("intent") != "show", key, required[0]))
        for _, key, field_name in sorted(found):
            spec = self.get(key, tenant=tenant)
            if spec is not None:
                return spec, field_name
        return None

    def discoverable_for(self, *, tenant: Any, role: str) -> list[CapabilitySpec]:
        """ACTIVE, discoverable capabilities `role` holds every permission of, not blocked for `tenant`."""
        permissions = permissions_for_role(role)
        blocked = self.blocked.get(_tenant_key(tenant), frozenset())
        return [s for key, s in sorted(self.capabilities.items())
                if s.discoverable and key not in blocked and s.permitted_for(permissions)]


def _tenant_key(tenant: Any) -> str:
    return str(getattr(tenant, "pk", tenant))


_lock = threading.Lock()
_cached: RegistrySnapshot | None = None
# PRD-006 §40 cache hit rate: a miss is a rebuild (a new registry version, or this process's first turn).
SNAPSHOT_CACHE = Counter("sst_agent_registry_snapshot_cache", "registry_snapshot(): this process's snapshot of "
                         "the current registry version reused (hit) or built (miss).", ["result"])


def registry_version_sql() -> str:
    """The version read as a scalar subquery, for a caller that reads it within a statement of its own."""
    return "(SELECT version FROM registry_registrystate WHERE id = 1)"


def registry_version() -> int | None:
    """The current registry version (None when the state row is missing, e.g. right after a flush)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {registry_version_sql()}")
        row = cursor.fetchone()
    return None if row is None or row[0] is None else int(row[0])


def registry_snapshot(version: int | None = None) -> RegistrySnapshot:
    """The registry as of now: one version read, then this process's snapshot of that version.

    `version`: the caller read it just now (registry_version_sql in its own statement)."""
    global _cached
    version = registry_version() if version is None else version
    cached = _cached
    if version is not None and cached is not None and cached.version == version:
        SNAPSHOT_CACHE.labels(result="hit").inc()
        return cached
    SNAPSHOT_CACHE.labels(result="miss").inc()
    with _lock:
        # Built after the version read: at least as new as `version`, never older.
        snapshot = snapshot_build(version)
        if version is not None:
            _cached = snapshot
    return snapshot


def snapshot_clear() -> None:
    """Forget this process's snapshot (tests and benchmarks; correctness never needs it)."""
    global _cached
    _cached = None


def snapshot_build(version: int | None) -> RegistrySnapshot:
    resources = {r.key: _resource_spec(r) for r in Resource.objects.prefetch_related("fallback_links__fallback")}
    rows = (CapabilityVersion.objects.filter(status=CapabilityStatus.ACTIVE)
            .select_related("capability", "resource"))
    capabilities = {row.capability.key: capability_spec(row, resources) for row in rows}
    blocked: dict[str, set[str]] = {}
    for tenant_id, key in TenantCapabilityBlock.objects.all_tenants().values_list("tenant_id", "capability__key"):
        blocked.setdefault(str(tenant_id), set()).add(key)
    return RegistrySnapshot(version=version, capabilities=MappingProxyType(capabilities),
                            resources=MappingProxyType(resources),
                            blocked=MappingProxyType({t: frozenset(k) for t, k in blocked.items()}),
                            composites=composite_definitions())


_composites: tuple[tuple, Mapping[str, Mapping[str, Any]]] | None = None


def manifest_directory() -> Path:
    return Path(settings.BASE_DIR) / "capabilities"


def composite_definitions() -> Mapping[str, Mapping[str, Any]]:
    """The manifest's composites (read-only), re-read only when a manifest file changed: a stat per
    file instead of parsing them all on every turn. An invalid manifest raises ManifestInvalid."""
    global _composites
    files = sorted(manifest_directory().glob("*.yaml"))
    fingerprint = tuple((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in files)
    cached = _composites
    if cached is None or cached[0] != fingerprint:
        cached = (fingerprint, MappingProxyType(composites_read(manifest_directory())))
        _composites = cached
    return cached[1]


def _resource_spec(resource: Resource) -> ResourceSpec:
    base_url = getattr(settings, resource.base_url_setting, None) if resource.base_url_setting else None
    transport = Transport.HTTP if base_url else resource.transport
    return ResourceSpec(
        key=resource.key, base_path=resource.base_path, transport=transport, base_url=base_url or None,
        timeout_initial_ms=resource.timeout_initial_ms, timeout_max_ms=resource.timeout_max_ms, auth=resource.auth,
        fallbacks=tuple(link.fallback.key for link in resource.fallback_links.all()),
    )


def capability_spec(row: CapabilityVersion, resources: Mapping[str, ResourceSpec] | None = None) -> CapabilitySpec:
    if row.resource_id is None:
        resource = None
    elif resources is not None:
        resource = resources[row.resource.key]
    else:
        resource = _resource_spec(row.resource)
    return CapabilitySpec(
        id=row.capability.key, version=row.version, description=row.description, kind=row.kind,
        risk_level=row.risk_level, required_permissions=frozenset(row.required_permissions),
        input_schema=row.input_schema, output_schema=row.output_schema, resource=resource,
        http_method=row.http_method, path_template=row.path_template, call=row.call, navigation=row.navigation,
        idempotent=row.idempotent, honours_idempotency_key=row.honours_idempotency_key,
        cancellable=row.cancellable, undo=row.undo, compensation=row.compensation, verification=row.verification,
        retry_policy=row.retry_policy, adaptation=row.adaptation, language=row.language,
        discoverable=row.discoverable, definition_hash=row.definition_hash,
        preconditions=tuple(row.preconditions or ()),
    )


def capability_get_active(*, capability_id: str) -> CapabilitySpec | None:
    """The ACTIVE spec straight from the database (no cache): the baseline the bench compares with."""
    row = (CapabilityVersion.objects.select_related("capability", "resource")
           .filter(capability__key=capability_id, status=CapabilityStatus.ACTIVE).first())
    return None if row is None else capability_spec(row)


def capability_versions(*, capability_id: str) -> list[CapabilityVersion]:
    return list(CapabilityVersion.objects.filter(capability__key=capability_id).order_by("-version"))


def previous_version(version: CapabilityVersion) -> CapabilityVersion | None:
    return (CapabilityVersion.objects.filter(capability_id=version.capability_id, version__lt=version.version)
            .order_by("-version").first())


def definition_of(version: CapabilityVersion) -> dict[str, Any]:
    """The manifest-shaped, normalized definition of a version (what its hash covers)."""
    call = None
    if version.resource_id is not None:
        call = {"resource": version.resource.key, "method": version.http_method, "path": version.path_template,
                **version.call}
    return {
        "id": version.capability.key, "description": version.description, "kind": version.kind,
        "risk": version.risk_level, "permissions": version.required_permissions, "input": version.input_schema,
        "output": version.output_schema, "call": call, "navigation": version.navigation,
        "idempotent": version.idempotent, "idempotency_key": version.honours_idempotency_key,
        "cancellable": version.cancellable, "undo": version.undo, "compensation": version.compensation,
        "verification": version.verification, "retry": version.retry_policy, "adaptation": version.adaptation,
        "language": version.language, "discoverable": version.discoverable,
        **({"preconditions": version.preconditions} if version.preconditions else {}),
    }
