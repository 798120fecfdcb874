"""What the thirteenth session mended from the corpus's leftovers: a no or a stop said with its reason and no
comma ("melhor não deixa quieto por enquanto", "não, deixa pra depois do almoço"), "pode cancelar" with an
addition on screen. Each test failed before its change. (Permit 802 has 20 days.)"""

from __future__ import annotations

import pytest

from .conftest import answer_to_a_proposal

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("answer", [
    "hmm melhor não deixa quieto por enquanto",
    "não, deixa pra depois do almoço",
    "nao, deixa como ta por enquanto",
    "pera esquece isso deixa pra lá por enquanto que ainda falta o pessoal assinar",
    "cancela cancela não é pra mexer nessa não",
    "pode cancelar",
    "can you cancel?",
])
def test_a_no_with_its_reason_runs_nothing_and_proposes_nothing(world, supervisor_client, start, talk, answer):
    turn = answer_to_a_proposal(supervisor_client, start, talk, answer)

    assert turn["response"]["template"] in ("confirmation.declined", "cancel.done"), turn["response"]
    assert turn["state"]["pending_confirmation"] is None, turn["state"]
    world.p802.refresh_from_db()
    assert world.p802.validity_days == 20


@pytest.mark.parametrize("answer", ["não, deixa com 40 dias", "não, 40 dias por enquanto"])
def test_a_no_then_another_value_is_still_a_correction(world, supervisor_client, start, talk, answer):
    turn = answer_to_a_proposal(supervisor_client, start, talk, answer)

    assert turn["response"].get("confirmation") and "802" in turn["response"]["message"], turn["response"]
