"""Fixtures of the websocket consumer tests: the real ASGI application (tenancy's auth stack, the
origin validator, channels-redis) and communicators authenticated by token or session cookie."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from config.asgi import application
from execution.runtime import sessions_close
from tests.registry_fixtures import activate_manifest

ORIGIN = (b"origin", b"http://testserver")


@pytest.fixture(autouse=True)
def _eager(settings):
    from config.celery import app

    saved = app.conf.task_always_eager
    app.conf.task_always_eager = True
    settings.LLM_BASE_URL = None
    settings.AGENT_READ_WAIT_SECONDS = 0
    sessions_close()
    yield
    sessions_close()
    app.conf.task_always_eager = saved


@pytest.fixture
def registry(db):
    return activate_manifest()


class Socket(WebsocketCommunicator):
    async def connect(self, timeout: float = 1):
        connected, code = await super().connect(timeout)
        if not connected:
            # A real server sends websocket.disconnect after a refused handshake; without it the
            # consumer's channel-layer receive would outlive the test's event loop.
            await self.disconnect()
        return connected, code


def socket(conversation_id: object, *, token: str | None = None, cookie: str | None = None,
           after: int | None = None, origin: bool = True) -> WebsocketCommunicator:
    headers = [ORIGIN] if origin else []
    if token:
        headers.append((b"authorization", f"Token {token}".encode()))
    if cookie:
        headers.append((b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode()))
    query = f"?after={after}" if after is not None else ""
    return Socket(application, f"/ws/agent/conversations/{conversation_id}/{query}", headers=headers)


@pytest.fixture
def session_cookie() -> Callable[[object], str]:
    def make(user) -> str:
        client = Client()
        client.force_login(user)
        return client.cookies[settings.SESSION_COOKIE_NAME].value

    return make
