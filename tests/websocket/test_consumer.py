"""The conversation websocket against `config.asgi.application`: tenancy's real auth stack (token
header or session cookie), the origin check, channels-redis, and events committed by other writers."""

from __future__ import annotations

import uuid
from unittest import mock

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async

from conftest import make_user
from conversations.services import conversation_create
from events.services import event_append
from tenancy.models import AccessToken, Role
from tenancy.services import access_token_issue
from tests.conversations.conftest import build_world

from .conftest import socket

pytestmark = pytest.mark.django_db(transaction=True)


def progress(step: int, total: int = 3) -> dict:
    return {"execution_id": str(uuid.UUID(int=7)), "step_id": f"s{step}", "capability": "workPermit.read",
            "label": {"pt-BR": f"Passo {step}", "en": f"Step {step}"}, "status": "completed", "done": step,
            "total": total}


def append(tenant, conversation_id, type_: str = "EXECUTION_PROGRESS", payload: dict | None = None, *,
           published: bool = True):
    if published:
        return event_append(tenant=tenant, conversation_id=conversation_id, type=type_, actor="agent",
                            state_version=0, payload=payload or {})
    with mock.patch("events.services.event_publish"):
        return event_append(tenant=tenant, conversation_id=conversation_id, type=type_, actor="agent",
                            state_version=0, payload=payload or {})


aappend = database_sync_to_async(append)


async def receive_all(communicator, count: int) -> list[dict]:
    return [await communicator.receive_json_from(timeout=5) for _ in range(count)]


def test_events_arrive_live_in_seq_order_with_execution_progress(operator, tenant):
    conversation = conversation_create(tenant=tenant, user=operator)
    token = access_token_issue(user=operator, tenant=tenant)

    async def session():
        communicator = socket(conversation.pk, token=token)
        assert (await communicator.connect())[0]
        for step in (1, 2, 3):
            await aappend(tenant, conversation.pk, payload=progress(step))
        await aappend(tenant, conversation.pk, "EXECUTION_COMPLETED",
                      {"execution_id": str(uuid.UUID(int=7)), "status": "completed", "error": None})
        received = await receive_all(communicator, 4)
        assert await communicator.receive_nothing(timeout=0.2)
        await communicator.disconnect()
        return received

    received = async_to_sync(session)()
    assert [e["seq"] for e in received] == [1, 2, 3, 4]
    assert [e["payload"].get("done") for e in received[:3]] == [1, 2, 3]
    assert received[0]["payload"]["label"] == {"pt-BR": "Passo 1", "en": "Step 1"}
    assert received[3]["type"] == "EXECUTION_COMPLETED"


def test_reconnecting_with_after_replays_exactly_the_missed_events_then_continues_live(operator, tenant):
    conversation = conversation_create(tenant=tenant, user=operator)
    token = access_token_issue(user=operator, tenant=tenant)
    for step in (1, 2, 3, 4, 5):
        append(tenant, conversation.pk, payload=progress(step, 6))

    async def session():
        communicator = socket(conversation.pk, token=token, after=2)
        assert (await communicator.connect())[0]
        replayed = await receive_all(communicator, 3)
        assert await communicator.receive_nothing(timeout=0.2)
        await aappend(tenant, conversation.pk, payload=progress(6, 6))
        live = await communicator.receive_json_from(timeout=5)
        assert await communicator.receive_nothing(timeout=0.2)
        await communicator.disconnect()
        return replayed, live

    replayed, live = async_to_sync(session)()
    assert [e["seq"] for e in replayed] == [3, 4, 5]
    assert live["seq"] == 6 and live["payload"]["done"] == 6


