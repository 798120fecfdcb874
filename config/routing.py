"""Websocket URL patterns, gathered from the apps that serve them."""

from conversations.routing import websocket_urlpatterns as conversations_ws

websocket_urlpatterns = [*conversations_ws]
