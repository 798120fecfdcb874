"""What the nineteenth session mended. Each test failed before its change, unless it says it guards. (Permit 802
of Delta has 20 days; 771 is both Delta's and Omega's; inspection 78 is 5 days out with two findings, 79 six.)"""

from __future__ import annotations

from datetime import timedelta

import pytest

from conversations import verb_find
from conversations.grammar import grammar_for
from planning.models import PlanStep
from registry.selectors import registry_snapshot
from sst.clock import today
from sst.models import Inspection, WorkPermit

from .conftest import inspection_78, said

pytestmark = pytest.mark.django_db


def _steps(world, reply) -> list[tuple[str, dict]]:
    steps = PlanStep.objects.for_tenant(world.tenant).filter(plan_id=reply["confirmation"]["plan_id"], kind="write")
    return [(step.capability_id, step.input) for step in steps.order_by("position")]


def _write(world, reply) -> tuple[str, dict]:
    assert reply["type"] == "confirmation", reply
    capability, values = _steps(world, reply)[0]
    return capability, {k: v for k, v in values.items() if k != "expected_revision"}


# --- a verb, a value, a target: none read as another's ------------------------------------------------------------


def test_a_verb_the_named_entity_has_is_never_lent_to_its_other_capability(world, supervisor_client, start, talk):
    """"assign" is the inspection's own verb (its inspector) and another entity's (a worker added): an unknown person
    had become a finding "John Miller" recorded on the inspection."""
    inspection_78(world)
    reply = said(supervisor_client, start, talk, "Assign John Miller to inspection 79", language="en")

    assert not reply.get("confirmation"), reply
    assert reply["type"] in ("clarification", "error"), reply


@pytest.mark.parametrize(("texts", "language", "named"), [
    (("Reschedule inspection 79",), "en", "inspection 79"),
    (("abre a inspeção 79", "remarca ela"), None, "inspeção 79"),
    (("Add a finding to inspection 78",), "en", "inspection 78"),
])
def test_a_value_asked_for_names_the_item_it_is_for(world, supervisor_client, start, talk, texts, language, named):
    """"Which date do you want?" had left the user guessing which item the answer changes."""
    inspection_78(world)
    reply = said(supervisor_client, start, talk, *texts, language=language)

    assert reply["type"] == "clarification", reply
    assert named in reply["message"], reply


def test_change_it_after_a_field_question_writes_that_field(world, supervisor_client, start, talk):
    """"change" is a verb of another entity's update: it had asked "which permit?"."""
    inspection_78(world)
    reply = said(supervisor_client, start, talk, "Who is the inspector on inspection 79?",
                 "Change it to Bruno Teixeira.", language="en")

    capability, values = _write(world, reply)
    assert capability == "inspection.assignInspector", reply
    assert values == {"inspection_id": Inspection.objects.for_tenant(world.tenant).get(number="79").pk,
                      "inspector": world.bruno.pk}


def test_reassign_is_an_assignment(world, supervisor_client, start, talk):
    inspection_78(world)
    reply = said(supervisor_client, start, talk, "Reassign inspection 79 to Bruno Teixeira", language="en")

    assert _write(world, reply)[0] == "inspection.assignInspector", reply


@pytest.mark.parametrize(("text", "language", "days"), [
    ("Inspection 79 needs to happen in ten days.", "en", 10),
    ("a inspeção 79 tem que acontecer daqui a dez dias", None, 10),
    ("Can inspection 79 be pushed back a day?", "en", 7),
])
def test_a_date_an_item_must_have_is_its_reschedule(world, supervisor_client, start, talk, text, language, days):
    """No verb of any capability ("needs to happen") or one asked of the item ("can it be pushed back"): it had not
    understood, or answered the date."""
    inspection_78(world)
    reply = said(supervisor_client, start, talk, text, language=language)

    assert _write(world, reply)[0] == "inspection.reschedule", reply
    assert _write(world, reply)[1]["scheduled_for"] == (today() + timedelta(days=days)).isoformat()


@pytest.mark.parametrize(("text", "language", "days"), [
    ("can permit 802 be extended by 10 days?", "en", 30),
    ("permit 802 extended by 10 days please", "en", 30),
    ("a 802 prorrogada em 5 dias, por favor", None, 25),
    ("a 802 precisa ter 45 dias", None, 45),
])
def test_an_amount_said_with_a_participle_keeps_its_sense(world, supervisor_client, start, talk, text, language, days):
    """"extended by 10 days" had proposed 10 days (a silent value); "precisa ter 45 dias" answered the validity."""
    reply = said(supervisor_client, start, talk, text, language=language)

    assert _write(world, reply) == ("workPermit.updateValidity", {"permit_id": world.p802.pk, "validity_days": days})


def test_a_told_reason_then_a_show(world, supervisor_client, start, talk):
    """"company" in the reason had made it a question about the permit's company."""
    reply = said(supervisor_client, start, talk, "I own this company, so show me permit 802", language="en")

    assert reply["type"] == "navigation", reply


