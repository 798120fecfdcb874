"""A new value said for a field with no verb (conversations/field_write.py): proposed like any write,
checked like any value, never a create, and nothing without the "para/to" and a value."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def _say(client, start, text):
    conversation = start(client)
    return client.post(f"/agent/conversations/{conversation}/messages", {"text": text}, format="json").json()


@pytest.mark.parametrize(("text", "says"), [
    ("validade da 802 pra 40 dias", ["802", "40"]),
    ("validity of permit 771 of Omega to 30 days", ["771", "Omega", "30"]),
])
def test_a_field_and_a_value_propose_the_write_of_that_field(world, operator_client, start, text, says):
    turn = _say(operator_client, start, text)
    assert turn["status"] == "CONFIRMATION_REQUIRED", turn["response"]
    assert all(s in turn["response"]["message"] for s in says)
    world.p802.refresh_from_db()
    assert world.p802.validity_days == 20  # only proposed


def test_a_value_said_this_way_is_checked_like_any_other(world, operator_client, start):
    turn = _say(operator_client, start, "validade da 802 pra -5 dias")
    assert turn["status"] == "CLARIFICATION_REQUIRED" and "-5" in turn["response"]["message"]


@pytest.mark.parametrize("text", ["validade da 802", "validade da 802?"])
def test_without_a_value_it_is_not_a_write(world, operator_client, start, text):
    turn = _say(operator_client, start, text)
    assert turn["status"] != "CONFIRMATION_REQUIRED", turn["response"]


def test_an_amount_in_its_unit_beside_the_field_is_a_value_without_the_marker(world, operator_client, start):
    """"validade da 802 40 dias" (as "318 validity 20", "<campo> da 311 → 25 dias"): a value for the field, shown
    for confirmation (blind rounds' users wrote it so; a question asks)."""
    turn = _say(operator_client, start, "validade da 802 40 dias")
    assert turn["status"] == "CONFIRMATION_REQUIRED" and "40 dias" in turn["response"]["message"], turn["response"]
