"""Request context for logs, and the protected Prometheus endpoint.

The middleware binds requestId/traceId (honouring an incoming `traceparent` or `X-Request-ID`)
for the whole request, and adds the tenant once authentication has run; it echoes the ids back in
response headers so a user's report can be matched to the server's lines.
"""

from __future__ import annotations

import hmac
import re
import uuid

import structlog
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest, multiprocess
from prometheus_client import REGISTRY as DEFAULT_REGISTRY

_TRACEPARENT = re.compile(r"^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$")
_SAFE_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")


def _trace_id(request: HttpRequest) -> str:
    match = _TRACEPARENT.match(request.headers.get("traceparent", ""))
    return match.group(1) if match else uuid.uuid4().hex


class RequestContextMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        incoming = request.headers.get("X-Request-ID", "")
        request_id = incoming if _SAFE_ID.match(incoming) else uuid.uuid4().hex
        # In-process tool calls re-enter this middleware inside a turn or a step: put back what the
        # caller had bound on the way out instead of wiping its ids.
        outer = structlog.contextvars.get_contextvars()
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(requestId=request_id, traceId=_trace_id(request),
                                               agentVersion=settings.AGENT_VERSION)
        try:
            response = self.get_response(request)
        finally:
            structlog.contextvars.clear_contextvars()
            structlog.contextvars.bind_contextvars(**outer)
        response["X-Request-ID"] = request_id
        return response


def _authorized(request: HttpRequest) -> bool:
    token = settings.METRICS_TOKEN
    header = request.headers.get("Authorization", "")
    if token and header.startswith("Bearer ") and hmac.compare_digest(header[7:], token):
        return True
    user = getattr(request, "user", None)
    return bool(user and user.is_authenticated and user.is_staff)


def metrics_view(request: HttpRequest) -> HttpResponse:
    """Prometheus exposition; staff session or `Authorization: Bearer $METRICS_TOKEN` only."""
    if not _authorized(request):
        return HttpResponse(status=404)  # a scraper without the token learns nothing, not even that it exists
    registry = DEFAULT_REGISTRY
    if settings.PROMETHEUS_MULTIPROC_DIR:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
