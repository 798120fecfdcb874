"""A question opened by a question word is never a request for the write its verb names: "o que foi
adicionado na 802?" lists what was added; "who approved permit 802?" proposes nothing."""

from __future__ import annotations

import pytest

from sst import services as sst


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("text", ["o que foi adicionado na permissão 802?", "what was added to permit 802?"])
def test_what_was_added_is_listed(world, operator_client, start, talk, text):
    sst.permit_component_add(tenant=world.tenant, permit_id=world.p802.pk, component_type=world.weld)
    conversation = start(operator_client)
    turn = talk(operator_client, conversation, text)
    assert turn["response"]["confirmation"] is None, turn["response"]
    assert "Solda Elétrica" in turn["state"]["last_response"]["message"], turn["state"]["last_response"]


@pytest.mark.parametrize("text", ["who approved permit 802?", "quem cancelou a permissão 802?"])
def test_who_did_it_proposes_nothing(world, supervisor_client, start, talk, text):
    conversation = start(supervisor_client)
    turn = talk(supervisor_client, conversation, text)
    assert turn["status"] != "CONFIRMATION_REQUIRED" and turn["response"]["confirmation"] is None, turn["response"]


def test_a_polite_question_is_still_a_request(world, supervisor_client, start, talk):
    conversation = start(supervisor_client)
    turn = talk(supervisor_client, conversation, "você poderia aprovar a permissão 802?")
    assert turn["status"] == "CONFIRMATION_REQUIRED", turn["response"]


@pytest.mark.parametrize("text", ["what is the validity of permit 802?", "qual a validade da permissão 802?"])
def test_a_question_about_a_field_is_still_answered_or_asked_about(world, operator_client, start, talk, text):
    conversation = start(operator_client)
    turn = talk(operator_client, conversation, text)
    assert turn["response"]["template"] != "clarify.unknown", turn["response"]
    assert turn["response"]["confirmation"] is None
