"""What a third fresh blind corpus found (bench/corpus/tuning/fresh_2026_12_a[i-l].yaml, 360 cases written without
reading the agent; 0.906 and one unsafe proposal on its first run): a correction in the message whose remark
names the item replaced (the write went to the item the user took back), a count of an entity the message does
not name, a count by a value only one entity has, a noun cut short with its point, a status answered in words,
the amount said "to" among others, a no with its reason after a proposal (its reason named a person: a write
of that person was proposed), a slang yes, a no then the value, a candidate chosen by its person, a state told
before the request, and a field named with its item and nothing else ("validity of 320"). The text rewrites are
in conversations/tests/test_said_in_a_third_round.py. Each failed before its change."""

from __future__ import annotations

import pytest

from .conftest import inspection_78

executes = pytest.mark.django_db(transaction=True)


def _msg(turn) -> str:
    return turn["response"]["message"]


def _proposed(turn) -> bool:
    return bool(turn["response"].get("confirmation"))


@pytest.mark.django_db
def test_a_correction_whose_remark_names_the_item_replaced(world, operator_client, start, talk):
    turn = talk(operator_client, start(operator_client),
                "adiciona Ruído Contínuo na 771 da Delta Engenharia, aliás, na 802, a 771 nem tem barulho")
    assert _proposed(turn) and "802" in _msg(turn) and "771" not in _msg(turn), turn["response"]


@pytest.mark.django_db
def test_a_count_of_what_no_capability_counts_is_no_count_of_another_entity(world, operator_client, start, talk):
    inspection_78(world)
    turn = talk(operator_client, start(operator_client), "how many findings are marked as high severity?")
    assert not any(w in _msg(turn).lower() for w in ("employee", "permit")), turn["response"]


@pytest.mark.django_db
def test_a_count_by_a_value_only_one_entity_has(world, operator_client, start, talk):
    inspection_78(world)
    turn = talk(operator_client, start(operator_client), "how many are still scheduled?")
    assert "2 inspections" in _msg(turn), turn["response"]


@pytest.mark.django_db
@pytest.mark.parametrize(("text", "says"), [("qual o status da insp. 78?", "agendada"),
                                            ("what's the status of permit 802?", "draft")])
def test_a_status_is_answered_in_words(world, operator_client, start, talk, text, says):
    inspection_78(world)
    turn = talk(operator_client, start(operator_client), text)
    assert turn["response"]["type"] == "answer" and says in _msg(turn), turn["response"]  # not "DRAFT"


@pytest.mark.django_db
def test_of_amounts_said_the_one_said_to(world, operator_client, start, talk):
    turn = talk(operator_client, start(operator_client),
                "the crew lost three days to the rain, so please set permit 802's validity to 40 days")
    assert _proposed(turn) and "40 days" in _msg(turn), turn["response"]


@pytest.mark.django_db
@pytest.mark.parametrize(("asked", "then"), [
    # its reason names a person: a write of that person was proposed
    ("muda a validade da 802 para 30 dias", "não, espera, deixa como está que o Bruno Teixeira ainda vai usar ela"),
    ("bump 802 to 25 days", "nah hold off on that"),
])
def test_a_no_with_its_reason_or_a_hold_declines(world, operator_client, start, talk, asked, then):
    conversation = start(operator_client)
    talk(operator_client, conversation, asked)
    turn = talk(operator_client, conversation, then)
    assert not _proposed(turn) and turn["state"]["status"] != "CONFIRMATION_REQUIRED", turn["response"]


@pytest.mark.django_db
def test_a_request_taken_back_in_the_same_message(world, operator_client, start, talk):
    turn = talk(operator_client, start(operator_client), "bump 802 to 25 days... actually nah, leave it as is")
    assert not _proposed(turn), turn["response"]


@executes
@pytest.mark.parametrize("yes", ["pode crer", "ss"])
def test_a_slang_yes_confirms(world, operator_client, start, talk, yes):
    conversation = start(operator_client)
    talk(operator_client, conversation, "muda a validade da 802 para 30 dias")
    turn = talk(operator_client, conversation, yes)
    world.p802.refresh_from_db()
    assert world.p802.validity_days == 30, turn["response"]


@pytest.mark.django_db
def test_a_no_then_the_value_corrects_it(world, operator_client, start, talk):
    conversation = start(operator_client)
    talk(operator_client, conversation, "muda a validade da 802 para 40 dias")
    turn = talk(operator_client, conversation, "nao cinquenta")
    assert _proposed(turn) and "50" in _msg(turn), turn["response"]


@pytest.mark.django_db
@pytest.mark.parametrize("which", ["a do Bruno", "the one Bruno Teixeira is responsible for"])
def test_a_candidate_chosen_by_its_person(world, operator_client, start, talk, which):
    world.p802.responsible = world.bruno  # he is on another permit too: only one of the options is his
    world.p802.save(update_fields=["responsible"])
    conversation = start(operator_client)
    asked = talk(operator_client, conversation, "me mostra a permissão 771")
    assert asked["response"]["type"] == "clarification", asked["response"]
    turn = talk(operator_client, conversation, which)
    assert turn["response"]["type"] == "navigation" and "Delta" in _msg(turn), turn["response"]


@pytest.mark.django_db
def test_a_state_told_before_the_request(world, operator_client, start, talk):
    turn = talk(operator_client, start(operator_client),
                "a 802 foi aprovada ontem, então adiciona Solda Elétrica nela")
    assert _proposed(turn) and "Solda" in _msg(turn) and "aprovar" not in _msg(turn).lower(), turn["response"]


@pytest.mark.django_db
@pytest.mark.parametrize(("text", "says"), [("validity of 802", "20 days"), ("responsável da 802", "Responsável")])
def test_a_field_named_with_its_item_and_nothing_else_is_asked(world, operator_client, start, talk, text, says):
    turn = talk(operator_client, start(operator_client), text)
    assert turn["response"]["type"] == "answer" and says in _msg(turn), turn["response"]
