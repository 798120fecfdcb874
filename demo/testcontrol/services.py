"""Test control: scenario worlds, their facts, faults by capability and the shared clock.

Used by the `/api/_test/` endpoints (which exist only with `AGENT_TEST_CONTROL` on) and by
nothing in the product. A world lives in a fresh tenant whose slug starts with `scn-`; its other
tenant, when the world has one, is `<slug>-other`, so the pair is found again from either process
(web server, runner) without a table of its own. Only such tenants can be read, faulted or deleted
here: test control cannot reach a real tenant.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.urls import Resolver404, resolve

from demo.seeding import registry as registry_seeding
from demo.seeding.world import World, WorldError, world_problems, world_seed
from registry.selectors import registry_snapshot
from sst import faults, inspection_selectors
from sst import selectors as sst_selectors
from sst.clock import today
from sst.models import (
    Company,
    ComponentType,
    Employee,
    FaultRule,
    Finding,
    Inspection,
    PermitComponent,
    PermitWorker,
    WorkPermit,
)
from tenancy import clock
from tenancy.db import purge_window
from tenancy.models import Role, Tenant
from tenancy.services import access_token_issue, membership_grant, tenant_create

WORLD_SLUG_PREFIX = "scn-"
OTHER_SUFFIX = "-other"
WORLD_ROLES = (Role.VIEWER, Role.OPERATOR, Role.SUPERVISOR)
SST_NAMESPACE = "sst"
# Everything of a tenant's SST data: the digest of these rows changes whenever any of it changes.
SST_DATA_MODELS = (Company, Employee, ComponentType, WorkPermit, PermitComponent, PermitWorker, Inspection, Finding)
_PLACEHOLDER = re.compile(r"\{[^{}]+\}")


class WorldNotFound(LookupError):
    """No scenario world has that tenant id (or the tenant is not a scenario world)."""


class UnknownCapability(LookupError):
    """The capability is not ACTIVE in the registry, or does not call the SST API."""


@dataclass(frozen=True)
class TenantWorld:
    tenant: str
    users: dict[str, dict[str, str]]  # role → {"username", "token"}


@dataclass(frozen=True)
class CreatedWorld:
    tenant: str
    users: dict[str, dict[str, str]]
    other_tenant: TenantWorld | None


def world_create(*, world: World) -> CreatedWorld:
    """A fresh tenant loaded with `world` (and its other tenant), with a viewer, operator and supervisor each."""
    problems = world_problems(world)
    if problems:
        raise WorldError(problems)
    _registry_ensure()
    clock.reset()  # a scenario starts at the real time: an earlier one's `advance` does not carry over
    slug = f"{WORLD_SLUG_PREFIX}{uuid.uuid4().hex[:16]}"
    with transaction.atomic():
        main = _tenant_world(slug, {k: v for k, v in world.items() if k != "other_tenant"})
        other = None
        if world.get("other_tenant") is not None:
            other = _tenant_world(f"{slug}{OTHER_SUFFIX}", world["other_tenant"])
    return CreatedWorld(tenant=main.tenant, users=main.users, other_tenant=other)


def _registry_ensure() -> None:
    # The product needs the capability manifest ACTIVE; seeding it is idempotent but not free.
    if not registry_snapshot().capabilities:
        registry_seeding.seed(stdout=_Null())


class _Null:
    def write(self, text: str) -> int:
        return len(text)


def _tenant_world(slug: str, world: World) -> TenantWorld:
    tenant = tenant_create(slug=slug, name=f"Scenario {slug}")
    world_seed(tenant=tenant, world=world)
    users: dict[str, dict[str, str]] = {}
    for role in WORLD_ROLES:
        username = f"{slug}-{role}"
        user = get_user_model().objects.create_user(username=username, password=None)
        membership_grant(user=user, tenant=tenant, role=role)
        users[str(role)] = {"username": username, "token": access_token_issue(user=user, tenant=tenant,
                                                                              label="scenario world")}
    return TenantWorld(tenant=str(tenant.pk), users=users)


def world_tenant_get(*, tenant_id: Any) -> Tenant:
    """A scenario world's tenant by id; anything else (missing, malformed, a real tenant) is WorldNotFound."""
    try:
        key = uuid.UUID(str(tenant_id))
    except ValueError:
        raise WorldNotFound(str(tenant_id)) from None
    tenant = Tenant.objects.filter(pk=key, slug__startswith=WORLD_SLUG_PREFIX).first()
    if tenant is None:
        raise WorldNotFound(str(tenant_id))
    return tenant


