from django.urls import path

from . import apis

urlpatterns = [
    path("me", apis.MeApi.as_view(), name="tenancy-me"),
    path("switch", apis.SwitchTenantApi.as_view(), name="tenancy-switch"),
    path("ws-ticket", apis.WsTicketApi.as_view(), name="tenancy-ws-ticket"),
]
