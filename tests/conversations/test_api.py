"""The REST API: shape, idempotency, version conflicts, rate limits, and isolation on every endpoint."""

from __future__ import annotations

import uuid

import pytest

from conftest import client_for, make_user
from tenancy.models import Role

ENDPOINTS = [("get", ""), ("post", "/messages"), ("post", "/confirm"), ("post", "/cancel"), ("post", "/undo"),
             ("post", "/resume"), ("get", "/events")]


def _call(client, method: str, conversation_id: str, suffix: str):
    body = {"text": "sim"} if suffix == "/messages" else {"confirmation_id": str(uuid.uuid4())} \
        if suffix == "/confirm" else {}
    url = f"/agent/conversations/{conversation_id}{suffix}"
    return client.get(url) if method == "get" else client.post(url, body, format="json")


@pytest.mark.parametrize(("method", "suffix"), ENDPOINTS)
def test_another_tenants_conversation_is_not_found_on_every_endpoint(registry, operator_client, other_client, start,
                                                                     method, suffix):
    conversation_id = start(operator_client)
    response = _call(other_client, method, conversation_id, suffix)
    assert (response.status_code, response.json()["code"]) == (404, "not_found")


@pytest.mark.parametrize(("method", "suffix"), ENDPOINTS)
def test_another_users_conversation_in_the_same_tenant_is_not_found(registry, tenant, operator_client, start,
                                                                     method, suffix):
    conversation_id = start(operator_client)
    colleague = client_for(make_user(tenant, Role.SUPERVISOR), tenant)
    response = _call(colleague, method, conversation_id, suffix)
    assert response.status_code == 404


def test_a_forged_conversation_id_is_a_404_not_a_500(registry, operator_client):
    assert operator_client.get("/agent/conversations/not-a-uuid").status_code == 404
    assert operator_client.post("/agent/conversations/not-a-uuid/messages", {"text": "oi"},
                                format="json").status_code == 404


def test_anonymous_requests_are_refused(client):
    assert client.post("/agent/conversations", {}, content_type="application/json").status_code in (401, 403)


def test_a_new_conversation_starts_idle_at_version_one(registry, operator_client):
    body = operator_client.post("/agent/conversations", {}, format="json").json()
    assert (body["status"], body["version"]) == ("IDLE", 1)


def test_a_turn_has_the_documented_shape_and_bumps_the_version(world, operator_client, start, talk):
    conversation_id = start(operator_client)
    turn = talk(operator_client, conversation_id, "abra a permissao 802")
    assert set(turn) >= {"turn_id", "conversation_id", "status", "version", "response", "events", "metrics"}
    assert turn["version"] == 2 and turn["metrics"]["llm_calls"] == 0 and turn["metrics"]["fast_path"] is True
    assert [e["type"] for e in turn["events"]][0] == "MESSAGE_RECEIVED"
    assert turn["response"]["navigation"]["entity"]["label"] == "802"


def test_the_same_client_message_id_twice_returns_the_first_turn_and_does_nothing_else(world, operator_client, start,
                                                                                        talk):
    conversation_id = start(operator_client)
    first = talk(operator_client, conversation_id, "abra a permissão 802", body={"client_message_id": "m-1"})
    again = talk(operator_client, conversation_id, "abra a permissão 802", body={"client_message_id": "m-1"})
    assert again["turn_id"] == first["turn_id"] and again["state"]["version"] == first["version"]


def test_a_turn_on_a_stale_version_is_refused_with_409(world, operator_client, start, talk):
    conversation_id = start(operator_client)
    talk(operator_client, conversation_id, "abra a permissão 802")
    response = operator_client.post(f"/agent/conversations/{conversation_id}/messages",
                                    {"text": "abra a permissão 771", "expected_version": 1}, format="json")
    assert (response.status_code, response.json()["code"]) == (409, "version_conflict")


def test_too_many_turns_answer_429_with_retry_after(world, operator_client, start, settings):
    settings.AGENT_RATE_USER_PER_MINUTE = 2
    conversation_id = start(operator_client)
    codes = [operator_client.post(f"/agent/conversations/{conversation_id}/messages", {"text": "oi"},
                                  format="json") for _ in range(3)]
    assert [c.status_code for c in codes] == [200, 200, 429]
    assert int(codes[-1]["Retry-After"]) >= 1


def test_events_replay_after_a_sequence_number(world, operator_client, start, talk):
    conversation_id = start(operator_client)
    turn = talk(operator_client, conversation_id, "abra a permissão 802")
    first_seq = turn["events"][0]["seq"]
    replay = operator_client.get(f"/agent/conversations/{conversation_id}/events?after={first_seq}").json()
    assert [e["seq"] for e in replay["events"]] == [e["seq"] for e in turn["events"][1:]]


def test_a_body_without_text_is_a_400(registry, operator_client, start):
    conversation_id = start(operator_client)
    response = operator_client.post(f"/agent/conversations/{conversation_id}/messages", {}, format="json")
    assert (response.status_code, response.json()["code"]) == (400, "invalid")
