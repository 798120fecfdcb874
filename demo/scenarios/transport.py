"""How the runner reaches the application: in this process (DRF's APIClient) or a live server (httpx).

Both speak plain HTTP requests with a user token or the test-control token, and answer
`HttpResult(status, body)`; everything above (seeding, faults, clock, conversations) is the same
code for both, going through the public REST and test-control APIs.
"""

from __future__ import annotations

import json
import secrets
import traceback
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

import httpx
from django.test import override_settings
from rest_framework.test import APIClient

from demo.testcontrol.apis import TOKEN_HEADER


@dataclass(frozen=True)
class HttpResult:
    status: int
    body: Any

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


class Transport(Protocol):
    def request(self, method: str, path: str, *, token: str | None = None, control: bool = False,
                json_body: Any = None, params: Mapping[str, Any] | None = None) -> HttpResult: ...


def _body(content: bytes) -> Any:
    if not content:
        return None
    try:
        return json.loads(content)
    except ValueError:
        return content.decode(errors="replace")[:2000]


class InProcessTransport:
    """The app in this process; a crash inside a view is answered as the 500 a server would give."""

    def __init__(self, control_token: str) -> None:
        self.control_token = control_token
        self.client = APIClient()

    def request(self, method: str, path: str, *, token: str | None = None, control: bool = False,
                json_body: Any = None, params: Mapping[str, Any] | None = None) -> HttpResult:
        headers = _headers(token, self.control_token if control else None)
        if params:
            path = f"{path}?{httpx.QueryParams(dict(params))}"
        data = None if json_body is None else json.dumps(json_body)
        try:
            response = self.client.generic(method, path, data=data or "", content_type="application/json",
                                           headers=headers)
        except Exception as exc:  # noqa: BLE001 - the product's crash is an observation, not the runner's
            return HttpResult(500, {"code": "SERVER_ERROR", "detail": "".join(traceback.format_exception_only(exc))})
        return HttpResult(response.status_code, _body(response.content))


class LiveTransport:
    def __init__(self, base_url: str, control_token: str, *, timeout: float = 60.0) -> None:
        self.control_token = control_token
        self.client = httpx.Client(base_url=base_url.rstrip("/"), timeout=timeout)

    def request(self, method: str, path: str, *, token: str | None = None, control: bool = False,
                json_body: Any = None, params: Mapping[str, Any] | None = None) -> HttpResult:
        headers = _headers(token, self.control_token if control else None)
        response = self.client.request(method, path, json=json_body, params=params, headers=headers)
        return HttpResult(response.status_code, _body(response.content))

    def close(self) -> None:
        self.client.close()


def _headers(token: str | None, control_token: str | None) -> dict[str, str]:
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    if control_token:
        headers[TOKEN_HEADER] = control_token
    return headers


@contextmanager
def in_process() -> Iterator[InProcessTransport]:
    """Test control and fault injection on for this process, Celery tasks run inline, the clock restored after.

    Eager Celery because there is no worker in this process's run; `--live` plays against real workers.
    """
    from config.celery import app as celery_app
    from tenancy import clock

    token = secrets.token_urlsafe(24)
    eager = celery_app.conf.task_always_eager
    with override_settings(AGENT_TEST_CONTROL=True, AGENT_TEST_CONTROL_TOKEN=token, SST_FAULT_INJECTION=True,
                           CELERY_TASK_ALWAYS_EAGER=True):
        celery_app.conf.task_always_eager = True
        clock.reset()
        try:
            yield InProcessTransport(token)
        finally:
            clock.reset()
            celery_app.conf.task_always_eager = eager
