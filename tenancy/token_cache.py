"""The token → TenantContext lookup, kept in the shared cache (issue #18, point 2).

Every REST request and every tool call a turn makes (the Tool Runtime calls the business API with
the user's token) authenticates a token: two statements (the token with its user and tenant, then
the membership), about seven times per turn. The context is kept in Django's cache (Redis in
production, so every process sees one invalidation; per process in the embedded default).

An entry is dropped whenever what it was built from changes: the token saved or deleted, the
membership saved or deleted (a role change, a removal), the user or the tenant saved (deactivated,
renamed). `Membership.objects…update()` drops the affected entries too (tenancy.models). A bulk
`update()` on users or tokens sends no signal: the entry's lifetime (TOKEN_CONTEXT_CACHE_SECONDS,
30 s) bounds how long such a change goes unseen — and authority over effects never rests on it:
policy reads membership, role and is_active live at planning and again before every step.

An expiring token is kept no longer than its expiry.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

# Below every other tenancy module (models call it): it imports none of them, so contexts are `Any` here.
_PREFIX = "tenancy:tokenctx:"


def _key(digest: str) -> str:
    return _PREFIX + digest


def cached_context(digest: str) -> Any:
    """The cached context of a token still valid now, or None (not cached, or expired since)."""
    entry = cache.get(_key(digest))
    if entry is None:
        return None
    context, expires_at = entry
    if expires_at is not None and expires_at <= timezone.now():
        cache.delete(_key(digest))
        return None
    return context


def context_remember(digest: str, context: Any, expires_at: datetime | None) -> None:
    seconds = float(settings.TOKEN_CONTEXT_CACHE_SECONDS)
    if expires_at is not None:
        seconds = min(seconds, (expires_at - timezone.now()).total_seconds())
    if seconds > 0:
        cache.set(_key(digest), (context, expires_at), timeout=seconds)


def forget_digests(digests: Iterable[str]) -> None:
    keys = [_key(d) for d in digests]
    if keys:
        cache.delete_many(keys)