def test_an_event_whose_publication_was_lost_is_filled_from_the_table_before_the_next(operator, tenant):
    conversation = conversation_create(tenant=tenant, user=operator)
    token = access_token_issue(user=operator, tenant=tenant)

    async def session():
        communicator = socket(conversation.pk, token=token)
        assert (await communicator.connect())[0]
        await aappend(tenant, conversation.pk, payload=progress(1))
        await database_sync_to_async(append)(tenant, conversation.pk, payload=progress(2), published=False)
        await aappend(tenant, conversation.pk, payload=progress(3))
        received = await receive_all(communicator, 3)
        assert await communicator.receive_nothing(timeout=0.2)
        await communicator.disconnect()
        return received

    assert [e["seq"] for e in async_to_sync(session)()] == [1, 2, 3]


def test_another_tenants_user_is_closed_with_4403_and_receives_nothing(operator, tenant, other_user, other_tenant):
    conversation = conversation_create(tenant=tenant, user=operator)
    own = conversation_create(tenant=other_tenant, user=other_user)
    stranger = access_token_issue(user=other_user, tenant=other_tenant)

    async def session():
        refused = await socket(conversation.pk, token=stranger).connect()
        # Connected to their own conversation, they still never see ours.
        watcher = socket(own.pk, token=stranger)
        assert (await watcher.connect())[0]
        await aappend(tenant, conversation.pk, payload=progress(1))
        quiet = await watcher.receive_nothing(timeout=0.3)
        await watcher.disconnect()
        return refused, quiet

    refused, quiet = async_to_sync(session)()
    assert refused == (False, 4403)
    assert quiet


def test_another_user_of_the_same_tenant_is_closed_with_4403(operator, tenant, supervisor):
    conversation = conversation_create(tenant=tenant, user=operator)
    token = access_token_issue(user=supervisor, tenant=tenant)

    async def connect():
        communicator = socket(conversation.pk, token=token)
        result = await communicator.connect()
        return result, await communicator.receive_nothing(timeout=0.1)

    assert async_to_sync(connect)() == ((False, 4403), True)


@pytest.mark.parametrize("target", ["missing", "not-a-uuid"])
def test_a_missing_or_malformed_conversation_is_closed_with_4403(operator, tenant, target):
    token = access_token_issue(user=operator, tenant=tenant)
    conversation_id = uuid.uuid4() if target == "missing" else "not-a-uuid"
    assert async_to_sync(socket(conversation_id, token=token).connect)() == (False, 4403)


def test_an_anonymous_socket_and_a_forged_token_are_closed(operator, tenant):
    conversation = conversation_create(tenant=tenant, user=operator)
    assert async_to_sync(socket(conversation.pk).connect)() == (False, 4403)
    assert async_to_sync(socket(conversation.pk, token="forged-token-value").connect)() == (False, 4403)


def test_a_foreign_origin_is_refused_even_with_a_valid_session(operator, tenant, session_cookie):
    conversation = conversation_create(tenant=tenant, user=operator)
    communicator = socket(conversation.pk, cookie=session_cookie(operator), origin=False)
    communicator.scope["headers"].append((b"origin", b"http://evil.example"))
    connected, _ = async_to_sync(communicator.connect)()
    assert not connected


def test_the_session_cookie_of_the_logged_in_user_authenticates_the_socket(operator, tenant, session_cookie):
    conversation = conversation_create(tenant=tenant, user=operator)
    append(tenant, conversation.pk, payload=progress(1))
    communicator = socket(conversation.pk, cookie=session_cookie(operator))

    async def session():
        assert (await communicator.connect())[0]
        first = await communicator.receive_json_from(timeout=5)
        await communicator.disconnect()
        return first

    assert async_to_sync(session)()["seq"] == 1


def test_an_event_carrying_a_secret_like_key_is_never_sent(operator, tenant):
    conversation = conversation_create(tenant=tenant, user=operator)
    token = access_token_issue(user=operator, tenant=tenant)

    async def session():
        communicator = socket(conversation.pk, token=token)
        assert (await communicator.connect())[0]
        await aappend(tenant, conversation.pk, "EXECUTION_THROTTLED", {"detail": {"api_key": "sk-live-123"}})
        await aappend(tenant, conversation.pk, "EXECUTION_THROTTLED", {"system_prompt": "You are..."})
        await aappend(tenant, conversation.pk, payload=progress(1))
        received = await communicator.receive_json_from(timeout=5)
        assert await communicator.receive_nothing(timeout=0.2)
        await communicator.disconnect()
        return received

    received = async_to_sync(session)()
    assert received["seq"] == 3
    assert "sk-live" not in str(received) and "prompt" not in str(received)


