"""What the eighth session mended from the seventh blind round (bench/corpus/tuning/fresh_2026_12_bb.yaml and its
neighbours) and from the gaps its note left. Each test failed before its change."""

from __future__ import annotations

from datetime import timedelta

import pytest

from conversations.dates import today
from sst import inspection_services
from sst import services as sst

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
    told = done["state"]["last_response"]["message"]  # each write says what it did
    assert f"{days} " in told and "Solda Elétrica" in told, told


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


def _more_inspections(world):
    inspection_78(world)
    inspection_services.inspection_create(tenant=world.tenant, company=world.omega, site="Doca 2", number="83",
                                          scheduled_for=today() + timedelta(days=20))


@pytest.mark.parametrize(("first", "then", "says", "not_says"), [
    ("quais inspeções estão agendadas nos próximos 10 dias?", "e nos próximos 30 dias?", ["78", "79", "83"], []),
    ("which inspections are due in the next 30 days?", "and in the next 10 days?", ["78", "79"], ["83"]),
    ("quantas inspeções tem na Doca 9?", "e na Doca 2?", ["2 inspeções", "Doca 2"], []),
    ("how many inspections are there at the Doca 2?", "and at the Doca 9?", ["1 inspection", "Doca 9"], []),
])
def test_an_ellipsis_changes_the_window_or_the_place_of_the_last_read(world, operator_client, start, talk, first,
                                                                       then, says, not_says):
    _more_inspections(world)
    conversation = start(operator_client)
    talk(operator_client, conversation, first)

    turn = talk(operator_client, conversation, then)

    message = turn["response"]["message"]
    assert turn["response"]["type"] == "answer", turn["response"]
    assert all(s in message for s in says) and not any(s in message for s in not_says), message


@pytest.mark.parametrize("text", ["Which inspections are scheduled at the Doca 2?",
                                  "Quais inspeções estão agendadas na Doca 2?"])
def test_which_items_at_a_place_is_a_list_not_one_item_s_field(world, operator_client, start, talk, text):
    _more_inspections(world)
    conversation = start(operator_client)

    turn = talk(operator_client, conversation, text)

    message = turn["response"]["message"]
    assert "79" in message and "83" in message and "78" not in message, turn["response"]


@pytest.mark.parametrize(("text", "kind"), [("abre a aprovada", "navigation"), ("open the approved one", "navigation"),
                                            ("qual a validade da aprovada?", "answer")])
def test_an_item_picked_by_its_state_in_the_list_just_answered(world, operator_client, start, talk, text, kind):
    sst.permit_approve(tenant=world.tenant, permit_id=world.p802.pk)
    conversation = start(operator_client)
    talk(operator_client, conversation, "liste as permissões da Delta Engenharia")

    turn = talk(operator_client, conversation, text)

    assert turn["response"]["type"] == kind, turn["response"]
    assert "802" in turn["response"]["message"] and "771" not in turn["response"]["message"], turn["response"]


@pytest.mark.parametrize("text", ["a aprovada", "the approved one", "e a aprovada?"])
def test_a_state_said_of_an_item_is_no_command_to_reach_it(world, operator_client, start, talk, text):
    """"a aprovada" after a list names the approved item (the pick by state above), and the word was also read as
    the verb "aprovar": without ranking's participle rule it became an approval of that item (refused by policy
    only because it already was)."""
    sst.permit_approve(tenant=world.tenant, permit_id=world.p802.pk)
    conversation = start(operator_client)
    talk(operator_client, conversation, "liste as permissões da Delta Engenharia")

    turn = talk(operator_client, conversation, text)

    assert turn["response"]["template"] != "policy.denied_action" and not turn["response"].get("confirmation"), turn


@pytest.mark.parametrize(("then", "days"), [("pensando bem, metade disso", "30 dias"), ("hmm, half of that", "30")])
def test_half_of_the_value_just_proposed(world, operator_client, start, talk, then, days):
    conversation = start(operator_client)
    talk(operator_client, conversation, "mude a validade da permissão 802 para 60 dias")

    turn = talk(operator_client, conversation, then)

    assert "802" in _proposed(turn) and days in _proposed(turn), turn["response"]


def test_a_value_computed_that_cannot_be_set_names_the_item_it_was_for(world, operator_client, start, talk):
    sst.permit_create(tenant=world.tenant, company=world.delta, number="905", validity_days=45)
    conversation = start(operator_client)

    turn = talk(operator_client, conversation, "corta a validade da 905 pela metade")

    assert turn["response"]["template"] == "clarify.invalid_number", turn["response"]
    assert "22.5" in turn["response"]["message"] and "905" in turn["response"]["message"], turn["response"]


@pytest.mark.parametrize(("text", "says"), [("quantas inspeções tem na doca 9?", "1 inspeção"),
                                            ("how many inspections are at the doca 2?", "2 inspections")])
def test_a_place_typed_in_lower_case_still_filters_the_read(world, operator_client, start, talk, text, says):
    """A known place of the entity's own (not a capitalised name) filters too: "Há 3 inspeções" was the total."""
    _more_inspections(world)
    conversation = start(operator_client)

    turn = talk(operator_client, conversation, text)

    assert says in turn["response"]["message"], turn["response"]


@pytest.mark.parametrize(("listing", "pick"), [("quais os componentes da 802?", "tira o segundo"),
                                               ("list the components of permit 802", "remove the 2nd one")])
