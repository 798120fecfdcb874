"""Websocket authentication: `scope["tenant_context"]` from the session or a token.

A token may come in the `Authorization: Token …` header or, for browsers that cannot set headers
on a websocket, the `token` query parameter. Consumers decide in `connect()` what to do when it
is None.
"""

from __future__ import annotations

from urllib.parse import parse_qs

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async

from .selectors import context_for_session, context_for_token


def _token_from_scope(scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            parts = value.decode("latin-1").split()
            if len(parts) == 2 and parts[0].lower() == "token":
                return parts[1]
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    return query.get("token", [None])[0]


@database_sync_to_async
def _resolve(scope):
    raw = _token_from_scope(scope)
    if raw:
        return context_for_token(raw_key=raw)
    user = scope.get("user")
    session = scope.get("session")
    if user is None or session is None:
        return None
    return context_for_session(user=user, session=session)


class TenantContextMiddleware:
    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        # Channels' AuthMiddleware (outside us) has already resolved scope["user"] from the session.
        scope = dict(scope, tenant_context=await _resolve(scope))
        return await self.inner(scope, receive, send)


def TenantAuthMiddlewareStack(inner):  # noqa: N802 - mirrors channels' AuthMiddlewareStack
    return AuthMiddlewareStack(TenantContextMiddleware(inner))
