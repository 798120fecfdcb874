"""A yes or a no to the confirmation on screen, followed by a remark (answer_remark.answer_with_a_remark):
a no with a remark declines, whatever names or pronouns the remark says; a yes whose remark names
another item, or a no opening a correction, is not taken as a plain answer."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def _pending_then(client, start, text):
    conversation = start(client)
    proposal = client.post(f"/agent/conversations/{conversation}/messages",
                           {"text": "mude a validade da 802 para 40 dias"}, format="json").json()
    assert proposal["status"] == "CONFIRMATION_REQUIRED"
    return client.post(f"/agent/conversations/{conversation}/messages", {"text": text}, format="json").json()


@pytest.mark.parametrize("text", ["no thanks, I'll sort it out with Ana Costa later",
                                  "no thanks, I'll sort it out later",
                                  "não, obrigado, eu vejo isso com o Bruno depois", "nah, it can wait"])
def test_a_no_with_a_remark_declines(world, operator_client, start, text):
    turn = _pending_then(operator_client, start, text)
    assert turn["status"] == "CANCELLED", turn["response"]
    world.p802.refresh_from_db()
    assert world.p802.validity_days == 20


@pytest.mark.parametrize("text", ["sim, mas da Omega Serviços", "yes, but the one of Omega Serviços"])
def test_a_yes_whose_remark_names_another_item_runs_nothing(world, operator_client, start, text):
    turn = _pending_then(operator_client, start, text)
    assert turn["status"] != "EXECUTING" and turn["response"]["type"] != "execution", turn["response"]
    world.p802.refresh_from_db()
    assert world.p802.validity_days == 20


def test_a_no_opening_a_correction_corrects(world, operator_client, start):
    turn = _pending_then(operator_client, start, "não, quero 45 dias")
    assert turn["status"] == "CONFIRMATION_REQUIRED" and "45" in turn["response"]["message"], turn["response"]


def test_a_cancel_with_a_remark_drops_the_question_on_screen(world, operator_client, start):
    conversation = start(operator_client)
    asked = operator_client.post(f"/agent/conversations/{conversation}/messages",
                                 {"text": "quero mudar a validade de uma permissão pra 30 dias"}, format="json").json()
    assert asked["status"] == "CLARIFICATION_REQUIRED"
    turn = operator_client.post(f"/agent/conversations/{conversation}/messages",
                                {"text": "ah, cancela isso, falei sem pensar"}, format="json").json()
    assert turn["status"] == "CANCELLED", turn["response"]
