"""Confirmation questions are worded from the registry's `language.summary` templates, per language."""

from __future__ import annotations

from .conftest import selection


def test_a_validity_change_is_asked_in_plain_portuguese(world, operator_client, start, talk):
    conversation = start(operator_client)
    turn = talk(operator_client, conversation, "diminua a validade pra 12 dias", ui=selection(world.p802))
    assert turn["response"]["type"] == "confirmation"
    assert turn["response"]["message"] == (
        "Deseja alterar a validade da permissão 802 (Delta Engenharia) para 12 dias?")


def test_a_component_addition_is_asked_in_english_with_the_catalog_name(world, operator_client, start, talk):
    conversation = start(operator_client)
    turn = talk(operator_client, conversation, "please add the welding component", ui=selection(world.p802))
    assert turn["response"]["message"] == (
        "Do you want to add \u201cSolda Elétrica\u201d to permit 802 (Delta Engenharia)?")
