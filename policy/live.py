"""The live state a policy decision needs, read in one round trip every time.

Invariant 3 asks for the live checks before every step; they used to cost five round trips
(registry version, membership, guardian user grants, guardian group grants, kill switches). They
are all reads, so on PostgreSQL they are one call of `policy_live_state(tenant, user, capability
ids)` (a PL/pgSQL function, policy migration 0004, whose query plan PostgreSQL keeps per session)
returning one JSON object:

- `registry`: the registry version (the registry snapshot is reused only when it was built for
  exactly this version, see `registry_adapter.snapshot_at`);
- `role` and `active`: the actor's membership role in the tenant and `is_active` (read from the
  row, so a deactivation is seen even by a caller holding an older user instance);
- `capabilities`: per asked-for capability id, its primary key and guardian's `use_capability`
  state: restricted (granted to anyone, user or group) and granted (to the actor, directly or
  through one of its groups);
- `switches`: the raised kill switches that may cover the tenant (global ones included).

Nothing here is cached: a revocation, suspension, grant or kill switch committed before the
statement starts is seen by it. The function is STABLE, so it reads with its calling statement's
snapshot: everything, receipt included, is one consistent view of the database, which the five
separate queries were not.

`revalidate` goes one step further: given the receipt id, the same call returns that receipt of
that tenant (`receipt_with_live`; the tenant pin is in the function's WHERE clause, as the
tenant-scoped manager would write it), so the receipt re-read and the live checks are one round
trip. Not an ORM annotation on the receipt's SELECT: building and compiling that queryset costs
more than the whole round trip.

On SQLite (the embedded default) `live_read_orm` reads the same state with the ORM; the tests hold
the function to it, state by state. A hand-written statement because the ORM cannot express a
row of unrelated scalar subqueries without a driving table; a function rather than statement text
because planning that statement costs several times executing it.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db import connection
from django.db.models import Exists, OuterRef, Q
from guardian.models import GroupObjectPermission, UserObjectPermission

from registry.models import Capability
from registry.selectors import registry_version
from tenancy.models import Membership
from tenancy.scoping import UnscopedQueryError

from .models import KillSwitch, PolicyReceipt


@dataclass(frozen=True)
class Switch:
    id: int
    scope: str
    tenant_id: str | None
    target: str


@dataclass(frozen=True)
class Grant:
    """A capability's primary key and its `use_capability` state for the actor."""

    pk: int
    restricted: bool
    granted: bool


@dataclass(frozen=True)
class LiveRead:
    registry_version: int | None
    role: str | None
    user_active: bool
    capabilities: Mapping[str, Grant]
    switches: tuple[Switch, ...]
    # (tenant id, user id, capability ids) it was read for, when read ahead by another statement
    # (`live_state_sql`): `gather` uses it only for exactly that tenant, actor and capabilities.
    asked: tuple[str, int | None, frozenset[str]] | None = None


# The function policy migration 0004 installs; explicit casts so the client-side bound values pick it.
_CALL_SQL = "SELECT policy_live_state(%s::uuid, %s::bigint, %s::text[], %s::uuid)"


@lru_cache(maxsize=1)
def _call_sql() -> str:
    """The call, naming in a comment the tables the function reads: `tenancy.db.coalesced_writes`
    sends queued writes to any of them before the call (it reads statements, not function bodies)."""
    from django.apps import apps

    user = get_user_model()
    models = [apps.get_model(label) for label in (
        "auth.Permission", "contenttypes.ContentType", "registry.RegistryState", "tenancy.Membership",
        "guardian.UserObjectPermission", "guardian.GroupObjectPermission", "registry.Capability",
        "policy.KillSwitch", "policy.PolicyReceipt")]
    tables = [m._meta.db_table for m in models] + [user._meta.db_table,
                                                    user._meta.get_field("groups").remote_field.through._meta.db_table]
    return f"{_CALL_SQL} /* reads {', '.join(tables)} */"


def _uses_function() -> bool:
    return connection.vendor == "postgresql"


def _params(actor: Any, tenant: Any, keys: Iterable[str], receipt_pk: uuid.UUID | None = None) -> list[Any]:
    authenticated = actor is not None and getattr(actor, "is_authenticated", False)
    user_id = getattr(actor, "pk", None) if authenticated else None
    tenant_id = getattr(tenant, "pk", tenant) if tenant is not None else None
    return [str(tenant_id) if tenant_id is not None else None, user_id, sorted(set(keys)),
            str(receipt_pk) if receipt_pk is not None else None]


def _call(params: list[Any]) -> dict[str, Any]:
    with connection.cursor() as cursor:
        cursor.execute(_call_sql(), params)
        return json.loads(cursor.fetchone()[0])


def _receipt(row: Mapping[str, Any] | None) -> PolicyReceipt | None:
    """The receipt row as the function returned it (`row_to_json`), as a model instance loaded from the database."""
    if row is None:
        return None
    fields = PolicyReceipt._meta.concrete_fields
    return PolicyReceipt.from_db(connection.alias, [f.attname for f in fields],
                                 [f.to_python(row[f.column]) for f in fields])


