"""An item picked from the list just answered by one of its values (conversations/picked.py): "a de 35 dias",
"the one with 20 days", "which one's further out?". Each test failed before picked.py."""

from __future__ import annotations

from datetime import timedelta

import pytest

from conversations.dates import today

from .conftest import inspection_78

pytestmark = pytest.mark.django_db


def _listed_permits(world, supervisor_client, start, talk, language="pt"):
    world.p802.validity_days = 35
    world.p802.save(update_fields=["validity_days"])
    conversation = start(supervisor_client)  # (the language is the messages')
    talk(supervisor_client, conversation, "lista as permissões da Delta Engenharia" if language == "pt"
         else "list the permits of Delta Engenharia")
    return conversation


def test_a_relative_change_of_the_item_with_the_amount_said(world, supervisor_client, start, talk):
    conversation = _listed_permits(world, supervisor_client, start, talk)

    turn = talk(supervisor_client, conversation, "a de 35 dias, aumenta mais 10")

    assert turn["response"].get("confirmation"), turn["response"]
    assert "802" in turn["response"]["message"] and "45 dias" in turn["response"]["message"]


def test_a_value_set_on_the_one_with_an_amount(world, supervisor_client, start, talk):
    conversation = _listed_permits(world, supervisor_client, start, talk, "en")

    turn = talk(supervisor_client, conversation, "set the one with 20 days to 45")

    assert "771" in turn["response"]["message"] and "45 days" in turn["response"]["message"], turn["response"]


def test_an_amount_no_item_has_picks_nothing(world, supervisor_client, start, talk):
    conversation = _listed_permits(world, supervisor_client, start, talk)

    turn = talk(supervisor_client, conversation, "a de 12 dias, aumenta mais 10")

    assert "802" not in turn["response"]["message"] and "771" not in turn["response"]["message"], turn["response"]


def test_which_has_the_most_and_the_fewest_days(world, supervisor_client, start, talk):
    conversation = _listed_permits(world, supervisor_client, start, talk)

    most = talk(supervisor_client, conversation, "qual delas tem mais dias?")
    fewest = talk(supervisor_client, conversation, "e a com menos dias?")

    assert "802" in most["response"]["message"] and "35" in most["response"]["message"], most["response"]
    assert "771" in fewest["response"]["message"] and "20" in fewest["response"]["message"], fewest["response"]


def test_which_one_is_further_out_and_the_soonest_rescheduled(world, supervisor_client, start, talk):
    inspection_78(world)
    conversation = start(supervisor_client)
    talk(supervisor_client, conversation, "list the inspections of Delta Engenharia")

    further = talk(supervisor_client, conversation, "which one's further out?")
    moved = talk(supervisor_client, conversation, "push the soonest one to 12 days from now")

    assert "79" in further["response"]["message"], further["response"]
    assert (today() + timedelta(days=6)).isoformat() in further["response"]["message"]
    assert "78" in moved["response"]["message"] and moved["response"].get("confirmation"), moved["response"]
    assert (today() + timedelta(days=12)).isoformat() in moved["response"]["message"]


def test_at_the_earliest_is_no_pick(world, supervisor_client, start, talk):
    inspection_78(world)
    conversation = start(supervisor_client)
    talk(supervisor_client, conversation, "list the inspections of Delta Engenharia")

    turn = talk(supervisor_client, conversation, "please tell me the date of inspection 79 at the earliest")

    assert "79" in turn["response"]["message"] and "78" not in turn["response"]["message"], turn["response"]


def test_a_date_in_a_field_answer_is_written_as_the_language_writes_it(world, supervisor_client, start, talk):
    inspection_78(world)
    conversation = start(supervisor_client)

    turn = talk(supervisor_client, conversation, "quando é a inspeção 78?")

    assert (today() + timedelta(days=5)).strftime("%d/%m/%Y") in turn["response"]["message"], turn["response"]
