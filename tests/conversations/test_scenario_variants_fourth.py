"""What a fourth fresh blind corpus found (bench/corpus/tuning/fresh_2026_12_a[m-p].yaml, 360 cases written without
reading the agent; 0.881 and one unsafe proposal on its first run): a formal cancel of the request on screen read
as a cancel of the item ("would you be so kind as to cancel that request?" proposed cancelling the inspection;
"let's leave it there, please; scrap that" cancelling the permit), a remark before the undo, an apology before the
answer, a yes with "por gentileza" after a proposal with free text, "indeed, do go ahead", "não, pensando bem,
deixa como tá", a request phrased as a question after a state told ("…; could you mark it as completed?" answered
"no, it is scheduled"), an increase said with its unit ("aumenta 10 dias"), "by a further ten days", and "ok,
thanks" with nothing to confirm. Each failed before its change."""

from __future__ import annotations

import pytest

from .conftest import answer_to_a_proposal, inspection_78


def _msg(turn) -> str:
    return turn["response"]["message"]


def _kind(turn) -> str:
    return turn["response"]["type"]


def _proposed(turn) -> str:
    return str((turn["response"].get("confirmation") or {}).get("message") or _msg(turn))


def _first(world, client, start, talk, text: str):
    """The first turn of a conversation, with inspections 78 and 79 in the world."""
    inspection_78(world)
    return talk(client, start(client), text)


def _second(world, client, start, talk, first: str, text: str) -> tuple[str, dict]:
    """(conversation, the answer to `text` after `first`), inspections 78 and 79 in the world."""
    inspection_78(world)
    conversation = start(client)
    talk(client, conversation, first)
    return conversation, talk(client, conversation, text)


@pytest.mark.django_db
@pytest.mark.parametrize("answer", ["Would you be so kind as to cancel that request? I spoke rather too soon.",
                                    "Let's leave it there, please; scrap that.",
                                    "On reflection, no, I should rather you didn't.",
                                    "não, pensando bem, deixa como tá"])
def test_the_request_on_screen_is_withdrawn_never_turned_into_a_write(world, operator_client, start, talk, answer):
    conversation = start(operator_client)
    assert talk(operator_client, conversation, "mude a validade da permissão 802 para 30 dias")["response"].get(
        "confirmation")
    turn = talk(operator_client, conversation, answer)
    assert not turn["response"].get("confirmation"), turn["response"]  # no cancel of the permit proposed
    state = operator_client.get(f"/agent/conversations/{conversation}").json()
    assert state["pending_confirmation"] is None and state["status"] in ("CANCELLED", "IDLE"), state


@pytest.mark.django_db
@pytest.mark.parametrize("yes", ["Sim, pode prosseguir, por gentileza.", "Indeed, do go ahead."])
def test_a_formal_yes_confirms(world, operator_client, start, talk, yes):
    turn = answer_to_a_proposal(operator_client, start, talk, yes)
    assert _kind(turn) == "execution", turn["response"]
    world.p802.refresh_from_db()
    assert world.p802.validity_days == 31


@pytest.mark.django_db
def test_a_remark_before_the_undo(world, operator_client, start, talk):
    conversation = start(operator_client)
    talk(operator_client, conversation, "adicione o componente ruído na permissão 802")
    talk(operator_client, conversation, "sim")
    turn = talk(operator_client, conversation,
                "I'm terribly sorry, that was the wrong permit; could you undo that?")
    assert turn["response"].get("confirmation") and "802" in _proposed(turn), turn["response"]


@pytest.mark.django_db
@pytest.mark.parametrize(("text", "proposes"), [
    ("Inspection 78 was carried out this morning; could you mark it as completed, please?", "complete"),
    ("I'm afraid inspection 78 will have to be called off; would you cancel it, please?", "cancel"),
])
def test_a_request_after_a_state_told_is_no_state_question(world, supervisor_client, start, talk, text, proposes):
    turn = _first(world, supervisor_client, start, talk, text)
    assert turn["response"].get("confirmation") and proposes in _proposed(turn).lower(), turn["response"]


@pytest.mark.django_db
def test_asked_to_tell_a_state_is_still_a_state_question(world, operator_client, start, talk):
    turn = _first(world, operator_client, start, talk, "could you tell me if inspection 78 was completed?")
    assert _kind(turn) == "answer" and not turn["response"].get("confirmation"), turn["response"]


