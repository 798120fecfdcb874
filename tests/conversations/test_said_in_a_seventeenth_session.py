"""What the seventeenth session mended. Each test failed before its change, unless it says it guards. (Permit 802
of Delta has 20 days; 771 is both Delta's and Omega's; inspection 78 is 5 days out, 79 six.)"""

from __future__ import annotations

import pytest

from planning.models import PlanStep
from sst.models import Inspection

from .conftest import inspection_78, said

pytestmark = pytest.mark.django_db

# --- one write said of several items ------------------------------------------------------------------------------


def _proposed(world, reply) -> list[tuple[str, dict]]:
    steps = PlanStep.objects.for_tenant(world.tenant).filter(plan_id=reply["confirmation"]["plan_id"], kind="write")
    return [(step.capability_id, step.input) for step in steps.order_by("position")]


def _statuses(world) -> dict[str, str]:
    return dict(Inspection.objects.filter(tenant=world.tenant).values_list("number", "status"))


@pytest.mark.parametrize(("texts", "language"), [
    (("cancela as inspeções 78 e 79",), None),
    (("cancel inspections 78 and 79",), "en"),
    (("cancela a 78 e cancela a 79",), None),
    (("abre a inspeção 78", "abre a 79", "cancela as duas"), None),
    (("open inspection 78", "now 79", "cancel both of them"), "en"),
])
def test_one_write_said_of_two_items_is_proposed_for_each_and_runs_for_each(world, supervisor_client, start, talk,
                                                                          texts, language):
    """It had proposed the first item only (or the one in view), and said nothing of the other."""
    inspections = {i.number: i.pk for i in (inspection_78(world),)} | {
        "79": Inspection.objects.get(tenant=world.tenant, number="79").pk}
    reply = said(supervisor_client, start, talk, *texts, language=language)

    assert reply["type"] == "confirmation", reply
    assert "78" in reply["message"] and "79" in reply["message"], reply
    proposed = _proposed(world, reply)
    assert [(cap, step["inspection_id"]) for cap, step in proposed] == [
        ("inspection.cancel", inspections["78"]), ("inspection.cancel", inspections["79"])], proposed
    assert set(_statuses(world).values()) == {"SCHEDULED"}

    said(supervisor_client, start, talk, *texts, "!confirm", "ok", language=language)
    assert _statuses(world) == {"78": "CANCELLED", "79": "CANCELLED"}


def test_a_value_said_for_two_items_is_each_ones(world, supervisor_client, start, talk):
    reply = said(supervisor_client, start, talk, "muda a validade da 802 e da 771 da Omega pra 40 dias")

    assert reply["type"] == "confirmation", reply
    proposed = _proposed(world, reply)
    assert [(step["permit_id"], step["validity_days"]) for _, step in proposed] == [
        (world.p802.pk, 40), (world.p771_omega.pk, 40)], proposed


@pytest.mark.parametrize("text", [
    "adia a 78 e a 79 em 3 dias",  # a date counted from each item's own
    "aprova a 802 e a 771",  # 771 names two items
])
def test_two_items_whose_value_or_item_is_not_plain_are_asked_one_at_a_time(world, supervisor_client, start, talk,
                                                                            text):
    inspection_78(world)
    reply = said(supervisor_client, start, talk, text)

    assert reply["type"] == "clarification", reply
    assert not reply.get("confirmation"), reply


def test_a_second_value_of_a_child_is_still_the_one_items_many(world, supervisor_client, start, talk):
    """Guards: two children added to one item stay one proposal for that item."""
    reply = said(supervisor_client, start, talk, "adiciona Solda Elétrica e adiciona Ruído Contínuo na 802")

    assert reply["type"] == "confirmation", reply
    assert {step["permit_id"] for _, step in _proposed(world, reply)} == {world.p802.pk}
