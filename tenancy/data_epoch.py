"""A tenant's business-data epoch: a token that changes whenever the application's data of that
tenant changes, so a cache of what was read from it can tell, with one cache read, that it is stale.

The token lives in Django's cache (Redis in production: every process sees one change; per process
in the embedded default, which serves from one process). It is a new random value on each change,
not a counter: a lost or evicted key reads as None, which differs from any token an entry was
stored under, so eviction can only cause a miss, never a stale hit.

Who moves it: the application when its data changes (the sample `sst` app on the commit of any
write and on saving or deleting any of its rows), and the agent's executions after a write step.
An application that cannot tell us leaves the reader's own lifetime (AGENT_LIST_CACHE_SECONDS) as
the bound on how long a change goes unseen.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.core.cache import cache
from django.db import transaction

_PREFIX = "tenancy:dataepoch:"
# Long enough to outlive every entry stored under it; an expired key only causes misses.
_KEEP_SECONDS = 24 * 3600


def data_epoch(tenant_id: Any) -> str | None:
    """The tenant's current token (None before the first change or after an eviction)."""
    return cache.get(f"{_PREFIX}{tenant_id}")


def data_changed(tenant_id: Any) -> None:
    """Move the tenant's token now and again when the current transaction commits.

    Now, so that this connection's own next read misses (and a transaction that never commits
    costs a miss, nothing more); again after the commit, because a reader that saw the first move
    before the change was visible to it may have stored the old data under that token."""
    if tenant_id is None:
        return
    key = f"{_PREFIX}{tenant_id}"
    cache.set(key, secrets.token_hex(8), _KEEP_SECONDS)
    transaction.on_commit(lambda: cache.set(key, secrets.token_hex(8), _KEEP_SECONDS))
