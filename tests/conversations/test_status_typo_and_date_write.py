"""A status word typed with one letter off still names the status wanted, only when no other status nor
a verb is that close (status_goal._mistyped); a date said for an item with only a generic "do" verb asks
the item's one date write (date_write.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from conversations.dates import today
from conversations.status_goal import _mistyped
from sst import inspection_services


@pytest.mark.parametrize(("word", "phrase", "verbs", "expected"), [
    ("complted", ("completed",), {"complete"}, True),
    ("aprovda", ("aprovada",), {"aprova", "aprovar"}, True),
    ("cancelda", ("cancelada",), {"cancela", "cancelar"}, False),  # also one letter from the verb
    ("completed", ("completed",), set(), False),  # said right: not a typo (the exact match reads it)
    ("done", ("dono",), set(), False),  # short words: no guess
    ("aproved", ("em", "rascunho"), set(), False),  # phrases of several words: no guess
])
def test_a_status_word_with_one_letter_off(word, phrase, verbs, expected):
    assert _mistyped(word, phrase, verbs) is expected


@pytest.mark.parametrize(("text", "capability"), [("I need permit 802 approvd", "workPermit.approve"),
                                                  ("deixa a 802 como aprovda", "workPermit.approve")])
def test_a_mistyped_status_goal_proposes_its_write(world, supervisor_client, start, talk, text, capability):
    conversation = start(supervisor_client)
    turn = talk(supervisor_client, conversation, text)
    assert turn["status"] == "CONFIRMATION_REQUIRED", turn["response"]
    assert turn["state"]["active_operation"]["capability"] == capability


@pytest.mark.parametrize(("text", "days"), [("can we do 77 in 3 days?", 3), ("can we do inspection 77 in 6 days", 6)])
def test_a_date_for_an_item_with_a_generic_verb_proposes_its_date_write(world, supervisor_client, start, talk, text,
                                                                        days):
    inspection_services.inspection_create(tenant=world.tenant, company=world.delta, site="Doca 4", number="77",
                                          scheduled_for=today() + timedelta(days=10))
    conversation = start(supervisor_client)
    turn = talk(supervisor_client, conversation, text)
    assert turn["status"] == "CONFIRMATION_REQUIRED", turn["response"]
    operation = turn["state"]["active_operation"]
    assert operation["capability"] == "inspection.reschedule"
    assert operation["intent"]["slots"]["scheduled_for"][0]["value"] == (today() + timedelta(days=days)).isoformat()


def test_a_generic_verb_with_no_item_proposes_nothing(world, supervisor_client, start, talk):
    conversation = start(supervisor_client)
    turn = talk(supervisor_client, conversation, "can we do it in 3 days?")
    assert turn["status"] != "CONFIRMATION_REQUIRED", turn["response"]
