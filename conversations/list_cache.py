"""Lists a turn reads to find what a message names — a tenant's catalogs (of organisations, people, types)
and an entity's children — kept across turns in this process (issue #18: served speed).

Before this, every turn re-read three to five whole lists through the business API just to find
which words of the message are names (data_spans, named_by_attribute): most of a fast turn's time.
Those lists change seldom, and the application says when they do (tenancy.data_epoch), so an entry
is used only while the data epoch of what it lists (its API path's topic: a catalog, or the one
entity whose children it lists) is the one it was read under, and for at most
AGENT_LIST_CACHE_SECONDS (the bound for an application that does not say; 0 turns this off). A
write to one entity therefore leaves the catalogs and every other entity's children kept.

What is kept: successful answers of read capabilities that list, as JSON text (each hit decodes its
own copy: no turn can change what another reads), keyed by tenant, user (the business API answers
each user with what that user may see), registry version and input; and a search's few found entities
(conversations.reads.Reader.found), checked against the epoch of each entity it found as well — a
search gives a turn its target and that target's revision, so it is used only while none of them
changed. Those are kept in Django's cache (`searches`: Redis when served), not in this process: a user's
next turn is often served by another worker process, and the entry counts only from a second read.
Reads of one entity by id and counts are not kept. Nothing kept here authorizes anything:
policy decides, and every step re-reads its target.

Written by hand: a dict with an expiry and a bound is all it needs, and no kept library checks an
entry against an external epoch.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

from django.conf import settings
from django.core.cache import cache

# Enough for every list of a few hundred (tenant, user) pairs; the oldest entry goes first.
MAX_ENTRIES = 4096


class ListCache:
    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self._entries: OrderedDict[Hashable, tuple[str | None, float, Any]] = OrderedDict()
        self._max = max_entries
        self._lock = threading.Lock()

    def get(self, key: Hashable, epoch: str | None) -> Any | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            stored_epoch, expires, value = entry
            if stored_epoch != epoch or expires <= time.monotonic():
                del self._entries[key]
                return None
            return value

    def put(self, key: Hashable, epoch: str | None, value: Any, seconds: float) -> None:
        with self._lock:
            self._entries[key] = (epoch, time.monotonic() + seconds, value)
            self._entries.move_to_end(key)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


lists = ListCache()


class SharedEntries:
    """Entries in Django's cache, seen by every process: (epoch, value) as JSON under a hashed key."""

    _PREFIX = "agent:found:"

    def _key(self, key: Hashable) -> str:
        return self._PREFIX + hashlib.sha256(repr(key).encode()).hexdigest()[:40]

    def peek(self, key: Hashable) -> tuple[str | None, Any] | None:
        """(epoch, value) of a live entry whatever its epoch: what a reader must check it against may
        depend on the value (the entities a search found)."""
        raw = cache.get(self._key(key))
        return None if raw is None else tuple(json.loads(raw))

    def put(self, key: Hashable, epoch: str | None, value: Any, seconds: float) -> None:
        cache.set(self._key(key), json.dumps([epoch, value]), timeout=seconds)


searches = SharedEntries()


def keep_seconds() -> int:
    """How long an entry may be used (AGENT_LIST_CACHE_SECONDS); 0: nothing is kept."""
    return settings.AGENT_LIST_CACHE_SECONDS
