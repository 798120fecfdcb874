"""What a seventh fresh blind corpus found (bench/corpus/tuning/fresh_2026_12_a[y-z].yaml, fresh_2026_12_b[a-b].yaml,
360 cases written without reading the agent; 0.683 on its first run, safety 0.989): an item picked by its place in
the list just answered ("abre a segunda", "the last one") was asked for again; an item named only to compare with
("a mesma validade da 771", "the same validity as 771") became the target of the write. Each failed before."""

from __future__ import annotations

from datetime import timedelta

import pytest

from conversations.dates import today
from sst import services as sst

from .conftest import inspection_78

pytestmark = pytest.mark.django_db


def _proposed(turn) -> str:
    return str(turn["response"]["message"]) if turn["response"].get("confirmation") else ""


@pytest.mark.parametrize(("pick", "number"), [("abre a segunda", "802"), ("open the first one", "771"),
                                              ("abre a última", "802")])
def test_an_item_picked_by_its_place_in_the_list(world, operator_client, start, talk, pick, number):
    conversation = start(operator_client)
    listed = talk(operator_client, conversation, "liste as permissões da Delta Engenharia")
    assert "771" in listed["response"]["message"] and "802" in listed["response"]["message"], listed["response"]

    turn = talk(operator_client, conversation, pick)

    assert turn["response"]["type"] == "navigation", turn["response"]
    assert turn["response"]["navigation"]["entity"]["label"] == number


def test_a_write_on_an_item_picked_by_its_place(world, operator_client, start, talk):
    conversation = start(operator_client)
    talk(operator_client, conversation, "liste as permissões da Delta Engenharia")

    turn = talk(operator_client, conversation, "muda a validade da segunda pra 25 dias")

    assert "802" in _proposed(turn) and "25 dias" in _proposed(turn), turn["response"]


def test_a_choice_among_options_shown_by_its_place_in_a_new_request(world, operator_client, start, talk):
    conversation = start(operator_client)
    asked = talk(operator_client, conversation, "abre a 771")
    assert asked["response"]["type"] == "clarification", asked["response"]

    turn = talk(operator_client, conversation, "muda a validade da segunda pra 25 dias")

    assert "771" in _proposed(turn) and "Omega" in _proposed(turn), turn["response"]


def test_a_weekday_is_no_place_in_the_list(world, operator_client, start, talk):
    conversation = start(operator_client)
    talk(operator_client, conversation, "liste as permissões da Delta Engenharia")

    turn = talk(operator_client, conversation, "abre a permissão 771 da Omega pra segunda")

    assert "Omega" in turn["response"]["message"], turn["response"]


@pytest.mark.parametrize("say", ["Deixa a 771 da Omega com a mesma validade da 802.",
                                 "give 771 of Omega the same validity as 802"])
def test_an_item_named_to_compare_with_is_never_the_target(world, operator_client, start, talk, say):
    turn = talk(operator_client, start(operator_client), say)

    assert "802" not in _proposed(turn), turn["response"]


def test_a_correction_by_comparison_keeps_the_target(world, operator_client, start, talk):
    conversation = start(operator_client)
    talk(operator_client, conversation, "set the validity of permit 771 of Omega to 50 days")

    turn = talk(operator_client, conversation, "hmm, no — give it the same validity as 802 instead")

    # (802 has the 20 days 771 has: "already so" is the answer)
    assert "802" not in turn["response"]["message"] and turn["response"]["type"] != "error", turn["response"]


@pytest.mark.parametrize(("correction", "number"), [("no, the first", "771"), ("não, a primeira", "771")])
def test_a_correction_by_place_changes_the_target_and_keeps_the_value(world, operator_client, start, talk,
                                                                       correction, number):
    conversation = start(operator_client)
    talk(operator_client, conversation, "liste as permissões da Delta Engenharia")
    proposed = talk(operator_client, conversation, "muda a validade da segunda pra 25 dias")
    assert "802" in _proposed(proposed), proposed["response"]

    turn = talk(operator_client, conversation, correction)

    assert number in _proposed(turn) and "25" in _proposed(turn) and "802" not in _proposed(turn), turn["response"]