def test_which_item_is_at_a_place(world, supervisor_client, start, talk):
    """"qual inspeção é na <local>?" had not been understood."""
    inspection_78(world)
    reply = said(supervisor_client, start, talk, "qual inspeção é na Doca 2?")

    assert reply["type"] in ("navigation", "answer"), reply
    assert "79" in reply["message"], reply


# --- confirming, withdrawing, correcting ----------------------------------------------------------------------------


@pytest.mark.parametrize("answer", ["let's do it", "ok let's do it", "bora lá", "vamos nessa"])
def test_more_ways_to_say_yes(world, supervisor_client, start, talk, answer):
    reply = said(supervisor_client, start, talk, "mude a validade da permissão 802 para 31 dias", answer)

    assert reply["type"] == "execution", reply


def test_a_request_withdrawn_without_a_pause_proposes_nothing(world, supervisor_client, start, talk):
    """Dictated with no comma, "… pra 40 não pera deixa pra lá" had proposed the 40 days."""
    reply = said(supervisor_client, start, talk, "muda a validade da 802 pra 40 não pera deixa pra lá")

    assert not reply.get("confirmation"), reply


@pytest.mark.parametrize(("texts", "language", "inspector"), [
    (("Assign Ana Costa to inspection 79", "wait, Bruno Teixeira instead"), "en", "bruno"),
    (("Assign Ana Costa to inspection 79", "Bruno Teixeira instead"), "en", "bruno"),
])
def test_instead_closing_a_value_corrects_the_proposal(world, supervisor_client, start, talk, texts, language,
                                                      inspector):
    inspection_78(world)
    reply = said(supervisor_client, start, talk, *texts, language=language)

    capability, values = _write(world, reply)
    assert (capability, values["inspector"]) == ("inspection.assignInspector", getattr(world, inspector).pk), reply


def test_instead_closing_a_look_is_that_look(world, supervisor_client, start, talk):
    """Guards: "open permit 802 instead" with a change on screen opens it (it is no correction of the change)."""
    reply = said(supervisor_client, start, talk, "mude a validade da permissão 771 da Delta para 31 dias",
                 "open permit 802 instead", language="en")

    assert reply["type"] == "navigation", reply


@pytest.mark.parametrize("text", ["não essa não a 79", "essa não a 79", "não essa a 79"])
def test_the_one_in_view_denied_then_another_named(world, supervisor_client, start, talk, text):
    """With no comma the number after "essa não" had been read as the one denied."""
    inspection_78(world)
    reply = said(supervisor_client, start, talk, "abre a inspeção 78", text)

    assert reply["type"] == "navigation", reply
    assert "79" in reply["message"], reply


def test_a_clarification_answered_by_a_state_that_is_also_a_verb(world, supervisor_client, start, talk):
    """"the draft one" ("draft" makes a new item) had set the question aside for a creation."""
    WorkPermit.objects.for_tenant(world.tenant).filter(pk=world.p771.pk).update(status="APPROVED")
    reply = said(supervisor_client, start, talk, "open the Delta permit", "the draft one", language="en")

    assert reply["type"] == "navigation", reply
    assert "802" in reply["message"], reply


def test_another_one_after_a_recorded_child_records_another(world, supervisor_client, start, talk):
    """The same write again with the values said: it had not been understood."""
    inspection_78(world)
    reply = said(supervisor_client, start, talk, "Add a HIGH finding 'Exposed wiring near panel' to inspection 79",
                 "!confirm", "and another one, medium: 'Cable trays not grounded'", language="en")

    capability, values = _write(world, reply)
    assert capability == "inspection.findings.add", reply
    assert (values["description"], values["severity"]) == ("Cable trays not grounded", "MEDIUM")


def test_another_one_after_a_change_of_a_value_is_no_new_write(world, supervisor_client, start, talk):
    """Guards: a write that records no text of its own is not repeated by "e outra"."""
    reply = said(supervisor_client, start, talk, "mude a validade da permissão 802 para 31 dias", "!confirm", "e outra")

    assert not reply.get("confirmation"), reply


# --- speed: a number is no verb ---------------------------------------------------------------------------------------


def test_a_number_is_no_verb_nor_a_slip_of_one(registry):
    """Guards the shortcut in verb_find (numbers are not scanned against every verb head): the full scan agrees."""
    heads = grammar_for(registry_snapshot()).verb_heads
    for number in ("7", "45", "310", "7003", "2026"):
        assert verb_find.heads_said(heads, number) == frozenset()
        assert verb_find.as_meant(heads, number) == number
        assert not any(verb_find._may_open(number, h) or verb_find._slip(number, h) for h in heads)


@pytest.mark.parametrize(("texts", "language"), [
    (("is permit 802 approved already",), "en"),
    (("abre a permissão 802", "essa aqui tá aprovada já"), None),
])
def test_a_state_asked_without_its_question_mark_is_answered(world, supervisor_client, start, talk, texts, language):
    """The English order (the copula first) and "essa aqui" before it had been read as an approval asked for."""
    reply = said(supervisor_client, start, talk, *texts, language=language)

    assert reply["type"] == "answer", reply
    assert not reply.get("confirmation"), reply
