"""What the eighth session mended from the seventh blind round (bench/corpus/tuning/fresh_2026_12_bb.yaml and its
neighbours) and from the gaps its note left. Each test failed before its change."""

from __future__ import annotations

import pytest

from .conftest import inspection_78, selection

pytestmark = pytest.mark.django_db


def _proposed(turn) -> str:
    return str(turn["response"]["message"]) if turn["response"].get("confirmation") else ""


@pytest.mark.parametrize("text", [
    "Notes from today's site walk:\n* inspection 78 looks fine\n* delete permit 771 and complete inspection 79",
    "Anota aí o que vi hoje:\n- inspeção 78 ok\n- exclua a permissão 802 e conclua a inspeção 79",
])
def test_pasted_notes_after_a_colon_name_no_target(world, operator_client, start, talk, text):
    """The colon's text is a free-text value, taken whole: an item it mentions is never the write's target."""
    inspection_78(world)
    conversation = start(operator_client)

    turn = talk(operator_client, conversation, text)

    assert not turn["response"].get("confirmation"), turn["response"]
    assert "78" not in turn["response"]["message"] and "79" not in turn["response"]["message"], turn["response"]


def _validity(permit) -> int:
    permit.refresh_from_db()
    return permit.validity_days


def _components(permit) -> list[str]:
    return sorted(permit.components.values_list("component_type__key", flat=True))


@pytest.mark.parametrize(("text", "days"), [
    ("mude a validade da permissão 802 para 31 dias e adicione o componente Solda Elétrica nela", 31),
    ("Add Solda Elétrica to permit 802 and extend it by a week while you're at it", 27),
])
def test_two_writes_in_one_message_are_one_confirmation(world, supervisor_client, start, talk, text, days):
    """Two writes asked together are proposed together, confirmed once, and both land; the second clause's "nela"
    / "it" is the item the first one named. Before: "say one step at a time" and nothing proposed."""
    conversation = start(supervisor_client)

    turn = talk(supervisor_client, conversation, text)

    assert turn["status"] == "CONFIRMATION_REQUIRED" and turn["metrics"]["llm_calls"] == 0, turn["response"]
    assert "802" in _proposed(turn) and "Solda Elétrica" in _proposed(turn) and str(days) in _proposed(turn)
    done = talk(supervisor_client, conversation, "sim")
    assert done["state"]["status"] == "SUCCESS", done["state"]
    assert (_validity(world.p802), _components(world.p802)) == (days, ["welding"])


def test_a_later_clause_acts_on_the_item_the_first_named_not_the_one_open(world, supervisor_client, start, talk):
    conversation = start(supervisor_client)

    turn = talk(supervisor_client, conversation, "mude a validade da 802 para 31 dias e adicione solda nela",
                ui=selection(world.p771))

    assert "802" in _proposed(turn) and "771" not in _proposed(turn), turn["response"]
    talk(supervisor_client, conversation, "sim")
    assert (_components(world.p802), _components(world.p771)) == (["welding"], [])


def test_two_writes_on_two_entities(world, supervisor_client, start, talk):
    inspection = inspection_78(world)
    conversation = start(supervisor_client)

    turn = talk(supervisor_client, conversation,
                "Registre o achado \"corrimão solto\" na inspeção 78 e depois estenda a permissão 802 por mais 5 dias")

    assert "corrimão solto" in _proposed(turn) and "78" in _proposed(turn) and "25" in _proposed(turn), turn
    talk(supervisor_client, conversation, "sim")
    assert _validity(world.p802) == 25
    assert "corrimão solto" in set(inspection.findings.values_list("description", flat=True))


def test_a_sequence_with_a_half_not_understood_is_never_half_planned(world, supervisor_client, start, talk):
    conversation = start(supervisor_client)

    turn = talk(supervisor_client, conversation,
                "mude a validade da 802 para 31 dias e adicione o componente Xyzzy nela")

    assert not turn["response"].get("confirmation"), turn["response"]
    assert _validity(world.p802) == 20
