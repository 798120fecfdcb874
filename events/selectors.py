from __future__ import annotations

import uuid

from tenancy.models import Tenant

from .models import ConversationEvent
from .types import EventEnvelope


def envelope(event: ConversationEvent) -> EventEnvelope:
    return {
        "id": str(event.id),
        "conversation_id": str(event.conversation_id),
        "seq": event.seq,
        "type": event.type,
        "operation_id": str(event.operation_id) if event.operation_id else None,
        "timestamp": event.timestamp.isoformat(),
        "actor": event.actor,
        "payload": event.payload,
        "state_version": event.state_version,
    }


def events_after(
    *, tenant: Tenant, conversation_id: uuid.UUID, after_seq: int = 0, limit: int = 500
) -> list[EventEnvelope]:
    """The conversation's events with seq > after_seq, in order (replay after a reconnect)."""
    rows = (
        ConversationEvent.objects.for_tenant(tenant)
        .filter(conversation_id=conversation_id, seq__gt=after_seq)
        .order_by("seq")[:limit]
    )
    return [envelope(row) for row in rows]


def group_name(*, tenant_id: object, conversation_id: object) -> str:
    """The channel-layer group of one conversation, derived from its tenant so ids never collide across tenants."""
    return f"conv.{uuid.UUID(str(tenant_id)).hex}.{uuid.UUID(str(conversation_id)).hex}"
