"""Fault injection for the sample SST API (tests, demos and load tests only).

Off unless `settings.SST_FAULT_INJECTION` is true. A FaultRule makes one route (URL name, e.g.
`sst:permit-validity`), optionally one method, answer `status` with `{"code": "INJECTED_FAULT"}`
and/or wait `latency_ms` first — for the next `times` calls, or every call while `times` is NULL.
A `noop` rule is the API that says it did what it did not: the handler runs and its answer (a 2xx
with the entity as it would be) goes back, but its writes are rolled back — what a caller's
verification by reading must catch (HTTP 200 is not the business fact).
`times` lives in the database and is decremented by a conditional UPDATE, so several server
processes share one budget and never inject more faults than asked.

`match` narrows a rule to calls about one item: each `field: value` must equal (ignoring case
and accents) the body's value — or a URL argument's — or be contained in the name of the object
that value refers to: `{"component": "Espaço Confinado"}` matches `{"component": "confinedSpace"}`
and `{"employee": "Maria"}` matches the id of "Maria Souza". An item a body names under another
field is matched under the item's name: `{"finding": "guarda-corpo"}` matches a finding added with
`{"description": "Guarda-corpo solto"}` and the removal of that finding (its id in the URL). The
URL's `id` is the permit's number for `permit` on permit routes and the inspection's number for
`inspection` on inspection routes. There is no library for this: it is a test double of this one API.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q

from tenancy.models import Tenant

from .models import Company, ComponentType, Employee, FaultRule, Finding, Inspection, PermitComponent, WorkPermit
from .text import fold

APP_NAMESPACE = "sst"
# Match fields whose value a body carries under another name (a finding is added by its description).
_BODY_FIELDS = {"finding": "description"}


@dataclass(frozen=True)
class InjectedFault:
    status: int | None
    noop: bool = False


def without_effect(handler: Callable[..., Any]) -> Callable[..., Any]:
    """A `noop` fault's handler: the same answer, none of its writes kept (a savepoint rolled back;
    the idempotency record, stored around it, keeps the answer, as a buggy API would)."""

    def run(*args: Any, **kwargs: Any) -> Any:
        with transaction.atomic():
            response = handler(*args, **kwargs)
            transaction.set_rollback(True)
        return response

    return run


def _route_name(route: str) -> str:
    from .urls import route_names  # the URL table imports the views, which import this module

    name = route if ":" in route else f"{APP_NAMESPACE}:{route}"
    if name not in route_names():
        raise ValueError(f"unknown SST route {route!r}; known: {sorted(route_names())}")
    return name


def fault_add(
    *,
    tenant: Tenant,
    route: str,
    method: str | None = None,
    status: int | None = None,
    latency_ms: int | None = None,
    times: int | None = None,
    match: dict[str, Any] | None = None,
    noop: bool = False,
) -> FaultRule:
    if status is None and latency_ms is None and not noop:
        raise ValueError("a fault needs a status, a latency, a no-op or some of them")
    if noop and status is not None:
        raise ValueError("a no-op answers what the handler answers: no status")
    if match is not None and not isinstance(match, dict):
        raise ValueError("match must be an object of field → value")
    return FaultRule.objects.create(
        tenant=tenant,
        route=_route_name(route),
        method=method.upper() if method else None,
        status=status,
        latency_ms=latency_ms,
        times=times,
        match=match or None,
        noop=noop,
    )


def fault_clear(*, tenant: Tenant) -> int:
    deleted, _ = FaultRule.objects.for_tenant(tenant).delete()
    return deleted


def fault_apply(
    *, tenant: Tenant, route: str, method: str, body: Callable[[], Any], url_kwargs: dict[str, Any]
) -> InjectedFault | None:
    """Sleep and/or return the fault the first live matching rule injects into this call."""
    if not settings.SST_FAULT_INJECTION:
        return None
    rules = (
        FaultRule.objects.for_tenant(tenant)
        .filter(route=route)
        .filter(Q(method__isnull=True) | Q(method=method))
        .filter(Q(times__isnull=True) | Q(times__gt=0))
        .order_by("id")
    )
    for rule in rules:
        if rule.match and not _matches(tenant, rule.match, body(), route, url_kwargs):
            continue
        if rule.times is not None and not _consume(tenant, rule):
            continue  # another process used the last one
        if rule.latency_ms:
            time.sleep(rule.latency_ms / 1000)
        if rule.noop:
            return InjectedFault(None, noop=True)
        return InjectedFault(rule.status) if rule.status else None
    return None


def _consume(tenant: Tenant, rule: FaultRule) -> bool:
    taken = FaultRule.objects.for_tenant(tenant).filter(pk=rule.pk, times__gt=0).update(times=F("times") - 1)
    return taken == 1


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _ids(values: list[Any]) -> list[int]:
    return [v for v in values if isinstance(v, int) and not isinstance(v, bool) and 0 < v < 2**63]


def _names_of(tenant: Tenant, field: str, values: list[Any]) -> list[str]:
    """Names of the objects a body field refers to (component keys, employee/company ids)."""
    if field in ("component", "components"):
        keys = [v for v in values if isinstance(v, str)]
        return list(ComponentType.objects.for_tenant(tenant).filter(key__in=keys).values_list("name", flat=True))
    if field == "finding":
        return [v for v in values if isinstance(v, str)]  # a finding's description is its name
    if field in ("employee", "responsible", "workers", "inspector"):
        return list(Employee.objects.for_tenant(tenant).filter(pk__in=_ids(values)).values_list("name", flat=True))
    if field == "company":
        return list(Company.objects.for_tenant(tenant).filter(pk__in=_ids(values)).values_list("name", flat=True))
    return []


def _from_url(tenant: Tenant, field: str, route: str, url_kwargs: dict[str, Any]) -> tuple[list[Any], list[str]]:
    """(raw values, names) a URL argument contributes to `field`."""
    if field == "permit" and "id" in url_kwargs and route.startswith(f"{APP_NAMESPACE}:permit"):
        numbers = WorkPermit.objects.for_tenant(tenant).filter(pk=url_kwargs["id"]).values_list("number", flat=True)
        return list(numbers), []
    if field == "inspection" and "id" in url_kwargs and route.startswith(f"{APP_NAMESPACE}:inspection"):
        numbers = Inspection.objects.for_tenant(tenant).filter(pk=url_kwargs["id"]).values_list("number", flat=True)
        return list(numbers), []
    if field == "finding" and "finding_id" in url_kwargs:
        rows = Finding.objects.for_tenant(tenant).filter(pk=url_kwargs["finding_id"])
        return [], list(rows.values_list("description", flat=True))
    if field == "component" and "component_id" in url_kwargs:
        rows = PermitComponent.objects.for_tenant(tenant).filter(pk=url_kwargs["component_id"])
        pairs = list(rows.values_list("component_type__key", "component_type__name"))
        return [key for key, _ in pairs], [name for _, name in pairs]
    if field == "employee" and "employee_id" in url_kwargs:
        return [url_kwargs["employee_id"]], _names_of(tenant, field, [url_kwargs["employee_id"]])
    return [], []


def _matches(tenant: Tenant, match: dict[str, Any], body: Any, route: str, url_kwargs: dict[str, Any]) -> bool:
    body = body if isinstance(body, dict) else {}
    for field, expected in match.items():
        wanted = fold(str(expected))
        raw, names = _from_url(tenant, field, route, url_kwargs)
        body_field = _BODY_FIELDS.get(field, field)
        if body_field in body:
            values = _as_list(body[body_field])
            raw, names = raw + values, names + _names_of(tenant, field, values)
        if not (any(fold(str(v)) == wanted for v in raw) or any(wanted in fold(n) for n in names)):
            return False
    return True
