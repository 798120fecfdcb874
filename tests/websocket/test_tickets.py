"""Websocket authentication without a token in the URL (issue #16 point 3), attacked: a token in the
query string, a forged, replayed, expired or foreign ticket, a ticket whose token was revoked."""

from __future__ import annotations

import pytest
import time_machine
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from config.asgi import application
from conversations.services import conversation_create
from tenancy.models import AccessToken
from tenancy.services import access_token_issue

from .conftest import ORIGIN, Socket

CLOSE_UNAUTHENTICATED, CLOSE_FORBIDDEN = 4401, 4403
pytestmark = pytest.mark.django_db(transaction=True)  # the consumer reads through its own connections


def _socket(conversation_id, query: str, *, token: str | None = None) -> WebsocketCommunicator:
    headers = [ORIGIN] + ([(b"authorization", f"Token {token}".encode())] if token else [])
    return Socket(application, f"/ws/agent/conversations/{conversation_id}/?{query}", headers=headers)


def _connect(communicator) -> tuple[bool, int | None]:
    return async_to_sync(communicator.connect)()


def _ticket(client) -> str:
    response = client.post("/api/tenancy/ws-ticket")
    assert response.status_code == 201, response.content
    assert response["Cache-Control"] == "no-store" and response.json()["expires_in"] == 60
    return response.json()["ticket"]


def test_a_token_in_the_url_is_refused_even_with_a_valid_header(operator, tenant):
    conversation = conversation_create(tenant=tenant, user=operator)
    token = access_token_issue(user=operator, tenant=tenant)
    assert _connect(_socket(conversation.pk, f"token={token}")) == (False, CLOSE_UNAUTHENTICATED)
    assert _connect(_socket(conversation.pk, f"token={token}", token=token)) == (False, CLOSE_UNAUTHENTICATED)


def test_a_ticket_opens_one_socket_once(operator, tenant, operator_client):
    conversation = conversation_create(tenant=tenant, user=operator)
    ticket = _ticket(operator_client)
    first = _socket(conversation.pk, f"ticket={ticket}")

    async def session():
        connected, _ = await first.connect()
        await first.disconnect()
        return connected

    assert async_to_sync(session)()
    assert _connect(_socket(conversation.pk, f"ticket={ticket}")) == (False, CLOSE_UNAUTHENTICATED)  # replay


def test_a_forged_ticket_is_refused(operator, tenant):
    conversation = conversation_create(tenant=tenant, user=operator)
    assert _connect(_socket(conversation.pk, "ticket=forged-ticket-value")) == (False, CLOSE_UNAUTHENTICATED)


def test_an_expired_ticket_is_refused(operator, tenant, operator_client):
    conversation = conversation_create(tenant=tenant, user=operator)
    ticket = _ticket(operator_client)
    with time_machine.travel(timezone.now() + timezone.timedelta(seconds=61), tick=False):
        assert _connect(_socket(conversation.pk, f"ticket={ticket}")) == (False, CLOSE_UNAUTHENTICATED)


def test_a_ticket_opens_only_its_own_users_conversation(operator, tenant, other_user, other_tenant,
                                                         other_client):
    mine = conversation_create(tenant=tenant, user=operator)
    ticket = _ticket(other_client)  # another tenant's user
    assert _connect(_socket(mine.pk, f"ticket={ticket}")) == (False, CLOSE_FORBIDDEN)


def test_a_ticket_asked_with_a_token_dies_with_the_token(operator, tenant):
    from rest_framework.test import APIClient

    conversation = conversation_create(tenant=tenant, user=operator)
    token = access_token_issue(user=operator, tenant=tenant)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    ticket = _ticket(client)
    AccessToken.objects.filter(user=operator).delete()
    assert _connect(_socket(conversation.pk, f"ticket={ticket}")) == (False, CLOSE_UNAUTHENTICATED)
