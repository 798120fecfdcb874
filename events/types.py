"""Payload shapes shared by the producer (event_append) and the websocket consumer."""

from __future__ import annotations

from typing import Any, TypedDict


class EventEnvelope(TypedDict):
    """PRD-010 §32, as sent to clients."""

    id: str
    conversation_id: str
    seq: int
    type: str
    operation_id: str | None
    timestamp: str
    actor: str
    payload: dict[str, Any]
    state_version: int


class GroupMessage(TypedDict):
    type: str  # "conversation.event": the consumer's handler name
    event: EventEnvelope


class GroupBatchMessage(TypedDict):
    type: str  # "conversation.events": the events one commit appended to one conversation, in order
    events: list[EventEnvelope]
