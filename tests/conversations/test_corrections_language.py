"""Corrections said in few words (corrections.field_correction, relative.value_swap, relative_turn.swap_apply):
a value said against the proposed one replaces it; after a field question, another item named gets the
same question."""

from __future__ import annotations

import pytest

from conversations.lexicon import tokens
from conversations.relative import value_swap
from sst import services as sst


@pytest.mark.parametrize(("text", "expected"), [
    ("opa, 50, não 40", (50, 40)),
    ("sim, mas coloca 50 em vez de 40", (50, 40)),
    ("yes but make it 50 instead of 40", (50, 40)),
    ("em vez de 40, 50", (50, 40)),
    ("oops, 55 not 40", (55, 40)),
    ("12 dias, não 9", (12, 9)),
    ("não 40", None),
    ("prorroga a 310 para 50, não 40, e a 311 também", None),  # a third number: not only a swap
    ("50 dias", None),
])
def test_a_value_said_in_place_of_another(text, expected):
    assert value_swap(" ".join(tokens(text))) == expected


@pytest.mark.parametrize(("swap", "days"), [("opa, 50, não 40", 50), ("sim, mas coloca 35 em vez de 40", 35),
                                            ("yes but make it 25 instead of 40", 25)])
def test_the_proposed_value_is_replaced(world, supervisor_client, start, talk, swap, days):
    conversation = start(supervisor_client)
    talk(supervisor_client, conversation, "muda a validade da permissão 802 para 40 dias")
    turn = talk(supervisor_client, conversation, swap)
    assert turn["status"] == "CONFIRMATION_REQUIRED", turn["response"]
    assert f"{days} dias" in turn["response"]["message"] or f"{days} days" in turn["response"]["message"]


def test_a_swap_of_another_number_than_the_proposed_one_changes_nothing_silently(world, supervisor_client, start,
                                                                                 talk):
    conversation = start(supervisor_client)
    talk(supervisor_client, conversation, "muda a validade da permissão 802 para 40 dias")
    turn = talk(supervisor_client, conversation, "opa, 50, não 30")
    assert "50 dias" not in turn["response"]["message"], turn["response"]


@pytest.mark.parametrize(("ask", "correction"), [("qual a validade da permissão 802?", "não, era a 803"),
                                                 ("what is the validity of permit 802?", "no, I meant 803"),
                                                 ("qual a validade da permissão 802?", "nao, nao e a 802, e a 803")])
def test_after_a_field_question_a_correction_asks_it_of_the_item_named(world, supervisor_client, start, talk, ask,
                                                                       correction):
    sst.permit_create(tenant=world.tenant, company=world.delta, number="803", validity_days=33)
    conversation = start(supervisor_client)
    talk(supervisor_client, conversation, ask)
    turn = talk(supervisor_client, conversation, correction)
    assert turn["response"]["type"] == "answer", turn["response"]
    assert "803" in turn["response"]["message"] and "33" in turn["response"]["message"]
