"""What the fourteenth session mended: a yes said with the editor's verb for keeping a change ("pode gravar",
"save it") and a thanks after it. "Pode gravar, obrigado." had been answered as a thanks that set the pending
request aside, and "Pode gravar." was not understood. Each test failed before its change. (Permit 802 has 20
days; the proposal is 31.)"""

from __future__ import annotations

import pytest

from .conftest import answer_to_a_proposal

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("answer", [
    "Pode gravar, obrigado.",
    "Pode gravar.",
    "pode salvar, valeu",
    "salva aí",
    "Go ahead and save it, thank you.",
    "save it please",
])
def test_a_yes_said_as_keep_the_change_runs_the_proposal(world, supervisor_client, start, talk, answer):
    turn = answer_to_a_proposal(supervisor_client, start, talk, answer)

    assert turn["response"]["type"] == "execution", turn["response"]
    assert "31" in turn["response"]["message"], turn["response"]


@pytest.mark.parametrize("answer", ["salva com 40 dias", "não salva não"])
def test_keep_the_change_with_another_value_or_a_no_is_not_a_yes(world, supervisor_client, start, talk, answer):
    turn = answer_to_a_proposal(supervisor_client, start, talk, answer)

    assert turn["response"]["type"] != "execution" or "31" not in turn["response"]["message"], turn["response"]
    world.p802.refresh_from_db()
    assert world.p802.validity_days == 20


@pytest.mark.parametrize(("said", "template"), [
    ("perfect, thanks", "social.thanks"), ("Perfect, thank you!", "social.thanks"), ("ok thanks", "social.thanks"),
])
def test_a_yes_with_a_thanks_and_nothing_to_confirm_is_a_thanks(world, supervisor_client, start, talk, said, template):
    """"perfect, thanks" after an answer: the thanks is answered, never "there is nothing to confirm"."""
    conversation = start(supervisor_client)
    talk(supervisor_client, conversation, "qual a validade da permissão 802?")
    turn = talk(supervisor_client, conversation, said)

    assert turn["response"]["type"] == "answer", turn["response"]
    assert turn["response"].get("template") == template, turn["response"]


def test_a_bare_yes_with_nothing_to_confirm_still_says_so(world, supervisor_client, start, talk):
    conversation = start(supervisor_client)
    turn = talk(supervisor_client, conversation, "sim")

    assert turn["response"]["type"] == "error" and turn["response"]["error"]["code"] == "NOTHING_PENDING", turn
