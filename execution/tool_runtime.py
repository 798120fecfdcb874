"""The Tool Runtime: the one place that turns a capability step into a call on a registered API.

Every effect the agent has goes through `ToolSession.invoke` (invariant 1): the capability spec
comes from the registry snapshot, the request is built only from the capability's declared call
(method, path template, query and body fields, If-Match field) and the step's validated input,
and a mutating call carries the step's idempotency key (`agent:{planId}:{stepId}`, invariant 8).

Transports: `http` reaches the resource's base URL with httpx; `inprocess` (the embedded default
and fast tests) goes through the same Django stack in this process via httpx's WSGI transport, so
authentication, tenancy, validation, idempotency and fault injection behave exactly as over the
network. The call acts as the execution's (user, tenant): a short-lived token bound to both,
issued once per session — the API re-checks the user's own rights on every call.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import httpx
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.handlers.wsgi import WSGIHandler, get_script_name
from django.urls import set_script_prefix
from django.utils import timezone

from registry.selectors import CapabilitySpec, ResourceSpec
from tenancy.models import Tenant
from tenancy.services import access_token_issue

from .errors import RETRYABLE, ErrorClass, Outcome, classify_status

TOKEN_TTL = timedelta(minutes=30)


def _inprocess_base() -> str:
    # The in-process request passes Django's host validation like any other: use an allowed host.
    hosts = [h for h in settings.ALLOWED_HOSTS if h not in ("*",) and not h.startswith(".")]
    return f"http://{hosts[0] if hosts else 'localhost'}"


class InProcessWSGI(WSGIHandler):
    """Django's WSGI handler without the request_started/finished signals.

    Those signals run close_old_connections, which in the caller's own thread would close (or
    mark for rollback) the caller's database connection mid-transaction. Django's test client
    disconnects them for the same reason.
    """

    def __call__(self, environ, start_response):
        set_script_prefix(get_script_name(environ))
        response = self.get_response(self.request_class(environ))
        headers = [*response.items(), *(("Set-Cookie", c.output(header="")) for c in response.cookies.values())]
        start_response(f"{response.status_code} {response.reason_phrase}", headers)
        return [response.content]


_inprocess_app: InProcessWSGI | None = None


def _inprocess_transport() -> httpx.WSGITransport:
    global _inprocess_app
    if _inprocess_app is None:
        _inprocess_app = InProcessWSGI()
    return httpx.WSGITransport(app=_inprocess_app)


@dataclass(frozen=True)
class ToolResult:
    outcome: Outcome
    status_code: int | None
    body: Any
    error_class: ErrorClass | None
    error_code: str | None
    latency_ms: float
    replayed: bool = False

    @property
    def retryable(self) -> bool:
        return self.error_class in RETRYABLE


@dataclass
class ToolSession:
    """Calls made on behalf of one (user, tenant), typically one execution."""

    user: AbstractBaseUser
    tenant: Tenant
    _token: str | None = None
    _clients: dict[str, httpx.Client] = field(default_factory=dict)

    def _auth_header(self) -> dict[str, str]:
        if self._token is None:
            # Not tenancy.clock: tenancy checks a token's expiry on timezone.now(), so it is written on it.
            self._token = access_token_issue(user=self.user, tenant=self.tenant, label="tool-runtime",
                                             expires_at=timezone.now() + TOKEN_TTL)
        return {"Authorization": f"Token {self._token}"}

    def _client(self, resource: ResourceSpec) -> httpx.Client:
        client = self._clients.get(resource.key)
        if client is None:
            if resource.transport == "http" and resource.base_url:
                client = httpx.Client(base_url=resource.base_url.rstrip("/"))
            else:
                client = httpx.Client(base_url=_inprocess_base(), transport=_inprocess_transport())
            self._clients[resource.key] = client
        return client

    def close(self) -> None:
        for client in self._clients.values():
            client.close()
        self._clients.clear()

    def invoke(self, *, capability: CapabilitySpec, input: dict[str, Any],  # noqa: A002
               idempotency_key: str | None = None, timeout_ms: int | None = None) -> ToolResult:
        resource = capability.resource
        if resource is None:
            raise ValueError(f"{capability.id} calls no resource")
        request = build_request(capability, input, idempotency_key)
        timeout = (timeout_ms or resource.timeout_initial_ms) / 1000
        started = time.perf_counter()
        try:
            response = self._client(resource).request(
                request.method, resource.base_path.rstrip("/") + "/" + request.path,
                params=request.query or None, json=request.body, timeout=timeout,
                headers={**self._auth_header(), **request.headers},
            )
        except httpx.TransportError as exc:
            return _transport_failure(exc, capability, (time.perf_counter() - started) * 1000)
        return _from_response(response, (time.perf_counter() - started) * 1000)


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: dict[str, Any]
    body: dict[str, Any] | None
    headers: dict[str, str]


def build_request(capability: CapabilitySpec, input: dict[str, Any],  # noqa: A002
                  idempotency_key: str | None) -> Request:
    """Only what the capability declares leaves the process: undeclared input fields are dropped."""
    call = capability.call
    method = (call.get("method") or capability.http_method).upper()
    path = (call.get("path") or capability.path_template).format_map({k: str(v) for k, v in input.items()})
    query = {name: input[name] for name in call.get("query", []) if input.get(name) is not None}
    body_fields = call.get("body")
    body = {name: input[name] for name in body_fields if name in input} if body_fields is not None else None
    if body is None and method in ("POST", "PUT", "PATCH"):
        body = {}
    headers: dict[str, str] = {}
    if_match = call.get("if_match")
    if if_match and input.get(if_match) is not None:
        headers["If-Match"] = str(input[if_match])
    if method != "GET" and idempotency_key and capability.honours_idempotency_key:
        headers["Idempotency-Key"] = idempotency_key
    return Request(method, path, query, body, headers)


def _from_response(response: httpx.Response, latency_ms: float) -> ToolResult:
    try:
        body = response.json() if response.content else None
    except ValueError:
        body = {"raw": response.text[:2000]}
    error_class = classify_status(response.status_code)
    code = body.get("code") if isinstance(body, dict) and error_class else None
    return ToolResult(
        outcome=Outcome.SUCCEEDED if error_class is None else Outcome.FAILED,
        status_code=response.status_code, body=body, error_class=error_class, error_code=code,
        latency_ms=latency_ms, replayed=response.headers.get("Idempotent-Replayed") == "true",
    )


def _transport_failure(exc: httpx.TransportError, capability: CapabilitySpec, latency_ms: float) -> ToolResult:
    # A connection that never opened cannot have changed anything; anything later might have.
    never_sent = isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout)
    mutating = capability.kind == "write"
    outcome = Outcome.FAILED if never_sent or not mutating else Outcome.UNKNOWN
    error_class = ErrorClass.TIMEOUT if isinstance(exc, httpx.TimeoutException) else ErrorClass.NETWORK
    return ToolResult(outcome=outcome, status_code=None, body=None, error_class=error_class,
                      error_code=type(exc).__name__, latency_ms=latency_ms)
