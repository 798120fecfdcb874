"""Appending to the conversation event log.

`seq` is gap-free per conversation: the stream row is locked for the length of the caller's
transaction, so concurrent writers (a turn and a Celery worker's progress) serialise on it and a
rolled-back transaction gives its number back. Publication to the channel layer happens after
commit; two commits can still publish out of order, so consumers deliver by `seq` and fill a gap
from the table (events_after), which is the source of truth.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import structlog
from django.db import connection, transaction
from django.utils import timezone

from tenancy.db import update_row_deferred, write_in_one_statement
from tenancy.models import Tenant

from .models import ConversationEvent, EventStream
from .publisher import publish
from .selectors import envelope, group_name
from .types import EventEnvelope, GroupBatchMessage, GroupMessage

log = structlog.get_logger(__name__)


def stream_open(*, tenant: Tenant, conversation_id: uuid.UUID) -> EventStream:
    stream, _ = EventStream.objects.for_tenant(tenant).get_or_create(tenant=tenant, conversation_id=conversation_id)
    return stream


class EventBatch:
    """The appends to one conversation held back by `event_batch`, written together at its end."""

    def __init__(self, tenant: Tenant, conversation_id: uuid.UUID, last_seq: int | None = None) -> None:
        self.tenant, self.conversation_id, self.last_seq = tenant, conversation_id, last_seq
        self.events: list[ConversationEvent] = []

    def envelopes(self) -> list[EventEnvelope]:
        return [envelope(event) for event in self.events]


_batches = threading.local()


@contextmanager
def event_batch(*, tenant: Tenant, conversation_id: uuid.UUID, last_seq: int | None = None) -> Iterator[EventBatch]:
    """Hold this thread's appends to one conversation and write them in one statement on exit.

    For a caller that owns the transaction (a conversation turn): every event of the turn —
    including the ones execution appends while starting — costs one round trip instead of one
    each, in the order they were appended. Call inside the transaction; on an exception nothing is
    written (the transaction is rolling back anyway). `seq` is set on the events at exit.

    `last_seq`: the caller holds the stream row locked (SELECT … FOR UPDATE) and read this value —
    the events are numbered here and written without waiting for an answer (inside
    `tenancy.db.coalesced_writes` they ride on the caller's next write).
    """
    batch = EventBatch(tenant, conversation_id, last_seq)
    previous = getattr(_batches, "current", None)
    _batches.current = batch
    try:
        yield batch
        if batch.events:
            _write_batch(batch)
    finally:
        _batches.current = previous


def event_append(
    *,
    tenant: Tenant,
    conversation_id: uuid.UUID,
    type: str,  # noqa: A002 - the envelope's field name
    actor: str,
    state_version: int,
    payload: dict[str, Any] | None = None,
    operation_id: uuid.UUID | None = None,
) -> ConversationEvent:
    """Append one event (its `seq` is set now, or at the end of an open `event_batch`)."""
    event = ConversationEvent(tenant_id=tenant.pk, conversation_id=conversation_id, type=type, actor=actor,
                              payload=payload or {}, state_version=state_version, operation_id=operation_id,
                              timestamp=timezone.now())
    batch = getattr(_batches, "current", None)
    if batch is not None and batch.conversation_id == conversation_id and batch.tenant.pk == tenant.pk:
        batch.events.append(event)
        return event
    # savepoint=False: inside the caller's transaction nothing extra is needed (one statement, or
    # the stream row's lock held to its end); alone it still commits both rows or neither.
    with transaction.atomic(savepoint=False):
        if connection.vendor != "postgresql" or not _append_one_statement(event):
            _append_orm(tenant, event)
        _publish_on_commit(tenant, [event])
    return event


def _publish_on_commit(tenant: Tenant, events: list[ConversationEvent]) -> None:
    messages = [envelope(event) for event in events]
    if len(messages) == 1:
        transaction.on_commit(lambda: event_publish(tenant_id=tenant.pk, event=messages[0]))
    else:  # one channel-layer message for the commit's events (one group send instead of one each)
        transaction.on_commit(lambda: events_publish(tenant_id=tenant.pk, events=messages))


def _write_batch(batch: EventBatch) -> None:
    events, tenant = batch.events, batch.tenant
    if batch.last_seq is not None:  # numbered under the caller's lock on the stream row
        for n, event in enumerate(events, start=1):
            event.seq = batch.last_seq + n
        write_in_one_statement(events)
        update_row_deferred(EventStream, where={"tenant": tenant.pk, "conversation_id": batch.conversation_id},
                            values={"last_seq": batch.last_seq + len(events)})
        _publish_on_commit(tenant, events)
        return
    with transaction.atomic(savepoint=False):  # not numbered by the caller (SQLite): one at a time
        for event in events:
            if connection.vendor != "postgresql" or not _append_one_statement(event):
                _append_orm(tenant, event)
        _publish_on_commit(tenant, events)


# Bump the stream and insert the event in one round trip; the UPDATE takes the stream row's lock
# for the rest of the transaction, which is what keeps `seq` gap-free and ordered.
_APPEND_SQL = """
WITH stream AS (
    UPDATE events_eventstream SET last_seq = last_seq + 1
    WHERE tenant_id = %s AND conversation_id = %s RETURNING last_seq
)
INSERT INTO events_conversationevent
    (tenant_id, id, conversation_id, seq, type, operation_id, actor, payload, state_version, timestamp)
SELECT %s, %s, %s, stream.last_seq, %s, %s, %s, %s::jsonb, %s, %s FROM stream
RETURNING seq
"""


def _append_one_statement(event: ConversationEvent) -> bool:
    """PostgreSQL: the whole append in one statement; False when the stream row does not exist yet."""
    with connection.cursor() as cursor:
        cursor.execute(_APPEND_SQL, [
            event.tenant_id, event.conversation_id, event.tenant_id, event.id, event.conversation_id, event.type,
            event.operation_id, event.actor, json.dumps(event.payload), event.state_version, event.timestamp])
        row = cursor.fetchone()
    if row is None:
        return False
    event.seq = row[0]
    return True


def _append_orm(tenant: Tenant, event: ConversationEvent) -> None:
    """The first event of a conversation (and SQLite): lock or create the stream row, then insert."""
    streams = EventStream.objects.for_tenant(tenant).select_for_update()
    stream = streams.filter(conversation_id=event.conversation_id).first()
    if stream is None:
        stream_open(tenant=tenant, conversation_id=event.conversation_id)
        stream = streams.get(conversation_id=event.conversation_id)
    stream.last_seq += 1
    EventStream.objects.for_tenant(tenant).filter(pk=stream.pk).update(last_seq=stream.last_seq)
    event.seq = stream.last_seq
    event.save(force_insert=True)


def event_publish(*, tenant_id: object, event: EventEnvelope) -> None:
    """Best effort: a client that misses a publication catches up from the table by seq.

    Handed to the process's publisher thread (events/publisher.py): the committing request does
    not wait for Redis."""
    message: GroupMessage = {"type": "conversation.event", "event": event}
    publish([(group_name(tenant_id=tenant_id, conversation_id=event["conversation_id"]), dict(message))])


def events_publish(*, tenant_id: object, events: list[EventEnvelope]) -> None:
    """Several events of one conversation, in order, as one message (the consumer unpacks it)."""
    message: GroupBatchMessage = {"type": "conversation.events", "events": events}
    publish([(group_name(tenant_id=tenant_id, conversation_id=events[0]["conversation_id"]), dict(message))])
