"""What a fifth fresh blind corpus found (bench/corpus/tuning/fresh_2026_12_a[q-t].yaml, 360 cases written without
reading the agent; 0.831 on its first run): a check of the proposal then a yes ("é a 802, né? pode mandar") read as
something else — and never as a yes when the check names another item; numbers dictated in English ("permit eight oh
two"); a no that an apology closes ("no sorry 35" denied the 35); "wait, make that inspection 79" read as naming an
inspector; formal yeses and undos ("de acordo, pode prosseguir", "kindly undo the same"); a request in the passive
("Solicito que seja removido o componente …"). Each failed before its change."""

from __future__ import annotations

import pytest

from .conftest import answer_to_a_proposal, inspection_78

pytestmark = pytest.mark.django_db


def _kind(turn) -> str:
    return turn["response"]["type"]


def _proposed(turn) -> str:
    return str((turn["response"].get("confirmation") or {}).get("message") or turn["response"]["message"])


@pytest.mark.parametrize("check", ["é a 802, né? pode mandar", "that's going on 802, right? ok go ahead",
                                   "is that it? ok go", "vai mudar só a validade, certo? então pode",
                                   # formal yeses
                                   "De acordo, pode prosseguir.", "Ok, do the needful."])
def test_a_check_of_the_proposal_then_a_yes_confirms(world, operator_client, start, talk, check):
    turn = answer_to_a_proposal(operator_client, start, talk, check)

    assert _kind(turn) == "execution", turn["response"]
    world.p802.refresh_from_db()
    assert world.p802.validity_days == 31


@pytest.mark.parametrize("check", ["é a 771, né? pode mandar", "that's going on 771, right? ok go ahead",
                                   "é a da Omega, né? pode mandar", "so it's 45 days, right? ok go",
                                   "vai aprovar ela também, né? pode", "não é a 802, né? pode mandar",
                                   "it's not going on 802, right? ok go"])
def test_a_check_that_says_what_the_proposal_lacks_never_confirms(world, operator_client, start, talk, check):
    turn = answer_to_a_proposal(operator_client, start, talk, check)

    assert _kind(turn) != "execution", turn["response"]
    world.p802.refresh_from_db()
    assert world.p802.validity_days == 20


@pytest.mark.parametrize(("say", "number"), [("open permit eight oh two", "802"),
                                             ("what's the validity of permit seven seventy one of Omega", "771")])
def test_a_number_dictated_in_english(world, operator_client, start, talk, say, number):
    turn = talk(operator_client, start(operator_client), say)

    assert number in turn["response"]["message"], turn["response"]


@pytest.mark.parametrize("correction", ["no sorry 35", "no no, 35", "não desculpa, 35"])
def test_a_no_closed_by_an_apology_then_the_value(world, operator_client, start, talk, correction):
    conversation = start(operator_client)
    talk(operator_client, conversation, "mude a validade da permissão 802 para 30 dias")
    turn = talk(operator_client, conversation, correction)

    assert "35" in _proposed(turn), turn["response"]


def test_make_that_another_item(world, operator_client, start, talk):
    inspection_78(world)
    conversation = start(operator_client)
    talk(operator_client, conversation, "reschedule inspection 78 to 20 days from now")
    turn = talk(operator_client, conversation, "wait, make that inspection 79")

    assert "79" in _proposed(turn) and "78" not in _proposed(turn), turn["response"]


def test_kindly_undo_the_same(world, operator_client, start, talk):
    conversation = start(operator_client)
    talk(operator_client, conversation, "adicione o componente ruído na permissão 802")
    talk(operator_client, conversation, "sim")
    turn = talk(operator_client, conversation, "Sorry, kindly undo the same.")

    assert "ruído" in _proposed(turn).lower() and turn["response"].get("confirmation"), turn["response"]


def test_a_request_in_the_passive(world, operator_client, start, talk):
    conversation = start(operator_client)
    talk(operator_client, conversation, "adicione o componente ruído na permissão 802")
    talk(operator_client, conversation, "sim")
    turn = talk(operator_client, conversation, "Solicito que seja removido o componente Ruído da permissão 802.")

    assert turn["response"].get("confirmation"), turn["response"]
    assert "remov" in _proposed(turn).lower()


@pytest.mark.parametrize("question", ["a 802 tá aprovada ou não", "is permit 802 approved or what"])
def test_a_state_question_with_an_or_not_tail_is_answered_never_proposed(world, supervisor_client, start, talk,
                                                                         question):
    turn = talk(supervisor_client, start(supervisor_client), question)

    assert _kind(turn) == "answer" and not turn["response"].get("confirmation"), turn["response"]
