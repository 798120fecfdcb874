"""Overload is a 503 with Retry-After, never a 500.

When the database cannot hand this process a connection — the psycopg pool's wait ran out
(PoolTimeout), its queue is full (TooManyRequests), or PostgreSQL refused the connect (too many
clients, restarting) — the request fails on its first query, before it wrote anything: every
request, turn or socket message runs on one connection taken at its first query (CONN_MAX_AGE=0
under the pool) and in-process tool calls reuse it. That is the one failure where "try again
shortly" is both true and safe, so REST answers 503 with Retry-After in the API's error shape
(API.md: a stable `code` and a `detail`), and a websocket closes with 1013 (Try Again Later), after
which the client reconnects with `after=` and misses nothing. Every other error is still a 500.
"""

from __future__ import annotations

import sys
from types import TracebackType

import structlog
from django.conf import settings
from django.db import utils as db_utils
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import translation
from django.views import defaults
from prometheus_client import Counter

try:  # psycopg's pool is installed wherever PostgreSQL is; the embedded default (SQLite) has no pool
    from psycopg_pool import PoolTimeout, TooManyRequests
    _POOL_ERRORS: tuple[type[BaseException], ...] = (PoolTimeout, TooManyRequests)
except ImportError:  # pragma: no cover
    _POOL_ERRORS = ()

log = structlog.get_logger(__name__)

CLOSE_TRY_AGAIN_LATER = 1013  # RFC 6455 registry: "Try Again Later"
MESSAGES = {
    "pt-BR": "O serviço está sobrecarregado no momento; nada foi feito. Tente novamente em instantes.",
    "en": "The service is overloaded right now; nothing was done. Please try again shortly.",
}
OVERLOAD = Counter("sst_agent_overload_rejections",
                   "Requests and sockets refused because no database connection was available (503 / close 1013).",
                   ["transport", "cause"])


def _raised_while_connecting(tb: TracebackType | None) -> bool:
    # Django's backends open a connection in get_new_connection; an OperationalError raised inside it
    # is a connect that failed, not a statement that failed half-way.
    while tb is not None:
        if tb.tb_frame.f_code.co_name == "get_new_connection":
            return True
        tb = tb.tb_next
    return False


def connection_unavailable(exc: BaseException | None) -> str | None:
    """"pool" or "connect" when `exc` is the database refusing this process a connection, else None."""
    seen: set[int] = set()
    current = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if _POOL_ERRORS and isinstance(current, _POOL_ERRORS):
            return "pool"
        current = current.__cause__ or current.__context__
    if isinstance(exc, db_utils.OperationalError | db_utils.InterfaceError) and _raised_while_connecting(
            exc.__traceback__):
        return "connect"
    return None


def retry_after_seconds() -> int:
    return int(settings.OVERLOAD_RETRY_AFTER_SECONDS)


def _language(request: HttpRequest) -> str:
    code = getattr(request, "LANGUAGE_CODE", None) or translation.get_language_from_request(request)
    return "en" if str(code).lower().startswith("en") else "pt-BR"


def overloaded_response(request: HttpRequest, cause: str) -> JsonResponse:
    OVERLOAD.labels(transport="http", cause=cause).inc()
    log.warning("overloaded", transport="http", cause=cause, path=request.path)
    wait = retry_after_seconds()
    response = JsonResponse({"code": "overloaded", "detail": MESSAGES[_language(request)], "retry_after": wait},
                            status=503, json_dumps_params={"ensure_ascii": False})
    response["Retry-After"] = str(wait)
    return response


class OverloadMiddleware:
    """A view that could not get a connection answers 503 here, as a normal response: Django's
    error path would log a full traceback per refused request, at the worst moment to flood logs."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        cause = connection_unavailable(exception)
        return overloaded_response(request, cause) if cause else None


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500, the backstop for a middleware that could not get a connection; Django calls it
    inside the `except` that caught the request's exception."""
    cause = connection_unavailable(sys.exc_info()[1])
    if cause is None:
        return defaults.server_error(request)
    return overloaded_response(request, cause)


class WebsocketOverloadGuard:
    """ASGI middleware: a socket whose handler could not get a database connection is closed with
    1013 instead of the server's handshake 500 / close 1011. Before the handshake it is accepted
    first, so the client sees the close code rather than an opaque HTTP error."""

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        if scope["type"] != "websocket":
            return await self.inner(scope, receive, send)
        state = {"accepted": False, "closed": False}

        async def tracked(message):
            if message["type"] == "websocket.accept":
                state["accepted"] = True
            elif message["type"] == "websocket.close":
                state["closed"] = True
            await send(message)

        try:
            return await self.inner(scope, receive, tracked)
        except Exception as exc:
            cause = connection_unavailable(exc)
            if cause is None or state["closed"]:
                raise
            OVERLOAD.labels(transport="websocket", cause=cause).inc()
            log.warning("overloaded", transport="websocket", cause=cause, path=scope.get("path"))
            if not state["accepted"]:
                await send({"type": "websocket.accept"})
            await send({"type": "websocket.close", "code": CLOSE_TRY_AGAIN_LATER, "reason": "overloaded"})
            return None
