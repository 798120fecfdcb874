"""Which bare number names an item when the request also takes a quantity (numbers.reference_number):
"da 310" (of + article) names one; a quantity takes no article."""

from __future__ import annotations

import pytest

from conversations.lexicon import tokens
from conversations.numbers import reference_number


@pytest.mark.parametrize(("text", "expected"), [
    ("muda a validade da 310", "310"),
    ("tira 5 dias da 312", "312"),
    ("coloca a validade do 77 em 40 dias", "77"),
    ("deixa a 456 com 20 dias", "456"),
    ("muda a validade para 45", None),  # only a quantity
    ("validade de 45 dias", None),
    ("change the validity of 311", "311"),
    ("give it a validity of 45", None),
])
def test_the_number_that_names_an_item(text, expected):
    found = reference_number(tokens(text), set(), takes_value=True, named_at=[])
    assert (found[1] if found else None) == expected


def test_the_answer_to_the_quantity_asked_completes_the_request(world, supervisor_client, start, talk):
    conversation = start(supervisor_client)
    asked = talk(supervisor_client, conversation, "muda a validade da 802")
    assert asked["status"] == "CLARIFICATION_REQUIRED", asked["response"]
    turn = talk(supervisor_client, conversation, "45")
    assert turn["status"] == "CONFIRMATION_REQUIRED", turn["response"]
    assert "802" in turn["response"]["message"] and "45" in turn["response"]["message"]