def test_a_message_runs_a_turn_whose_events_come_before_the_answer(registry, operator, tenant):
    world = build_world(tenant)
    conversation = conversation_create(tenant=tenant, user=operator)
    token = access_token_issue(user=operator, tenant=tenant)

    async def session():
        communicator = socket(conversation.pk, token=token)
        assert (await communicator.connect())[0]
        await communicator.send_json_to({
            "type": "message", "text": "adicione o componente Solda Elétrica", "client_message_id": "m-1",
            "ui_context": {"selection": {"entityType": "workPermit", "entityId": str(world.p802.pk)}}})
        received = []
        while not received or received[-1].get("type") != "turn":
            received.append(await communicator.receive_json_from(timeout=10))
        await communicator.disconnect()
        return received

    received = async_to_sync(session)()
    events, turn = received[:-1], received[-1]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert turn["client_message_id"] == "m-1"
    assert turn["response"]["type"] == "confirmation"
    assert turn["response"]["confirmation"]["summary"]
    assert [e["seq"] for e in turn["events"]] == [e["seq"] for e in events]


def test_an_invalid_message_is_answered_with_a_bilingual_error_and_runs_nothing(operator, tenant):
    conversation = conversation_create(tenant=tenant, user=operator)
    token = access_token_issue(user=operator, tenant=tenant)

    async def session():
        communicator = socket(conversation.pk, token=token)
        assert (await communicator.connect())[0]
        answers = []
        for bad in ({"type": "message"}, {"type": "message", "text": "oi", "tenant": "other"},
                    {"type": "confirm", "text": "sim"}, ["message"]):
            await communicator.send_json_to(bad)
            answers.append(await communicator.receive_json_from(timeout=5))
        assert await communicator.receive_nothing(timeout=0.2)
        await communicator.disconnect()
        return answers

    answers = async_to_sync(session)()
    assert {a["code"] for a in answers} == {"invalid"}
    assert all(a["detail"]["pt-BR"] and a["detail"]["en"] for a in answers)
    from events.models import ConversationEvent

    assert not ConversationEvent.objects.for_tenant(tenant).filter(conversation_id=conversation.pk).exists()


def test_a_revoked_token_closes_the_socket_at_the_next_message(operator, tenant):
    conversation = conversation_create(tenant=tenant, user=operator)
    token = access_token_issue(user=operator, tenant=tenant)

    async def session():
        communicator = socket(conversation.pk, token=token)
        assert (await communicator.connect())[0]
        await database_sync_to_async(lambda: AccessToken.objects.filter(user=operator).delete())()
        await communicator.send_json_to({"type": "message", "text": "abra a permissão 802"})
        output = await communicator.receive_output(timeout=5)
        return output

    assert async_to_sync(session)() == {"type": "websocket.close", "code": 4403}


def test_a_removed_membership_closes_a_session_socket_at_the_next_message(tenant, session_cookie):
    user = make_user(tenant, Role.OPERATOR, "leaving-operator")
    conversation = conversation_create(tenant=tenant, user=user)
    cookie = session_cookie(user)

    async def session():
        communicator = socket(conversation.pk, cookie=cookie)
        assert (await communicator.connect())[0]
        await database_sync_to_async(lambda: user.memberships.all().delete())()
        await communicator.send_json_to({"type": "message", "text": "abra a permissão 802"})
        return await communicator.receive_output(timeout=5)

    assert async_to_sync(session)() == {"type": "websocket.close", "code": 4403}
