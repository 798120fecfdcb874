"""A field asked of a number two items share ("qual a validade da 771?"): which one is asked, and the
answer to that question gets the field of the one picked — never "não entendi", never a guess."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(("ask", "pick", "says"), [
    ("qual a validade da permissão 771?", "a da Omega", "20"),
    ("who is responsible for permit 771?", "Delta Engenharia", "Bruno Teixeira"),
])
def test_which_one_then_its_field(world, operator_client, start, talk, ask, pick, says):
    conversation = start(operator_client)
    asked = talk(operator_client, conversation, ask)
    assert asked["status"] == "CLARIFICATION_REQUIRED", asked["response"]
    assert len(asked["response"]["clarification"]["candidates"]) == 2
    answered = talk(operator_client, conversation, pick)
    assert answered["response"]["type"] == "answer", answered["response"]
    assert says in answered["response"]["message"] and "771" in answered["response"]["message"]
