"""Websocket URL patterns, gathered from the apps that serve them."""

websocket_urlpatterns: list = []
