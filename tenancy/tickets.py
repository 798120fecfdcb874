"""Websocket tickets: how a client that cannot send a cookie or a header opens a socket without
putting a long-lived token in the URL (where proxies and access logs keep it).

`POST /api/tenancy/ws-ticket` (authenticated like any REST call) answers `{ticket, expires_in}`;
the client opens `ws/…/?ticket=<ticket>` within `TICKET_TTL_SECONDS`. A ticket is single-use,
bound to the user and tenant that asked for it (and to the token, when a token asked: revoking
the token ends sockets opened with its tickets too), and stored only as a digest in the shared
cache (Redis), so every web process can redeem it and none can read it back.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from django.core.cache import cache

from . import clock
from .context import TenantContext
from .selectors import context_for_token_digest, context_for_user

TICKET_TTL_SECONDS = 60
_KEY = "tenancy:ws-ticket:{digest}"


@dataclass(frozen=True)
class Redeemed:
    context: TenantContext
    token_digest: str | None  # the token that asked for the ticket, re-checked before every message


def _key(raw: str) -> str:
    return _KEY.format(digest=hashlib.sha256(raw.encode("utf-8", "replace")).hexdigest())


def ws_ticket_issue(*, context: TenantContext, token_digest: str | None = None) -> str:
    """A fresh single-use ticket for (user, tenant); returns the raw value, which is not stored."""
    raw = secrets.token_urlsafe(32)
    expires_at = clock.now().timestamp() + TICKET_TTL_SECONDS
    cache.set(_key(raw), {"user": context.user.pk, "tenant": str(context.tenant.pk), "token": token_digest,
                          "expires_at": expires_at}, timeout=TICKET_TTL_SECONDS)
    return raw


def ws_ticket_redeem(*, raw: str) -> Redeemed | None:
    """The context a ticket grants, once: unknown, used, expired or no-longer-valid tickets give None."""
    key = _key(raw)
    held = cache.get(key)
    # Single use under concurrency: of two redeemers that both read it, only the one whose delete
    # removed the key proceeds.
    if held is None or not cache.delete(key):
        return None
    if held["expires_at"] <= clock.now().timestamp():  # the cache TTL, and the server's (test) clock
        return None
    if held["token"] is not None:
        context = context_for_token_digest(digest=held["token"])
        if context is None or context.user.pk != held["user"] or str(context.tenant.pk) != held["tenant"]:
            return None
    else:
        context = context_for_user(user_id=held["user"], tenant_id=held["tenant"])
    return None if context is None else Redeemed(context=context, token_digest=held["token"])