def _permit_905(world):
    return sst.permit_create(tenant=world.tenant, company=world.omega, number="905", validity_days=33)


@pytest.mark.parametrize("say", ["Deixa a 802 com a mesma validade da 905.", "give 802 the same validity as 905"])
def test_the_same_value_as_another_item_is_read_from_it(world, operator_client, start, talk, say):
    _permit_905(world)

    turn = talk(operator_client, start(operator_client), say)

    assert "802" in _proposed(turn) and "33" in _proposed(turn) and "905" not in _proposed(turn), turn["response"]


def test_a_correction_to_the_same_value_as_another_item(world, operator_client, start, talk):
    _permit_905(world)
    conversation = start(operator_client)
    talk(operator_client, conversation, "set permit 802 validity to 50 days")

    turn = talk(operator_client, conversation, "hmm, no — give it the same validity as 905 instead")

    assert "802" in _proposed(turn) and "33" in _proposed(turn), turn["response"]


def test_a_copy_with_a_change_is_never_the_change_on_the_original(world, operator_client, start, talk):
    turn = talk(operator_client, start(operator_client), "Crie uma permissão igual à 802, mas com validade de 25 dias.")

    assert "clon" in _proposed(turn).lower() and "802" in _proposed(turn), turn["response"]


def test_an_amount_corrected_in_another_unit_moves_the_proposal_by_the_amount_meant(world, operator_client, start,
                                                                                     talk):
    conversation = start(operator_client)
    talk(operator_client, conversation, "extend permit 802 by 2 weeks")  # 20 → 34

    turn = talk(operator_client, conversation, "Sorry, I meant 2 days, not 2 weeks.")

    assert "802" in _proposed(turn) and "22 days" in _proposed(turn), turn["response"]


def test_a_shift_corrected_moves_the_date_from_the_items_own(world, operator_client, start, talk):
    inspection_78(world)  # in 5 days
    conversation = start(operator_client)
    talk(operator_client, conversation, "adie a inspeção 78 em 3 dias")

    turn = talk(operator_client, conversation, "na verdade são 5 dias de adiamento, não 3")

    assert f"{today() + timedelta(days=10):%d/%m/%Y}" in _proposed(turn), turn["response"]


def test_a_shift_into_the_past_is_asked_again(world, operator_client, start, talk):
    inspection_78(world)  # in 5 days

    turn = talk(operator_client, start(operator_client), "bring inspection 78 forward by a week")

    assert turn["response"]["type"] == "clarification" and "past" in turn["response"]["message"], turn["response"]


def test_a_copy_of_the_item_said_not_of_the_one_open(world, operator_client, start, talk):
    conversation = start(operator_client)
    talk(operator_client, conversation, "abre a 771 da Omega")

    turn = talk(operator_client, conversation, "faz uma igual à 802 mas com 25 dias")

    assert "802" in _proposed(turn) and "Omega" not in _proposed(turn), turn["response"]


def test_a_reason_that_says_created_is_no_copy(world, operator_client, start, talk):
    turn = talk(operator_client, start(operator_client), "apaga a permissão 802, foi criada em duplicidade")

    assert "clon" not in _proposed(turn).lower(), turn["response"]


@pytest.mark.parametrize("say", ["vou passar na Delta semana que vem, me lista as inspeções deles",
                                 "I'm visiting Delta Engenharia next week, list their inspections"])
def test_a_date_in_another_clause_is_no_filter(world, operator_client, start, talk, say):
    inspection_78(world)  # in 5 and 6 days: not next week on every weekday, listed whatever the day

    turn = talk(operator_client, start(operator_client), say)

    assert "78" in turn["response"]["message"] and "79" in turn["response"]["message"], turn["response"]
