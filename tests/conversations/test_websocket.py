"""The conversation websocket consumer, with the tenant context put in the scope from a token the way
tenancy's middleware does (tenancy.channels' stack currently fails on channels 4's lazy user — reported)."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from conversations.routing import websocket_urlpatterns
from conversations.services import conversation_create, conversation_turn
from tenancy.selectors import context_for_token
from tenancy.services import access_token_issue

pytestmark = pytest.mark.django_db(transaction=True)
ROUTER = URLRouter(websocket_urlpatterns)


async def APP(scope, receive, send):  # noqa: N802 - an ASGI app
    headers = dict(scope.get("headers", []))
    raw = headers.get(b"authorization", b"").decode().split()[-1]
    context = await database_sync_to_async(context_for_token)(raw_key=raw)
    return await ROUTER(dict(scope, tenant_context=context), receive, send)


def _communicator(conversation_id: str, token: str, after: int = 0) -> WebsocketCommunicator:
    return WebsocketCommunicator(APP, f"/ws/agent/conversations/{conversation_id}/?after={after}",
                                 headers=[(b"authorization", f"Token {token}".encode())])


def test_the_owner_gets_missed_events_then_the_turns_events(world, operator, tenant):
    conversation = conversation_create(tenant=tenant, user=operator)
    conversation_turn(tenant=tenant, user=operator, conversation_id=conversation.pk, text="abra a permissão 802")
    token = access_token_issue(user=operator, tenant=tenant)
    async_to_sync(_owner_session)(str(conversation.pk), token)


async def _owner_session(conversation_id: str, token: str) -> None:
    communicator = _communicator(conversation_id, token)
    connected, _ = await communicator.connect()
    assert connected
    replayed = [await communicator.receive_json_from(timeout=5) for _ in range(2)]
    assert [e["seq"] for e in replayed] == [1, 2]
    await communicator.send_json_to({"type": "message", "text": "open permit 771"})
    received = []
    for _ in range(5):
        message = await communicator.receive_json_from(timeout=5)
        received.append(message)
        if message.get("type") == "turn":
            break
    assert received[-1]["response"]["type"] == "clarification"
    await communicator.disconnect()


def test_another_tenants_user_is_closed_with_4403(world, operator, tenant, other_user, other_tenant):
    conversation = conversation_create(tenant=tenant, user=operator)
    token = access_token_issue(user=other_user, tenant=other_tenant)
    assert async_to_sync(_connect)(str(conversation.pk), token) == (False, 4403)


async def _connect(conversation_id: str, token: str):
    communicator = _communicator(conversation_id, token)
    result = await communicator.connect()
    await communicator.disconnect()  # the app keeps its channel-layer receive open until the client leaves
    return result
