"""What the twelfth session mended from an eleventh blind round (bench/corpus: fresh_2026_12_bo–br): severities said
as people say them, a quoted finding the colon opens followed by a remark, "quanto de <campo>", a date pulled in or
up, "faz a mesma coisa na …" after a write. Each test failed before its change. (Inspection 78 is 5 days from today;
permits 771 and 802 have 20 days.)"""

from __future__ import annotations

import pytest

from sst import services as sst

from .conftest import day_label, inspection_78, proposed

pytestmark = pytest.mark.django_db


# (message, what the proposal says, what it never says)
_PROPOSED = {
    "remark after the quote": ('add a finding to 78: "oil leak under press 4" - low priority tho',
                               ["oil leak under press 4", "LOW"], ["priority", "tho"]),
    "pretty bad": ('log a finding on 78 — "ladder missing feet", pretty bad', ["ladder missing feet", "HIGH"], []),
    "bare medium": ("add achado na 78: escada sem trava, media", ["escada sem trava", "MEDIUM"], ["media”"]),
    "minor": ('log something minor on 78: "missing signage at the door"', ["missing signage at the door", "LOW"], []),
    "pulled up": ("pull 78 up two days", ["78", ("day", 3)], [("day", 7)]),
    "moved up": ("move 78 up by two days", ["78", ("day", 3)], [("day", 7)]),
}


def _said(expected) -> str:
    return day_label(expected[1], "en") if isinstance(expected, tuple) else expected


@pytest.mark.parametrize("case", _PROPOSED, ids=list(_PROPOSED))
def test_a_proposal_said_in_the_users_words(world, supervisor_client, start, talk, case):
    text, says, never = _PROPOSED[case]
    inspection_78(world)
    conversation = start(supervisor_client)

    turn = talk(supervisor_client, conversation, text)

    assert all(_said(s) in proposed(turn) for s in says), turn["response"]
    assert not any(_said(n) in proposed(turn) for n in never), turn["response"]


@pytest.mark.parametrize("text", ["qto de vld tem a 802", "quanto de validade tem a permissão 802?"])
def test_how_much_of_a_field_is_its_value_not_a_count(world, supervisor_client, start, talk, text):
    conversation = start(supervisor_client)

    turn = talk(supervisor_client, conversation, text)

    assert turn["response"]["type"] == "answer" and "20" in turn["response"]["message"], turn["response"]


def test_doing_the_same_thing_on_another_repeats_the_write(world, supervisor_client, start, talk):
    sst.permit_create(tenant=world.tenant, company=world.delta, number="803", validity_days=20)
    conversation = start(supervisor_client)
    talk(supervisor_client, conversation, "muda a validade da 802 pra 25 dias")
    talk(supervisor_client, conversation, "sim")

    turn = talk(supervisor_client, conversation, "e faz a mesma coisa na 803")

    assert "803" in proposed(turn) and "25 dias" in proposed(turn), turn["response"]
    assert "clonar" not in proposed(turn), turn["response"]


def test_what_will_not_happen_is_told_not_a_place_to_go(world, supervisor_client, start, talk):
    """"a 802 não vai mais acontecer, cancela ela": the negated future is said of the item, not "vai" (go) to it."""
    conversation = start(supervisor_client)

    turn = talk(supervisor_client, conversation, "A 802 não vai mais acontecer, cancela ela")

    assert "802" in proposed(turn) and "cancelar" in proposed(turn), turn["response"]


def test_a_correction_typed_short(world, supervisor_client, start, talk):
    """"na vdd é a …": "vdd" is "verdade" — the value instead of the one proposed."""
    inspection_78(world)
    conversation = start(supervisor_client)
    talk(supervisor_client, conversation, "poe a Ana Costa de inspetora na 78")

    turn = talk(supervisor_client, conversation, "na vdd e a Ana Ribeiro")

    assert "Ana Ribeiro" in proposed(turn) and "78" in proposed(turn), turn["response"]
