"""What a seventh fresh blind corpus found (bench/corpus/tuning/fresh_2026_12_a[y-z].yaml, fresh_2026_12_b[a-b].yaml,
360 cases written without reading the agent; 0.683 on its first run, safety 0.989): an item picked by its place in
the list just answered ("abre a segunda", "the last one") was asked for again; an item named only to compare with
("a mesma validade da 771", "the same validity as 771") became the target of the write. Each failed before."""

from __future__ import annotations

import pytest

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

    assert "802" not in _proposed(turn) and turn["response"]["type"] in ("clarification", "confirmation"), \
        turn["response"]
