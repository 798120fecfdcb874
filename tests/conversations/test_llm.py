"""The LLM intent parser against a fake OpenAI-compatible server on a real loopback socket: used only
for what the fast path cannot parse, validated like user input, counted; absent or failing → a
clarification, never an invented answer; deterministic turns never wait for it."""

from __future__ import annotations

import json

import pytest

from .conftest import selection

UNPARSED = "preciso daquilo de solda la na 802"


def test_an_unparsed_message_goes_to_the_llm_and_its_intent_is_resolved_with_tenant_data(
        world, operator_client, start, talk, fake_llm):
    fake_llm.content = json.dumps({"capability": "workPermit.components.add",
                                   "slots": {"permit": "802", "component": "solda eletrica"}})
    conversation = start(operator_client)
    turn = talk(operator_client, conversation, UNPARSED)
    assert (turn["status"], turn["metrics"]["llm_calls"], turn["metrics"]["fast_path"]) == (
        "CONFIRMATION_REQUIRED", 1, False)
    assert "Solda Elétrica" in turn["response"]["message"]
    sent = fake_llm.last_user_message
    assert set(sent["context"]) >= {"topic", "active_entity", "pending_confirmation", "ui"}
    assert "history" not in sent["context"]


def test_an_llm_answer_naming_an_unknown_capability_is_not_trusted(world, viewer_client, start, talk, fake_llm):
    fake_llm.content = json.dumps({"capability": "workPermit.delete", "slots": {"permit": "802"}})
    conversation = start(viewer_client)
    turn = talk(viewer_client, conversation, UNPARSED)
    assert turn["response"]["type"] == "clarification" and turn["response"]["confirmation"] is None


def test_a_failing_llm_gives_a_clarification_and_opens_the_breaker(world, operator_client, start, talk, fake_llm):
    from conversations import llm_breaker

    llm_breaker.reset()
    fake_llm.status = 500
    conversation = start(operator_client)
    calls = []
    for _ in range(4):
        turn = talk(operator_client, conversation, UNPARSED)
        assert turn["response"]["type"] == "clarification"
        calls.append(turn["metrics"]["llm_calls"])
    llm_breaker.reset()
    assert calls == [1, 1, 1, 0]


def test_without_an_llm_the_reply_is_a_clarification(world, operator_client, start, talk):
    conversation = start(operator_client)
    turn = talk(operator_client, conversation, UNPARSED)
    assert (turn["response"]["type"], turn["metrics"]["llm_calls"]) == ("clarification", 0)


@pytest.mark.django_db(transaction=True)
def test_deterministic_turns_never_call_the_configured_llm(world, operator_client, start, talk, fake_llm):
    conversation = start(operator_client)
    for text in ["abre a permissao 802", "mude a validade para 31 dias", "sim", "desfaça", "cancela"]:
        turn = talk(operator_client, conversation, text, ui=selection(world.p802))
        assert turn["metrics"]["llm_calls"] == 0, text
    assert fake_llm.requests == []
