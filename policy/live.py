"""The live state a policy decision needs, read in one SQL statement every time.

Invariant 3 asks for the live checks before every step; they used to cost five round trips
(registry version, membership, guardian user grants, guardian group grants, kill switches). They
are all reads, so they are one statement here, a scalar subquery returning one JSON object:

- `registry`: the registry version (the registry snapshot is reused only when it was built for
  exactly this version, see `registry_adapter.snapshot_at`);
- `role` and `active`: the actor's membership role in the tenant and `is_active`;
- `capabilities`: per asked-for capability id, its primary key and guardian's `use_capability`
  state: restricted (granted to anyone, user or group) and granted (to the actor, directly or
  through one of its groups);
- `switches`: the raised kill switches that may cover the tenant (global ones included).

Nothing here is cached: a revocation, suspension, grant or kill switch committed before the
statement starts is seen by it. Being one statement, everything it reads is one consistent
snapshot of the database (READ COMMITTED takes a snapshot per statement), which the five
separate queries were not.

`revalidate` goes one step further: the same subquery rides on the receipt's own SELECT as an
annotation (`receipt_with_live`), so the receipt re-read and the live checks are one round trip,
through the tenant-scoped manager.

Written as SQL by hand because the ORM cannot express a row of unrelated scalar subqueries without
a driving table, nor guardian's "restricted for anyone / granted to me" per object in one query.
Table and column names come from the models' `_meta`, values are bound parameters.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.models import TextField
from django.db.models.expressions import RawSQL
from guardian.models import GroupObjectPermission, UserObjectPermission

from registry.models import Capability, RegistryState
from tenancy.models import Membership

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


def _table(model: Any) -> str:
    return connection.ops.quote_name(model._meta.db_table)


@cache
def _sql() -> str:
    """The scalar subquery; three parameters: tenant id, user id, capability ids."""
    user_model = get_user_model()
    user_groups = user_model.groups.through
    capability = Capability._meta
    # `perm` is guardian's `use_capability` permission on registry.Capability, found by name in the
    # statement (never a per-process cache of ids, which a test flush or a re-migration would stale).
    grant_filter = "g.permission_id = perm.id AND g.content_type_id = perm.content_type_id AND g.object_pk = c.id::text"
    return f"""(
WITH a AS (SELECT %s::uuid AS tenant_id, %s::bigint AS user_id, %s::text[] AS keys),
perm AS (
    SELECT p.id, p.content_type_id FROM {_table(Permission)} p
    JOIN {_table(ContentType)} ct ON ct.id = p.content_type_id
    WHERE ct.app_label = '{capability.app_label}' AND ct.model = '{capability.model_name}'
      AND p.codename = 'use_capability'
)
SELECT json_build_object(
    'registry', (SELECT s.version FROM {_table(RegistryState)} s WHERE s.id = 1),
    'role', (SELECT m.role FROM {_table(Membership)} m WHERE m.user_id = a.user_id AND m.tenant_id = a.tenant_id),
    'active', (SELECT u.is_active FROM {_table(user_model)} u WHERE u.id = a.user_id),
    'capabilities', (
        SELECT coalesce(json_agg(json_build_array(
            c.key, c.id,
            EXISTS (SELECT 1 FROM {_table(UserObjectPermission)} g, perm WHERE {grant_filter})
            OR EXISTS (SELECT 1 FROM {_table(GroupObjectPermission)} g, perm WHERE {grant_filter}),
            EXISTS (SELECT 1 FROM {_table(UserObjectPermission)} g, perm WHERE {grant_filter}
                    AND g.user_id = a.user_id)
            OR EXISTS (SELECT 1 FROM {_table(GroupObjectPermission)} g, perm WHERE {grant_filter}
                       AND g.group_id IN (SELECT ug.group_id FROM {_table(user_groups)} ug
                                          WHERE ug.user_id = a.user_id))
        )), '[]'::json)
        FROM {_table(Capability)} c WHERE c.key = ANY(a.keys)
    ),
    'switches', (
        SELECT coalesce(json_agg(json_build_array(k.id, k.scope, k.tenant_id, k.target)), '[]'::json)
        FROM {_table(KillSwitch)} k
        WHERE k.lifted_at IS NULL AND (k.tenant_id IS NULL OR k.tenant_id = a.tenant_id)
    )
)::text FROM a
)"""


def _params(actor: Any, tenant: Any, keys: Iterable[str]) -> list[Any]:
    authenticated = actor is not None and getattr(actor, "is_authenticated", False)
    user_id = getattr(actor, "pk", None) if authenticated else None
    tenant_id = getattr(tenant, "pk", tenant) if tenant is not None else None
    return [str(tenant_id) if tenant_id is not None else None, user_id, sorted(set(keys))]


def _parse(text: str) -> LiveRead:
    data = json.loads(text)
    return LiveRead(
        registry_version=data["registry"],
        role=data["role"],
        user_active=data["active"] is True,
        capabilities={key: Grant(pk=pk, restricted=restricted is True, granted=granted is True)
                      for key, pk, restricted, granted in data["capabilities"]},
        switches=tuple(Switch(id=pk, scope=scope, tenant_id=tid, target=target)
                       for pk, scope, tid, target in data["switches"]),
    )


def live_read(*, actor: Any, tenant: Any, keys: Iterable[str]) -> LiveRead:
    """The live state for `actor` in `tenant` and the capabilities `keys`: one round trip."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {_sql()}", _params(actor, tenant, keys))
        return _parse(cursor.fetchone()[0])


def receipt_with_live(*, tenant: Any, receipt_pk: uuid.UUID, actor: Any,
                      keys: Iterable[str]) -> tuple[PolicyReceipt | None, LiveRead | None]:
    """This tenant's receipt `receipt_pk` and the live state, in one round trip (None, None if no receipt)."""
    receipt = (PolicyReceipt.objects.for_tenant(tenant).filter(pk=receipt_pk)
               .annotate(live_state=RawSQL(_sql(), _params(actor, tenant, keys), output_field=TextField()))
               .first())
    if receipt is None:
        return None, None
    return receipt, _parse(receipt.live_state)
