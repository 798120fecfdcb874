"""A question answered while a proposal waited supersedes it (supersede.py): the conversation's status
and its pending rows then agree — never CONFIRMATION_REQUIRED with no confirmation pending."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("question", ["qual a validade da permissão 771 da Omega?", "quantas permissões existem?",
                                      "who is responsible for permit 771 of Delta Engenharia?"])
def test_a_question_that_supersedes_a_proposal_leaves_status_and_rows_consistent(world, supervisor_client, start,
                                                                                 talk, question):
    conversation = start(supervisor_client)
    proposed = talk(supervisor_client, conversation, "muda a validade da permissão 802 para 40 dias")
    assert proposed["state"]["status"] == "CONFIRMATION_REQUIRED"
    turn = talk(supervisor_client, conversation, question)
    state = turn["state"]
    if state["pending_confirmation"] is None:
        assert state["status"] != "CONFIRMATION_REQUIRED", state
        assert turn["status"] != "CONFIRMATION_REQUIRED", turn
    else:
        assert state["status"] == "CONFIRMATION_REQUIRED", state
    # and a later "sim" never runs the superseded proposal
    after = talk(supervisor_client, conversation, "sim")
    assert after["response"]["type"] != "execution" or state["pending_confirmation"] is not None, after["response"]
