"""The conversation websocket (API.md): `ws/agent/conversations/{id}/?after={seq}`.

- `connect()` authenticates from the scope's tenant context (tenancy.channels: session cookie, token
  header or single-use ticket; a token in the URL is refused there with 4401);
  no context, or a conversation that is not this user's in this tenant, closes with 4403 before
  anything is sent. The group is derived from the tenant and the conversation (events.selectors).
- Events go out in `seq` order, each once: what the client missed (`after`) comes from the table,
  the source of truth, then live ones from the group. Publication happens after commit and two
  commits may publish out of order (a turn and a Celery worker's progress), so a live event that
  skips a number triggers a fill from the table; anything at or below the last sent seq is dropped.
- `{"type": "message", …}` runs a turn like the REST endpoint (same rate limits, same service).
  Before every message the user is checked again (token still valid, still a member, still their
  conversation); a refusal closes the socket with 4403.
- A frame that is not JSON text, or holds invalid Unicode, a control character, an oversized string
  or number (tenancy.parsers, the same rules as every REST body) gets an `invalid_input` error frame
  naming the field paths, then the socket closes with 4400. Nothing is run.
- Every message in both directions is validated against contracts/websocket.schema.json, whose
  SafeObject refuses secret/prompt-like keys at any depth (PRD-034 §70). An outgoing message that
  fails is logged and not sent: a client then sees a seq gap, never a secret.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, Literal, NotRequired, TypedDict
from urllib.parse import parse_qs

import structlog
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from jsonschema import Draft202012Validator

from events.selectors import group_name
from events.types import EventEnvelope, GroupBatchMessage, GroupMessage
from tenancy.channels import context_still_valid
from tenancy.context import TenantContext
from tenancy.parsers import CLOSE_INVALID_INPUT, frame_parse

from .ratelimit import turn_allowed
from .services import ConversationNotFound, conversation_events, conversation_get, conversation_turn
from .turns import VersionConflict

log = structlog.get_logger(__name__)

SCHEMA_PATH = Path(settings.BASE_DIR) / "contracts" / "websocket.schema.json"
CLOSE_FORBIDDEN = 4403
REPLAY_PAGE = 500  # events.selectors.events_after's default limit
RELAYED = {"conversation.event": "conversation_event", "conversation.events": "conversation_events"}


class ClientMessage(TypedDict):
    type: Literal["message"]
    text: str
    ui_context: NotRequired[dict[str, Any] | None]
    client_message_id: NotRequired[str | None]
    expected_version: NotRequired[int]


class TurnMessage(TypedDict):
    type: Literal["turn"]
    turn_id: str | None
    conversation_id: str
    status: str
    version: int
    response: dict[str, Any]
    events: list[EventEnvelope]
    metrics: dict[str, Any]
    client_message_id: str | None


class ErrorMessage(TypedDict):
    type: Literal["error"]
    code: Literal["invalid", "invalid_input", "rate_limited", "version_conflict"]
    detail: dict[str, str]
    errors: NotRequired[dict[str, list[str]]]
    client_message_id: NotRequired[str | None]
    retry_after: NotRequired[int]


ERRORS: dict[str, dict[str, str]] = {
    "invalid": {"pt-BR": "Mensagem inválida: esperado {type: \"message\", text}.",
                "en": "Invalid message: expected {type: \"message\", text}."},
    "rate_limited": {"pt-BR": "Muitas mensagens; tente de novo em instantes.",
                     "en": "Too many messages; try again shortly."},
    "version_conflict": {"pt-BR": "A conversa mudou; leia o estado e tente de novo.",
                         "en": "The conversation changed; read its state and try again."},
}


@cache
def validator(definition: str) -> Draft202012Validator:
    """A compiled validator of one `$defs` entry of the contract."""
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return Draft202012Validator({**schema, "$ref": f"#/$defs/{definition}"})


_texts: dict[tuple[str, int], str | None] = {}
TEXT_CACHE_SIZE = 4096


def event_text(event: EventEnvelope | dict[str, Any]) -> str | None:
    """The event as the frame's JSON text, or None when the contract refuses it.

    Once per process and event: the log is append-only, so an event's id (and seq) names its
    content for good, and the hundreds of sockets of one conversation in this process relay the
    same text instead of each serializing and validating it (that was most of a relay's cost)."""
    key = (str(event["id"]), int(event["seq"]))
    if key not in _texts:
        text = json.dumps(event, default=str)
        if len(_texts) >= TEXT_CACHE_SIZE:
            _texts.pop(next(iter(_texts)))  # the oldest: dicts keep insertion order
        _texts[key] = text if validator("ServerMessage").is_valid(json.loads(text)) else None
    return _texts[key]


def outgoing_is_valid(message: dict[str, Any]) -> bool:
    if "seq" in message and "id" in message:
        return event_text(message) is not None
    return validator("ServerMessage").is_valid(message)


class ConversationConsumer(AsyncJsonWebsocketConsumer):
    group: str | None = None
    context: TenantContext | None = None
    conversation_id: str = ""
    last_seq: int = 0

    async def connect(self) -> None:
        context: TenantContext | None = self.scope.get("tenant_context")
        self.conversation_id = str(self.scope["url_route"]["kwargs"]["conversation_id"])
        if context is None or not await self._owns(context):
            await self.close(code=CLOSE_FORBIDDEN)
            return
        self.context = context
        self.group = group_name(tenant_id=context.tenant.pk, conversation_id=self.conversation_id)
        # Join before reading the table: an event committed in between is then either in the
        # replay or queued for us (and dropped by seq if it was both).
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        self.last_seq = self._after()
        await self._replay()

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def dispatch(self, message: dict[str, Any]) -> None:
        # channels runs close_old_connections in a worker thread before every handler: one thread
        # hop per socket per event, queued behind each other on the single thread-sensitive executor
        # (the largest share of a 500-socket fan-out). Relaying an event touches no connection — a
        # gap's replay goes through database_sync_to_async, which closes them around itself.
        if message["type"] in RELAYED:
            await getattr(self, RELAYED[message["type"]])(message)
            return
        await super().dispatch(message)

    async def conversation_events(self, message: GroupBatchMessage) -> None:
        """The events one commit appended, in order (events.services.events_publish)."""
        for event in message["events"]:
            await self.conversation_event({"type": "conversation.event", "event": event})

    async def conversation_event(self, message: GroupMessage) -> None:
        event = message["event"]
        if self.context is None or event.get("conversation_id") != self.conversation_id:
            return
        if event["seq"] <= self.last_seq:
            return
        if event["seq"] > self.last_seq + 1:
            await self._replay()  # a gap: fill it from the table, in order
            return
        await self._send_event(event)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any) -> None:
        """A frame that is not JSON text, or breaks tenancy.parsers' input rules: an error frame, then 4400."""
        if self.context is None:
            return
        frame = frame_parse(text_data, bytes_data)
        if frame.problems:
            await self._send(frame.error_message())
            await self.close(code=CLOSE_INVALID_INPUT)
            return
        await self.receive_json(frame.document, **kwargs)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if self.context is None:
            return
        if not await self._still_allowed():
            await self.close(code=CLOSE_FORBIDDEN)
            return
        if not validator("ClientMessage").is_valid(content):
            cid = content.get("client_message_id") if isinstance(content, dict) else None
            await self._send({"type": "error", "code": "invalid", "detail": ERRORS["invalid"],
                              "client_message_id": cid if isinstance(cid, str) else None})
            return
        await self._turn(content)

    async def _turn(self, content: ClientMessage) -> None:
        context = self.context
        assert context is not None
        client_message_id = content.get("client_message_id")
        wait = await database_sync_to_async(turn_allowed)(user=context.user, tenant=context.tenant)
        if wait is not None:
            await self._send({"type": "error", "code": "rate_limited", "detail": ERRORS["rate_limited"],
                              "retry_after": int(wait), "client_message_id": client_message_id})
            return
        try:
            turn = await database_sync_to_async(conversation_turn)(
                tenant=context.tenant, user=context.user, conversation_id=self.conversation_id,
                text=content["text"], ui_context=content.get("ui_context"), client_message_id=client_message_id,
                expected_version=content.get("expected_version"))
        except ConversationNotFound:
            await self.close(code=CLOSE_FORBIDDEN)
            return
        except VersionConflict:
            await self._send({"type": "error", "code": "version_conflict", "detail": ERRORS["version_conflict"],
                              "client_message_id": client_message_id})
            return
        # The turn's own events first, in order, so the client's seq never goes backwards.
        await self._replay()
        message: TurnMessage = {"type": "turn", **turn, "client_message_id": client_message_id}  # type: ignore[typeddict-item]
        await self._send(dict(message))

    async def _replay(self) -> None:
        """Everything after last_seq from the table, a page at a time (events_after caps a page)."""
        assert self.context is not None
        while True:
            events = await database_sync_to_async(conversation_events)(
                tenant=self.context.tenant, user=self.context.user, conversation_id=self.conversation_id,
                after=self.last_seq)
            for event in events:
                if event["seq"] > self.last_seq:
                    await self._send_event(event)
            if len(events) < REPLAY_PAGE:
                return

    async def _send_event(self, event: EventEnvelope | dict[str, Any]) -> None:
        self.last_seq = int(event["seq"])
        text = event_text(event)
        if text is None:
            self._refused(event)
            return
        await self.send(text_data=text)

    async def _send(self, message: dict[str, Any]) -> None:
        if not outgoing_is_valid(message):
            self._refused(message)
            return
        await self.send_json(message)

    def _refused(self, message: EventEnvelope | dict[str, Any]) -> None:
        log.error("ws_message_refused_by_contract", conversation_id=self.conversation_id,
                  seq=message.get("seq"), type=message.get("type"))

    @database_sync_to_async
    def _owns(self, context: TenantContext) -> bool:
        try:
            conversation_get(tenant=context.tenant, user=context.user, conversation_id=self.conversation_id)
        except ConversationNotFound:
            return False
        return True

    @database_sync_to_async
    def _still_allowed(self) -> bool:
        """The connect-time check again: a revoked token, a removed membership or user ends the socket."""
        context = self.context
        if context is None or not context_still_valid(scope=self.scope, context=context):
            return False
        try:
            conversation_get(tenant=context.tenant, user=context.user, conversation_id=self.conversation_id)
        except ConversationNotFound:
            return False
        return True

    def _after(self) -> int:
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        try:
            return max(0, int(query.get("after", ["0"])[0]))
        except ValueError:
            return 0