def _parse(data: Mapping[str, Any], asked: tuple[str, int | None, frozenset[str]] | None = None) -> LiveRead:
    return LiveRead(
        asked=asked,
        registry_version=data["registry"],
        role=data["role"],
        user_active=data["active"] is True,
        capabilities={key: Grant(pk=pk, restricted=restricted is True, granted=granted is True)
                      for key, pk, restricted, granted in data["capabilities"]},
        switches=tuple(Switch(id=pk, scope=scope, tenant_id=tid, target=target)
                       for pk, scope, tid, target in data["switches"]),
    )


def live_state_sql(*, tenant_sql: str, user_sql: str, keys_sql: str) -> str:
    """The call as an expression for a caller's own statement (conversations.locking reads it with the
    conversation's lock when the turn will confirm): `live_state_parse` reads its value back."""
    return f"policy_live_state({tenant_sql}, {user_sql}, {keys_sql}, NULL)"


def live_state_parse(text: str | None, *, tenant_id: Any, user_id: int | None, keys: Iterable[str]) -> LiveRead | None:
    return _parse(json.loads(text), (str(tenant_id), user_id, frozenset(keys))) if text else None


def live_read_for(live: LiveRead | None, *, actor: Any, tenant: Any, keys: Iterable[str]) -> LiveRead | None:
    """`live` if it was read ahead for exactly this tenant, actor and capabilities, else None."""
    if live is None or live.asked is None:
        return live
    tenant_id, user_id, *_ = _params(actor, tenant, ())
    return live if live.asked == (str(tenant_id), user_id, frozenset(keys)) else None


def live_read(*, actor: Any, tenant: Any, keys: Iterable[str]) -> LiveRead:
    """The live state for `actor` in `tenant` and the capabilities `keys`: one round trip on PostgreSQL."""
    if not _uses_function():
        return live_read_orm(actor=actor, tenant=tenant, keys=keys)
    return _parse(_call(_params(actor, tenant, keys)))


def receipt_with_live(*, tenant: Any, receipt_pk: uuid.UUID, actor: Any,
                      keys: Iterable[str]) -> tuple[PolicyReceipt | None, LiveRead | None]:
    """This tenant's receipt `receipt_pk` and the live state (None, None if no receipt): one round trip."""
    if not _uses_function():
        receipt = PolicyReceipt.objects.for_tenant(tenant).filter(pk=receipt_pk).first()
        return (receipt, live_read_orm(actor=actor, tenant=tenant, keys=keys)) if receipt else (None, None)
    if tenant is None:
        raise UnscopedQueryError("a receipt is read for a tenant")
    data = _call(_params(actor, tenant, keys, receipt_pk))
    receipt = _receipt(data["receipt"])
    return (receipt, _parse(data)) if receipt is not None else (None, None)


# --- the same reads through the ORM: SQLite (the embedded default), and the yardstick the tests hold
# the function to (test_live_state) -----------------------------------------------------------------


def live_read_orm(*, actor: Any, tenant: Any, keys: Iterable[str]) -> LiveRead:
    """What `policy_live_state` returns, read with six ORM queries (no single-snapshot guarantee)."""
    tenant_id, user_id, wanted, _ = _params(actor, tenant, keys)
    role = (Membership.objects.filter(user_id=user_id, tenant_id=tenant_id).values_list("role", flat=True).first()
            if user_id is not None and tenant_id is not None else None)
    active = get_user_model().objects.filter(pk=user_id).values_list("is_active", flat=True).first()
    pks = dict(Capability.objects.filter(key__in=wanted).values_list("key", "pk"))
    restricted, granted = _grants_orm(user_id, pks)
    switches = (KillSwitch.objects.filter(lifted_at__isnull=True)
                .filter(Q(tenant__isnull=True) | Q(tenant_id=tenant_id)).order_by("pk")
                .values_list("pk", "scope", "tenant_id", "target"))
    return LiveRead(
        registry_version=registry_version(),
        role=role,
        user_active=active is True,
        capabilities={key: Grant(pk=pk, restricted=key in restricted, granted=key in granted)
                      for key, pk in pks.items()},
        switches=tuple(Switch(id=pk, scope=scope, tenant_id=str(tid) if tid else None, target=target)
                       for pk, scope, tid, target in switches),
    )


def _grants_orm(user_id: int | None, pks: Mapping[str, int]) -> tuple[set[str], set[str]]:
    """(capability ids granted to anyone, ids granted to `user_id` directly or through a group)."""
    permission = Permission.objects.filter(content_type__app_label=Capability._meta.app_label,
                                           content_type__model=Capability._meta.model_name,
                                           codename="use_capability").first()
    if permission is None or not pks:
        return set(), set()
    by_pk = {str(pk): key for key, pk in pks.items()}
    common = {"content_type_id": permission.content_type_id, "permission": permission, "object_pk__in": list(by_pk)}
    groups = get_user_model().groups.through.objects.filter(user_id=user_id, group_id=OuterRef("group_id"))
    rows = [(pk, owner == user_id) for pk, owner in
            UserObjectPermission.objects.filter(**common).values_list("object_pk", "user_id")]
    rows += (GroupObjectPermission.objects.filter(**common).annotate(mine=Exists(groups))
             .values_list("object_pk", "mine"))
    return {by_pk[pk] for pk, _ in rows}, {by_pk[pk] for pk, mine in rows if mine}
