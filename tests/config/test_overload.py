"""Pool exhaustion for real: the default alias becomes a one-connection psycopg pool (what
config/asgi.py's servers run, made tiny) whose only connection another thread holds. Requests then
wait for the pool, time out, and must be answered 503 with Retry-After — having done nothing."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.db import OperationalError, connection, connections
from django.test import AsyncClient, Client

from config.overload import CLOSE_TRY_AGAIN_LATER, connection_unavailable, server_error
from conversations.models import Conversation, Turn
from conversations.services import conversation_create
from events.models import ConversationEvent
from tenancy.services import access_token_issue

pytestmark = pytest.mark.django_db(transaction=True)

POOL_WAIT_S = 0.5


@pytest.fixture
def tiny_pool() -> Iterator[None]:
    if connection.vendor != "postgresql":
        pytest.skip("the connection pool exists only on PostgreSQL")
    shared = connection.settings_dict  # the same dict every thread's wrapper of this alias reads
    saved = {key: shared[key] for key in ("OPTIONS", "CONN_MAX_AGE")}
    connection.close()
    shared["OPTIONS"] = {**saved["OPTIONS"], "pool": {"min_size": 1, "max_size": 1, "timeout": POOL_WAIT_S}}
    shared["CONN_MAX_AGE"] = 0
    try:
        yield
    finally:
        connection.close()
        connection.close_pool()
        shared.update(saved)


@contextmanager
def pool_held() -> Iterator[None]:
    """Another thread takes the pool's only connection and keeps it until the block ends."""
    taken, release = threading.Event(), threading.Event()

    def hold() -> None:
        from django.db import connection as own

        with own.cursor() as cursor:
            cursor.execute("SELECT 1")
        taken.set()
        release.wait(30)
        own.close()  # back to the pool

    holder = threading.Thread(target=hold)
    holder.start()
    assert taken.wait(10), "the holder never got the pool's connection"
    try:
        yield
    finally:
        release.set()
        holder.join(10)


@pytest.fixture
def caller(operator, tenant) -> dict:
    conversation = conversation_create(tenant=tenant, user=operator)
    token = access_token_issue(user=operator, tenant=tenant)
    connection.close()  # the test thread's connection goes back before the holder takes the only one
    return {"conversation": conversation, "headers": {"HTTP_AUTHORIZATION": f"Token {token}"}, "token": token}


def _assert_overloaded(response, language: str = "pt-BR") -> None:
    assert response.status_code == 503, response.content[:300]
    assert int(response["Retry-After"]) >= 1
    body = json.loads(response.content)
    assert body["code"] == "overloaded" and body["retry_after"] == int(response["Retry-After"])
    expected = "sobrecarregado" if language == "pt-BR" else "overloaded"
    assert expected in body["detail"]


def test_a_turn_that_cannot_get_a_connection_is_a_503_and_writes_nothing(tiny_pool, caller):
    conversation = caller["conversation"]
    client = Client(raise_request_exception=False)
    with pool_held():
        response = client.post(f"/agent/conversations/{conversation.pk}/messages", {"text": "abra a permissão 1"},
                               content_type="application/json", **caller["headers"])
        english = client.post("/agent/conversations", {}, content_type="application/json",
                              HTTP_ACCEPT_LANGUAGE="en", **caller["headers"])
    _assert_overloaded(response)
    _assert_overloaded(english, "en")
    fresh = Conversation.objects.for_tenant(conversation.tenant).get(pk=conversation.pk)
    assert fresh.version == conversation.version
    tenant = conversation.tenant
    assert not Turn.objects.for_tenant(tenant).filter(conversation=conversation).exists()
    assert not ConversationEvent.objects.for_tenant(tenant).filter(conversation_id=conversation.pk).exists()
    assert Conversation.objects.for_tenant(tenant).count() == 1
    # The pool freed: the same request is answered normally.
    assert client.get(f"/agent/conversations/{conversation.pk}", **caller["headers"]).status_code == 200


def test_the_asgi_handler_answers_503_too(tiny_pool, caller):
    client = AsyncClient(raise_request_exception=False)
    with pool_held():
        response = async_to_sync(client.get)(f"/agent/conversations/{caller['conversation'].pk}",
                                             headers={"Authorization": f"Token {caller['token']}"})
    _assert_overloaded(response)


def test_a_socket_that_cannot_get_a_connection_closes_with_try_again_later(tiny_pool, caller):
    from config.asgi import application

    path = f"/ws/agent/conversations/{caller['conversation'].pk}/"
    headers = [(b"origin", b"http://testserver"), (b"authorization", f"Token {caller['token']}".encode())]

    async def session() -> dict:
        communicator = WebsocketCommunicator(application, path, headers=headers)
        try:
            connected, _ = await communicator.connect(timeout=POOL_WAIT_S * 10)
            assert connected  # accepted only to be told the close code, never sent anything
            return await communicator.receive_output(timeout=5)
        finally:
            await communicator.wait(timeout=5)

    with pool_held():
        closed = async_to_sync(session)()
    assert closed == {"type": "websocket.close", "code": CLOSE_TRY_AGAIN_LATER, "reason": "overloaded"}


def test_other_server_errors_stay_500(rf):
    request = rf.get("/agent/conversations")
    try:
        raise OperationalError("server closed the connection unexpectedly")  # mid-statement, not a connect
    except OperationalError:
        assert server_error(request).status_code == 500
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        assert server_error(request).status_code == 500
    from psycopg_pool import PoolTimeout

    try:  # a middleware's first query timing out on the pool reaches handler500: still a 503
        raise OperationalError("couldn't get a connection") from PoolTimeout("timeout after 0.5 sec")
    except OperationalError:
        _assert_overloaded(server_error(request))


def test_a_refused_connect_counts_as_unavailable_and_a_pool_timeout_too():
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only")
    options = {k: v for k, v in connection.settings_dict["OPTIONS"].items() if k != "pool"}
    probe = type(connections["default"])({**connection.settings_dict, "OPTIONS": options, "PORT": "1"}, "refused-probe")
    with pytest.raises(OperationalError) as failed:
        probe.ensure_connection()  # nothing listens on port 1: the connect itself fails
    assert connection_unavailable(failed.value) == "connect"

    from psycopg_pool import PoolTimeout

    try:
        raise OperationalError("couldn't get a connection") from PoolTimeout("timeout after 0.5 sec")
    except OperationalError as exc:
        assert connection_unavailable(exc) == "pool"
