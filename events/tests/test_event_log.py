from __future__ import annotations

import asyncio
import threading
import uuid

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.db import DatabaseError, connection, transaction

from events.models import ConversationEvent, EventType
from events.selectors import events_after, group_name
from events.services import event_append
from tenancy.testing import as_app_role


def _append(tenant, conversation_id, type_=EventType.MESSAGE_RECEIVED, version=1):
    return event_append(tenant=tenant, conversation_id=conversation_id, type=type_, actor="user",
                        state_version=version, payload={"text": "oi"})


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks are PostgreSQL's")
@pytest.mark.django_db(transaction=True)
def test_concurrent_writers_get_gap_free_sequences(tenant):
    conversation_id = uuid.uuid4()
    errors: list[BaseException] = []

    def writer() -> None:
        try:
            for _ in range(10):
                _append(tenant, conversation_id)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=writer) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    seqs = [e["seq"] for e in events_after(tenant=tenant, conversation_id=conversation_id)]
    assert seqs == list(range(1, 41))


@pytest.mark.django_db
def test_a_rolled_back_append_gives_its_number_back(tenant):
    conversation_id = uuid.uuid4()
    _append(tenant, conversation_id)
    with pytest.raises(RuntimeError), transaction.atomic():
        _append(tenant, conversation_id)
        raise RuntimeError("turn failed")
    assert _append(tenant, conversation_id).seq == 2


@pytest.mark.skipif(connection.vendor != "postgresql", reason="roles are PostgreSQL's")
@pytest.mark.django_db
def test_the_application_role_cannot_update_delete_or_truncate_events(tenant):
    event = _append(tenant, uuid.uuid4())
    attempts = [
        lambda: ConversationEvent.objects.for_tenant(tenant).filter(pk=event.pk).update(type="TOPIC_CHANGED"),
        lambda: ConversationEvent.objects.for_tenant(tenant).filter(pk=event.pk).delete(),
        lambda: connection.cursor().execute("UPDATE events_conversationevent SET seq = 99"),
        lambda: connection.cursor().execute("DELETE FROM events_conversationevent"),
        lambda: connection.cursor().execute("TRUNCATE events_conversationevent CASCADE"),
    ]
    for attempt in attempts:
        with pytest.raises(DatabaseError, match="append-only"), as_app_role():
            attempt()
    assert ConversationEvent.objects.for_tenant(tenant).get(pk=event.pk).seq == 1


@pytest.mark.django_db
def test_nobody_updates_an_event_not_even_a_maintainer(tenant):
    event = _append(tenant, uuid.uuid4())
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        ConversationEvent.objects.for_tenant(tenant).filter(pk=event.pk).update(type="TOPIC_CHANGED")


@pytest.mark.django_db
def test_another_tenant_never_reads_the_conversation_events(tenant, other_tenant):
    conversation_id = uuid.uuid4()
    _append(tenant, conversation_id)
    assert events_after(tenant=other_tenant, conversation_id=conversation_id) == []
    assert len(events_after(tenant=tenant, conversation_id=conversation_id)) == 1


def _append_rolled_back(tenant, conversation_id) -> None:
    with pytest.raises(RuntimeError), transaction.atomic():
        _append(tenant, conversation_id, EventType.INTENT_CREATED)
        raise RuntimeError("rolled back")


@pytest.mark.django_db(transaction=True)
def test_events_are_published_after_commit_and_never_for_a_rollback(tenant):
    conversation_id = uuid.uuid4()
    layer = get_channel_layer()

    async def listen() -> dict:
        # One loop subscribes and receives, as a server process does (a Pub/Sub subscription
        # belongs to the loop that made it).
        channel = await layer.new_channel()
        await layer.group_add(group_name(tenant_id=tenant.pk, conversation_id=conversation_id), channel)
        await database_sync_to_async(_append_rolled_back)(tenant, conversation_id)
        await database_sync_to_async(_append)(tenant, conversation_id, EventType.MESSAGE_RECEIVED)
        return await asyncio.wait_for(layer.receive(channel), 5)

    message = async_to_sync(listen)()
    assert (message["type"], message["event"]["type"], message["event"]["seq"]) == (
        "conversation.event", "MESSAGE_RECEIVED", 1)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="roles are PostgreSQL's")
@pytest.mark.django_db
def test_the_purge_window_gives_the_application_role_nothing_on_postgresql(tenant):
    from tenancy.db import purge_window

    event = _append(tenant, uuid.uuid4())
    with pytest.raises(DatabaseError, match="append-only"), purge_window(), as_app_role():
        ConversationEvent.objects.for_tenant(tenant).filter(pk=event.pk).delete()
    assert ConversationEvent.objects.for_tenant(tenant).filter(pk=event.pk).exists()
