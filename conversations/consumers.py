"""The conversation websocket (API.md): `ws/agent/conversations/{id}/?after={seq}`.

Authenticated in `connect()` from the scope's tenant context (session or token); a conversation
that is not the user's closes with 4403. The client gets the events it missed (from the table,
the source of truth) and then every new one pushed to the tenant-derived group; a message
`{"type": "message", ...}` runs a turn like the REST endpoint, re-checking the user each time.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from events.selectors import group_name
from events.types import GroupMessage

from .services import ConversationNotFound, conversation_events, conversation_get, conversation_turn


class ConversationConsumer(AsyncJsonWebsocketConsumer):
    group: str | None = None
    last_seq: int = 0

    async def connect(self) -> None:
        context = self.scope.get("tenant_context")
        conversation_id = self.scope["url_route"]["kwargs"]["conversation_id"]
        if context is None or not await self._owns(context, conversation_id):
            await self.close(code=4403)
            return
        self.context, self.conversation_id = context, conversation_id
        self.group = group_name(tenant_id=context.tenant.pk, conversation_id=conversation_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        self.last_seq = self._after()
        await self._replay()

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def conversation_event(self, message: GroupMessage) -> None:
        event = message["event"]
        if event["seq"] <= self.last_seq:
            return
        if event["seq"] > self.last_seq + 1:
            await self._replay()  # a gap: fill it from the table, in order
            return
        self.last_seq = event["seq"]
        await self.send_json(event)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if not isinstance(content, dict) or content.get("type") != "message" or not isinstance(content.get("text"),
                                                                                                  str):
            await self.send_json({"type": "error", "code": "invalid", "detail": "Expected {type: message, text}."})
            return
        try:
            turn = await database_sync_to_async(conversation_turn)(
                tenant=self.context.tenant, user=self.context.user, conversation_id=self.conversation_id,
                text=content["text"][:4000], ui_context=content.get("ui_context"),
                client_message_id=content.get("client_message_id"))
        except ConversationNotFound:
            await self.close(code=4403)
            return
        await self.send_json({"type": "turn", **turn})

    async def _replay(self) -> None:
        events = await database_sync_to_async(conversation_events)(
            tenant=self.context.tenant, user=self.context.user, conversation_id=self.conversation_id,
            after=self.last_seq)
        for event in events:
            self.last_seq = max(self.last_seq, event["seq"])
            await self.send_json(event)

    @database_sync_to_async
    def _owns(self, context: Any, conversation_id: str) -> bool:
        try:
            conversation_get(tenant=context.tenant, user=context.user, conversation_id=conversation_id)
        except ConversationNotFound:
            return False
        return True

    def _after(self) -> int:
        from urllib.parse import parse_qs

        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        try:
            return max(0, int(query.get("after", ["0"])[0]))
        except ValueError:
            return 0
