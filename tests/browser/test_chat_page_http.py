"""The chat page over plain HTTP: who gets it, which conversation it opens, what it never shows."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from conftest import make_tenant, make_user
from conversations.services import conversation_create
from tenancy.models import Role

pytestmark = pytest.mark.django_db


def boot_of(response) -> dict:
    match = re.search(r'<script id="chat-boot" type="application/json">(.*?)</script>', response.content.decode(), re.S)
    assert match, response.content[:500]
    return json.loads(match.group(1))


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_logged_out_visitor_is_sent_to_the_login_page_and_lands_on_the_chat_after_login(operator):
    response = Client().get("/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    client = Client()
    login = client.post("/login/", {"username": operator.username, "password": "pw-12345678"})
    assert login.status_code == 302 and login["Location"] == "/"
    assert client.get("/").status_code == 200


def test_a_wrong_password_shows_the_error_in_portuguese(operator):
    response = Client().post("/login/", {"username": operator.username, "password": "wrong"})
    assert response.status_code == 200
    assert "Usuário ou senha inválidos." in response.content.decode()


def test_the_page_is_portuguese_by_default_and_english_on_request(operator):
    client = logged_in(operator)
    page = client.get("/").content.decode()
    assert '<html lang="pt-BR">' in page and "Contexto da interface (simulado)" in page
    english = client.get("/?lang=en").content.decode()
    assert '<html lang="en">' in english and "Interface context (simulated)" in english
    assert boot_of(client.get("/"))["language"] == "en"  # remembered in the session


def test_the_page_reopens_the_users_latest_conversation_and_new_starts_another(operator, tenant):
    client = logged_in(operator)
    first = boot_of(client.get("/"))["conversation_id"]
    assert boot_of(client.get("/"))["conversation_id"] == first
    second = boot_of(client.get("/?new=1"))["conversation_id"]
    assert second != first
    assert boot_of(client.get(f"/?c={first}"))["conversation_id"] == first


def test_another_users_conversation_id_in_the_url_is_never_opened(operator, tenant, supervisor, other_user,
                                                                   other_tenant):
    theirs = conversation_create(tenant=tenant, user=supervisor)
    foreign = conversation_create(tenant=other_tenant, user=other_user)
    client = logged_in(operator)
    for conversation in (theirs, foreign):
        boot = boot_of(client.get(f"/?c={conversation.pk}"))
        assert boot["conversation_id"] != str(conversation.pk)
        assert str(conversation.pk) not in client.get(f"/?c={conversation.pk}").content.decode()


def test_a_user_of_several_tenants_picks_one_first_and_then_gets_the_chat(tenant):
    user = make_user(tenant, Role.OPERATOR, "two-hats")
    second = make_tenant("Second")
    from tenancy.services import membership_grant

    membership_grant(user=user, tenant=second, role=Role.VIEWER)
    client = logged_in(user)
    picker = client.get("/").content.decode()
    assert "Escolha a organização" in picker and second.name in picker and 'id="chat-boot"' not in picker
    csrf = client.cookies["csrftoken"].value
    switched = client.post("/api/tenancy/switch", {"tenant": str(second.pk)}, content_type="application/json",
                           HTTP_X_CSRFTOKEN=csrf)
    assert switched.status_code == 200
    assert boot_of(client.get("/"))["conversation_id"]


def test_history_shows_what_was_said_and_the_page_carries_no_token_or_secret(operator, tenant):
    client = logged_in(operator)
    conversation_id = boot_of(client.get("/"))["conversation_id"]
    csrf = client.cookies["csrftoken"].value
    client.post(f"/agent/conversations/{conversation_id}/messages", {"text": "olá"},
                content_type="application/json", HTTP_X_CSRFTOKEN=csrf)
    page = client.get("/")
    boot = boot_of(page)
    assert [item["text"] for item in boot["history"]] == ["olá"]
    assert boot["history"][0]["response"]["message"]
    html = page.content.decode().lower()
    assert "token " not in html and "sessionid" not in html and "secret" not in html


def test_the_panels_permit_list_comes_from_the_sst_api_with_the_page_session(operator, tenant):
    from sst import services as sst

    company = sst.company_create(tenant=tenant, name="Beta Obras")
    sst.permit_create(tenant=tenant, company=company, number="4242", validity_days=5)
    client = logged_in(operator)
    client.get("/")
    response = client.get("/api/sst/permits", HTTP_ACCEPT="application/json")
    assert response.status_code == 200, response.content
    assert [p["number"] for p in response.json()] == ["4242"]
