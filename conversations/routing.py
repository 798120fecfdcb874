"""Websocket routes of the conversation runtime (config/routing.py gathers them)."""

from django.urls import path

from .consumers import ConversationConsumer

websocket_urlpatterns = [
    path("ws/agent/conversations/<str:conversation_id>/", ConversationConsumer.as_asgi()),
]