def test_a_part_picked_by_its_place_among_the_parts_just_listed(world, operator_client, start, talk, listing, pick):
    for kind in (world.weld, world.scaffold):
        sst.permit_component_add(tenant=world.tenant, permit_id=world.p802.pk, component_type=kind)
    conversation = start(operator_client)
    listed = talk(operator_client, conversation, listing)["response"]["message"]
    second = max(("Solda Elétrica", "Montagem de Andaime"), key=listed.index)

    turn = talk(operator_client, conversation, pick)

    assert second in _proposed(turn) and "802" in _proposed(turn), turn["response"]


@pytest.mark.parametrize(("text", "answer", "proposed"), [
    ("qual a validade da 802? e já aumenta em 5 dias", "20 dias", "25 dias"),
    ("What's the validity of permit 802 right now? Double it.", "20 days", "40 days"),
])
def test_a_field_question_then_a_request_are_both_answered(world, operator_client, start, talk, text, answer,
                                                           proposed):
    """Before: the question was answered and the request dropped."""
    conversation = start(operator_client)

    turn = talk(operator_client, conversation, text)

    assert turn["status"] == "CONFIRMATION_REQUIRED", turn["response"]
    message = turn["response"]["message"]
    assert answer in message and proposed in message and message.index(answer) < message.index(proposed), message


def test_a_correction_that_asks_for_another_entity_s_write_is_a_new_request(world, operator_client, start, talk):
    """"não, esquece, remarca a inspeção 78 …" with a validity change pending: its "9 dias" became the pending
    permit's validity (the wrong item, the wrong field)."""
    inspection_78(world)
    conversation = start(operator_client)
    talk(operator_client, conversation, "muda a validade da 802 pra 60")

    turn = talk(operator_client, conversation, "não, esquece. na verdade remarca a inspeção 78 pra daqui 9 dias")

    assert "78" in _proposed(turn) and "802" not in _proposed(turn), turn["response"]


@pytest.mark.parametrize(("first", "then", "proposed"), [
    ("set permit 802 validity to 40 days", "yes but make it 45 actually", "45 days"),
    ("muda a validade da 802 pra 40", "sim, mas 45 em vez de 40", "45 dias"),
    ("reschedule inspection 78 to 15 days from today", "make that 18 days instead", "78"),
])
def test_a_value_changed_on_the_pending_proposal_is_no_new_item(world, operator_client, start, talk, first, then,
                                                                proposed):
    """"make it 45" proposed creating a new item with 45 days."""
    inspection_78(world)
    conversation = start(operator_client)
    talk(operator_client, conversation, first)

    turn = talk(operator_client, conversation, then)

    assert proposed in _proposed(turn) and turn["response"]["template"] == "confirmation.ask", turn["response"]
    assert "criar" not in _proposed(turn) and "create" not in _proposed(turn), turn["response"]


def test_a_yes_but_first_a_question_answers_and_keeps_the_proposal(world, operator_client, start, talk):
    conversation = start(operator_client)
    talk(operator_client, conversation, "muda a validade da 802 pra 40")

    turn = talk(operator_client, conversation, "sim, mas antes me diz qual a validade atual dela?")

    assert turn["response"]["type"] == "answer" and "20" in turn["response"]["message"], turn["response"]
    assert _validity(world.p802) == 20


@pytest.mark.parametrize(("emoji", "days"), [("👍", 40), ("👍🏽", 40), ("👎", 20)])
def test_a_thumbs_up_or_down_answers_the_proposal(world, operator_client, start, talk, emoji, days):
    conversation = start(operator_client)
    talk(operator_client, conversation, "muda a validade da 802 pra 40")

    talk(operator_client, conversation, emoji)

    assert _validity(world.p802) == days


@pytest.mark.parametrize(("text", "kind"), [
    ("dá pra adiar a 78 em uma semana? o Bruno vai tá de folga", "confirmation"),  # the question is the request
    ("when is inspection 78 scheduled? I might move it, let me check first", "answer"),  # a request only thought of
    ("Quais achados foram registrados na inspeção 78? Quero levar pra reunião.", "answer"),  # no write after it
])
def test_what_is_not_a_question_then_a_request(world, operator_client, start, talk, text, kind):
    inspection_78(world)
    conversation = start(operator_client)

    turn = talk(operator_client, conversation, text)

    assert turn["response"]["type"] == kind, turn["response"]


def test_a_correction_naming_a_value_s_noun_still_corrects(world, operator_client, start, talk):
    conversation = start(operator_client)
    talk(operator_client, conversation, "abre a 771 da Delta Engenharia")

    turn = talk(operator_client, conversation, "não, a da outra empresa")

    assert turn["response"]["type"] == "navigation" and "Omega" in turn["response"]["message"], turn["response"]


@pytest.mark.parametrize(("text", "says", "not_says"), [
    ("inspeções agendadas pros próximos 5 dias", ["78"], ["79", "83"]),
    ("permissões da Omega Serviços", ["771"], ["802"]),
    ("inspections next 30 days", ["78", "79", "83"], []),
])
def test_a_plural_noun_and_its_filters_alone_list_them(world, operator_client, start, talk, text, says, not_says):
    """No verb: a noun in the plural and only what its search filters by. Before: "não entendi"."""
    _more_inspections(world)
    conversation = start(operator_client)

    turn = talk(operator_client, conversation, text)

    message = turn["response"]["message"]
    assert turn["response"]["type"] == "answer", turn["response"]
    assert all(s in message for s in says) and not any(s in message for s in not_says), message


def test_a_thumbs_up_with_nothing_to_answer_is_a_courtesy(world, operator_client, start, talk):
    conversation = start(operator_client)

    turn = talk(operator_client, conversation, "👍")

    assert turn["response"]["type"] == "answer" and not turn["response"].get("error"), turn["response"]
