"""A tenant's business-data epoch: tokens that change whenever the application's data of that tenant
changes, so a cache of what was read from it can tell, with one cache read, that it is stale.

Tokens are kept per *topic* as well as per tenant, because under load a tenant's data changes all the
time while most of what a turn looks names up in does not: a permit's validity changing every few
milliseconds must not make every turn re-read the tenant's catalog of component types. A topic is a
part of the application's REST API, named after its paths (`topics_of`): the collection a path
starts with ("component-types", "permits"), or the one entity a path is about with everything under
it ("permits/7003" for "permits/7003/components"). A reader depends on the tenant's token and on the
topic of what it read; the application moves the topics a change touches — or the tenant's token
when a change may show in any answer (a company renamed shows in every permit).

A change of plain values only — a permit's validity: no name, no state, no reference to anything — moves
"<collection>~plain" instead of "<collection>" (the application says which of its writes are such). A reader
that only looks at its items' names, states and references (`names_only`: the agent's lists to find what a
message names) depends on "<collection>" alone and stays current while validities change under load; any other
reader depends on both.

Tokens live in Django's cache (Redis in production: every process sees one change; per process in
the embedded default, which serves from one process). Each is a new random value on each change, not
a counter, and a missing one (never set, or evicted) is first set to a new random value: an entry
stored under some token can therefore never match again once its key was lost — eviction can only
cause a miss, never a stale hit.

Who moves them: the application when its data changes (the sample `sst` app on the commit of any
write and on saving or deleting any of its rows: sst/changes.py), and tenancy when a membership
changes (what the business API lets a user list changes with the role). An application that cannot
tell us leaves the reader's own lifetime (AGENT_LIST_CACHE_SECONDS) as the bound on how long a
change goes unseen.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from typing import Any

from django.core.cache import cache
from django.db import transaction

_PREFIX = "tenancy:dataepoch:"
_WHOLE = "*"  # the tenant's own token: every reader depends on it
# Long enough to outlive every entry stored under it; an expired key only causes misses.
_KEEP_SECONDS = 24 * 3600


# Sub-collections an application declares apart from their entity (register_parts): the rows listed at
# "<collection>/<id>/<part>" change only with those rows, so that list depends on its own topic and a
# change of the entity's own fields (a permit's validity, every few milliseconds under load) leaves it kept.
_PARTS: dict[str, frozenset[str]] = {}


def register_parts(collection: str, parts: Iterable[str]) -> None:
    """Declare `parts` of `collection` ("permits": "components", "workers") as lists whose answers change
    only with their own rows. The application then moves "<collection>/<id>/<part>" with every such change
    (and all of them when the entity goes); an undeclared sub-path stays under its entity's topic."""
    _PARTS[collection] = frozenset(parts)


def parts_of(collection: str) -> frozenset[str]:
    return _PARTS.get(collection, frozenset())


PLAIN = "~plain"  # the suffix of a collection's topic for changes of plain values only


def topics_of(path: str, *, entity_at_second: bool, names_only: bool = False) -> tuple[str, ...]:
    """The topic of an API path relative to the API's root: "permits/7003/checks" → ("permits/7003",)
    when its second segment is an entity id (`entity_at_second`: the caller knows its path template), or
    ("permits/7003/components",) when "components" is a declared part of "permits";
    "employees/count" or "component-types" → the collection, and its plain values' topic unless `names_only`."""
    parts = [p for p in path.strip("/").split("/") if p]
    if not parts:
        return ()
    if entity_at_second and len(parts) > 2 and parts[2] in parts_of(parts[0]):
        return ("/".join(parts[:3]),)
    if entity_at_second and len(parts) > 1:
        return (f"{parts[0]}/{parts[1]}",)
    return (parts[0],) if names_only else (parts[0], parts[0] + PLAIN)


def _key(tenant_id: Any, topic: str) -> str:
    return f"{_PREFIX}{tenant_id}:{topic}"


def data_epoch(tenant_id: Any, topics: Sequence[str] = ()) -> str:
    """The token an entry read now about `topics` of the tenant is stored under: one cache round trip
    (two the first time a topic is seen)."""
    keys = [_key(tenant_id, _WHOLE), *(_key(tenant_id, t) for t in topics)]
    found = cache.get_many(keys)
    missing = [k for k in keys if found.get(k) is None]
    if missing:
        for key in missing:
            cache.add(key, secrets.token_hex(8), _KEEP_SECONDS)  # whoever adds first wins; all read it
        found.update(cache.get_many(missing))
    return "|".join(str(found.get(k)) for k in keys)


def data_changed(tenant_id: Any, topics: Iterable[str] | None = None) -> None:
    """Move the tokens of `topics` (None: the tenant's own, so every entry of the tenant) now and again
    when the current transaction commits.

    Now, so that this connection's own next read misses (and a transaction that never commits costs a
    miss, nothing more); again after the commit, because a reader that saw the first move before the
    change was visible to it may have stored the old data under that token."""
    if tenant_id is None:
        return
    keys = [_key(tenant_id, _WHOLE)] if topics is None else [_key(tenant_id, t) for t in set(topics)]
    if not keys:
        return

    def move() -> None:
        cache.set_many({key: secrets.token_hex(8) for key in keys}, _KEEP_SECONDS)

    move()
    transaction.on_commit(move)
