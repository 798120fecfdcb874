"""Websocket authentication: `scope["tenant_context"]` from the session cookie, a token header or a ticket.

- The session cookie (the chat page), or an `Authorization: Token …` header (server-side clients).
- `?ticket=…`: a single-use ticket of at most 60 s from `POST /api/tenancy/ws-ticket`
  (tenancy.tickets), for clients that can send neither. An unknown, used or expired ticket is
  refused before the handshake with `CLOSE_UNAUTHENTICATED` (4401): ask for a fresh one.
- `?token=…` is refused with 4401 whatever else the request carries: a long-lived token in a URL
  ends up in proxy and access logs.

Consumers decide in `connect()` what to do when the context is None, and call
`context_still_valid` before acting on a message.
"""

from __future__ import annotations

from urllib.parse import parse_qs

import structlog
from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async

from .context import TenantContext
from .models import token_digest
from .selectors import context_for_session, context_for_token_digest, membership_get
from .tickets import ws_ticket_redeem

log = structlog.get_logger(__name__)

CLOSE_UNAUTHENTICATED = 4401
TOKEN_DIGEST = "tenant_token_digest"  # scope key: the token the socket acts under, if any


def _token_from_headers(scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            parts = value.decode("latin-1").split()
            if len(parts) == 2 and parts[0].lower() == "token":
                return parts[1]
    return None


def _query(scope) -> dict[str, list[str]]:
    return parse_qs(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)


@database_sync_to_async
def _resolve(scope) -> tuple[TenantContext | None, str | None] | None:
    """(context, token digest), or None when the credentials offered must be refused outright."""
    ticket = _query(scope).get("ticket", [None])[0]
    if ticket is not None:
        redeemed = ws_ticket_redeem(raw=ticket)
        return None if redeemed is None else (redeemed.context, redeemed.token_digest)
    raw = _token_from_headers(scope)
    if raw:
        digest = token_digest(raw)
        return context_for_token_digest(digest=digest), digest
    user = scope.get("user")
    session = scope.get("session")
    if user is None or session is None:
        return None, None
    return context_for_session(user=user, session=session), None


def context_still_valid(*, scope, context: TenantContext) -> bool:
    """The connect-time authentication again (sync): a revoked token, a removed membership or user ends it."""
    digest = scope.get(TOKEN_DIGEST)
    if digest is not None:
        fresh = context_for_token_digest(digest=digest)
        return fresh is not None and fresh.user.pk == context.user.pk and fresh.tenant.pk == context.tenant.pk
    context.user.refresh_from_db(fields=["is_active"])
    return context.user.is_active and membership_get(user=context.user, tenant_id=context.tenant.pk) is not None


async def _refuse(receive, send, code: int) -> None:
    message = await receive()
    if message["type"] == "websocket.connect":
        await send({"type": "websocket.close", "code": code})


class TenantContextMiddleware:
    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and "token" in _query(scope):
            log.warning("ws_token_in_url_refused", path=scope.get("path"))
            return await _refuse(receive, send, CLOSE_UNAUTHENTICATED)
        # Channels' AuthMiddleware (outside us) has already resolved scope["user"] from the session.
        resolved = await _resolve(scope)
        if resolved is None:
            log.info("ws_ticket_refused", path=scope.get("path"))
            return await _refuse(receive, send, CLOSE_UNAUTHENTICATED)
        context, digest = resolved
        scope = dict(scope, tenant_context=context, **{TOKEN_DIGEST: digest})
        return await self.inner(scope, receive, send)


def TenantAuthMiddlewareStack(inner):  # noqa: N802 - mirrors channels' AuthMiddlewareStack
    return AuthMiddlewareStack(TenantContextMiddleware(inner))
