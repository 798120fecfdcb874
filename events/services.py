"""Appending to the conversation event log.

`seq` is gap-free per conversation: the stream row is locked for the length of the caller's
transaction, so concurrent writers (a turn and a Celery worker's progress) serialise on it and a
rolled-back transaction gives its number back. Publication to the channel layer happens after
commit; two commits can still publish out of order, so consumers deliver by `seq` and fill a gap
from the table (events_after), which is the source of truth.
"""

from __future__ import annotations

import uuid
from typing import Any

import structlog
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.utils import timezone

from tenancy.models import Tenant

from .models import ConversationEvent, EventStream
from .selectors import envelope, group_name
from .types import EventEnvelope, GroupMessage

log = structlog.get_logger(__name__)


def stream_open(*, tenant: Tenant, conversation_id: uuid.UUID) -> EventStream:
    stream, _ = EventStream.objects.for_tenant(tenant).get_or_create(tenant=tenant, conversation_id=conversation_id)
    return stream


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
    with transaction.atomic():
        stream = (
            EventStream.objects.for_tenant(tenant).select_for_update().filter(conversation_id=conversation_id).first()
        )
        if stream is None:
            stream_open(tenant=tenant, conversation_id=conversation_id)
            stream = EventStream.objects.for_tenant(tenant).select_for_update().get(conversation_id=conversation_id)
        stream.last_seq += 1
        EventStream.objects.for_tenant(tenant).filter(pk=stream.pk).update(last_seq=stream.last_seq)
        event = ConversationEvent.objects.create(
            tenant=tenant,
            conversation_id=conversation_id,
            seq=stream.last_seq,
            type=type,
            actor=actor,
            payload=payload or {},
            state_version=state_version,
            operation_id=operation_id,
            timestamp=timezone.now(),
        )
        message = envelope(event)
        transaction.on_commit(lambda: event_publish(tenant_id=tenant.pk, event=message))
    return event


def event_publish(*, tenant_id: object, event: EventEnvelope) -> None:
    """Best effort: a client that misses a publication catches up from the table by seq."""
    layer = get_channel_layer()
    if layer is None:
        return
    message: GroupMessage = {"type": "conversation.event", "event": event}
    try:
        async_to_sync(layer.group_send)(
            group_name(tenant_id=tenant_id, conversation_id=event["conversation_id"]), message
        )
    except Exception:  # noqa: BLE001 - the committed event stays the source of truth
        log.warning("event_publish_failed", conversation_id=event["conversation_id"], seq=event["seq"])