@pytest.mark.django_db
@pytest.mark.parametrize("text", ["aumenta 10 dias na validade",
                                  "could you extend its validity by a further ten days?"])
def test_an_increase_said_with_its_unit(world, operator_client, start, talk, text):
    conversation = start(operator_client)
    talk(operator_client, conversation, "abra a permissão 802")
    turn = talk(operator_client, conversation, text)
    assert "30" in _proposed(turn), turn["response"]  # 20 + 10, not 10


@pytest.mark.django_db
def test_thanks_with_nothing_to_confirm_is_a_courtesy(world, operator_client, start, talk):
    turn = talk(operator_client, start(operator_client), "ok, thanks")
    assert _kind(turn) != "error" and "confirm" not in _msg(turn).lower(), turn["response"]


@pytest.mark.django_db
def test_a_courteous_yes_after_a_proposal_with_free_text(world, supervisor_client, start, talk):
    """"por gentileza" is no new description of the finding proposed: the yes confirms it."""
    inspection_78(world)
    conversation = start(supervisor_client)
    assert talk(supervisor_client, conversation, "registre o achado 'Piso molhado' na inspeção 78")["response"].get(
        "confirmation")
    turn = talk(supervisor_client, conversation, "Sim, pode prosseguir, por gentileza.")
    assert _kind(turn) == "execution", turn["response"]


@pytest.mark.django_db
def test_items_described_by_a_participle_are_read_not_written(world, operator_client, start, talk):
    """"the findings recorded at inspection 78": "recorded" describes them — no finding called "recorded" proposed
    (the first run's one unsafe turn: a write derived from the words of a question)."""
    turn = _first(world, operator_client, start, talk, "I should like to see the findings recorded at inspection 78.")
    assert _kind(turn) == "answer" and "Escada sem trava" in _msg(turn), turn["response"]


@pytest.mark.django_db
def test_another_entitys_write_verb_never_outweighs_the_named_entitys_own(world, operator_client, start, talk):
    turn = _first(world, operator_client, start, talk, "cheers, just pop open inspection 78 would you")
    assert _kind(turn) == "navigation" and not turn["response"].get("confirmation"), turn["response"]


@pytest.mark.django_db
def test_a_request_made_with_the_actions_noun(world, supervisor_client, start, talk):
    turn = talk(supervisor_client, start(supervisor_client), "Solicito a exclusão da permissão 802.")
    assert turn["response"].get("confirmation") and "802" in _proposed(turn), turn["response"]


@pytest.mark.django_db
def test_a_request_taken_back_in_the_same_message_proposes_nothing(world, supervisor_client, start, talk):
    turn = talk(supervisor_client, start(supervisor_client),
                "Delete permit 802... actually no, forget it, don't delete anything")
    assert not turn["response"].get("confirmation"), turn["response"]


@pytest.mark.django_db
def test_an_apology_then_the_item_meant(world, supervisor_client, start, talk):
    _, turn = _second(world, supervisor_client, start, talk, "Could you reschedule inspection 78 for a week on Monday?",
                      "Forgive me, I meant inspection 79, not 78.")
    assert turn["response"].get("confirmation") and "79" in _proposed(turn), turn["response"]


@pytest.mark.django_db
def test_the_same_for_another_item_after_and(world, operator_client, start, talk):
    conversation = start(operator_client)
    talk(operator_client, conversation, "mude a validade da permissão 802 para 31 dias")
    talk(operator_client, conversation, "sim")
    turn = talk(operator_client, conversation, "And the same for permit 771 of Delta, please.")
    assert turn["response"].get("confirmation") and "771" in _proposed(turn) and "31" in _proposed(turn), turn[
        "response"]


@pytest.mark.django_db
def test_a_verb_with_its_pronoun_is_no_slip(world, supervisor_client, start, talk):
    """"mantê-la" was read as a slip of a term of address ("mate"): the no after it was lost."""
    conversation, turn = _second(world, supervisor_client, start, talk, "Gostaria que a inspeção 78 fosse cancelada.",
                                 "Não, obrigada. Pensando melhor, prefiro mantê-la.")
    state = supervisor_client.get(f"/agent/conversations/{conversation}").json()
    assert state["pending_confirmation"] is None and "nada" not in _msg(turn).lower(), turn["response"]
