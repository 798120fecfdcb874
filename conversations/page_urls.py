"""The chat page and its login/logout, included at `/` by config/urls.py."""

from django.urls import path

from . import pages

urlpatterns = [
    path("", pages.ChatPageView.as_view(), name="chat"),
    path("login/", pages.ChatLoginView.as_view(), name="chat-login"),
    path("logout/", pages.ChatLogoutView.as_view(), name="chat-logout"),
]