def _other_of(tenant: Tenant) -> Tenant | None:
    return Tenant.objects.filter(slug=f"{tenant.slug}{OTHER_SUFFIX}").first()


@transaction.atomic
def world_delete(*, tenant_id: Any) -> None:
    """Remove the world's tenant, its other tenant, their users and every row of them."""
    tenant = world_tenant_get(tenant_id=tenant_id)
    with purge_window():  # SQLite's append-only tables; on PostgreSQL the maintainer role decides
        for doomed in [t for t in (_other_of(tenant), tenant) if t is not None]:
            usernames = [f"{doomed.slug}-{role}" for role in WORLD_ROLES]
            doomed.delete()  # cascades to every tenant-owned row (SST data, conversations, events...)
            get_user_model().objects.filter(username__in=usernames).delete()


def world_facts(*, tenant_id: Any) -> dict[str, Any]:
    """The tenant's permits and inspections as scenario facts, and the digest of its other tenant's SST data."""
    tenant = world_tenant_get(tenant_id=tenant_id)
    other, day = _other_of(tenant), today()
    return {
        "permits": [_permit_fact(p) for p in sst_selectors.permit_list(tenant=tenant)],
        "inspections": [_inspection_fact(i, day) for i in inspection_selectors.inspection_list(tenant=tenant)],
        "other_tenant_digest": None if other is None else sst_digest(tenant=other),
    }


def _permit_fact(permit: WorkPermit) -> dict[str, Any]:
    return {
        "id": permit.pk,
        "number": permit.number,
        "company": permit.company.name,
        "status": permit.status,
        "validity_days": permit.validity_days,
        "responsible": permit.responsible.name if permit.responsible else None,
        "components": [c.component_type.name for c in permit.components.all()],
        "workers": [w.employee.name for w in permit.workers.all()],
    }


def _inspection_fact(inspection: Inspection, day: date) -> dict[str, Any]:
    return {
        "id": inspection.pk,
        "number": inspection.number,
        "company": inspection.company.name,
        "site": inspection.site,
        "status": inspection.status,
        "scheduled_for": inspection.scheduled_for.isoformat(),
        # Counted from today by the server's clock, the one test control moves (API.md).
        "scheduled_in_days": (inspection.scheduled_for - day).days,
        "inspector": inspection.inspector.name if inspection.inspector else None,
        "findings": [finding.description for finding in inspection.findings.all()],
    }


def sst_digest(*, tenant: Tenant) -> str:
    """SHA-256 over every column of every SST row of `tenant` (revisions and timestamps included)."""
    rows = {model.__name__: list(model.objects.for_tenant(tenant).order_by("pk").values())
            for model in SST_DATA_MODELS}
    canonical = json.dumps(rows, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def capability_route(*, capability: str) -> tuple[str, str]:
    """(SST URL name, HTTP method) the capability calls, read from the registry and Django's URL table."""
    spec = registry_snapshot().get(capability)
    if spec is None or spec.resource is None:
        raise UnknownCapability(f"{capability!r} is not an ACTIVE capability that calls an API")
    # Any id fills a placeholder: only the route's name is wanted, not an object.
    path = spec.resource.base_path.rstrip("/") + "/" + _PLACEHOLDER.sub("1", spec.path_template).lstrip("/")
    try:
        match = resolve(path)
    except Resolver404:
        raise UnknownCapability(f"{capability!r} calls {path}, which is no route of this server") from None
    if match.namespace != SST_NAMESPACE:
        raise UnknownCapability(f"{capability!r} calls {match.view_name}, not the SST API: faults need SST routes")
    return match.view_name, spec.http_method.upper()


def fault_add(*, tenant_id: Any, capability: str, status: int | None = None, latency_ms: int | None = None,
              times: int | None = None, match: dict[str, Any] | None = None) -> FaultRule:
    tenant = world_tenant_get(tenant_id=tenant_id)
    route, method = capability_route(capability=capability)
    return faults.fault_add(tenant=tenant, route=route, method=method, status=status, latency_ms=latency_ms,
                            times=times, match=match)


def faults_clear(*, tenant_id: Any) -> int:
    return faults.fault_clear(tenant=world_tenant_get(tenant_id=tenant_id))


def clock_advance(*, seconds: float) -> datetime:
    return clock.advance(seconds)
