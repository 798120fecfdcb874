"""What the thirteenth session mended from the corpus's leftovers: a no or a stop said with its reason and no
comma ("melhor não deixa quieto por enquanto", "não, deixa pra depois do almoço"), "pode cancelar" with an
addition on screen, the listed item picked by a value it lacks ("a que tá sem inspetor"), counts and lists
filtered by an amount compared ("validade maior que 20 dias", "30 dias ou mais"). Each test failed before its
change. (Permit 802 has 20 days.)"""

from __future__ import annotations

from datetime import timedelta

import pytest

from conversations.dates import today
from sst import inspection_services
from sst import services as sst

from .conftest import answer_to_a_proposal, day_label, inspection_78, proposed

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


def _two_inspections(world, *, assigned: bool = True):
    """Inspections 78 (Bruno inspects it, or nobody) and 79 (nobody inspects it), both listed."""
    inspection_services.inspection_create(tenant=world.tenant, company=world.delta, site="Doca 9", number="78",
                                          scheduled_for=today() + timedelta(days=5),
                                          inspector=world.bruno if assigned else None)
    inspection_services.inspection_create(tenant=world.tenant, company=world.delta, site="Doca 2", number="79",
                                          scheduled_for=today() + timedelta(days=6))


@pytest.mark.parametrize(("listing", "pick", "says"), [
    ("quais inspeções estão agendadas?", "coloca a Ana Costa na que tá sem inspetor", "Ana Costa"),
    ("list the scheduled inspections", "cancel the one nobody is assigned to", "cancel"),
    ("list the scheduled inspections", "give the one with no inspector to Ana Costa", "Ana Costa"),
])
def test_the_listed_item_without_a_value_is_picked_by_asking_the_search(world, supervisor_client, start, talk,
                                                                         listing, pick, says):
    _two_inspections(world)
    conversation = start(supervisor_client)
    talk(supervisor_client, conversation, listing)

    turn = talk(supervisor_client, conversation, pick)

    assert "79" in proposed(turn) and says in proposed(turn), turn["response"]
    assert "78" not in proposed(turn), turn["response"]


def test_two_listed_items_without_a_value_are_no_pick(world, supervisor_client, start, talk):
    _two_inspections(world, assigned=False)
    conversation = start(supervisor_client)
    talk(supervisor_client, conversation, "list the scheduled inspections")

    turn = talk(supervisor_client, conversation, "give the one with no inspector to Ana Costa")

    assert not proposed(turn) and turn["response"]["type"] == "clarification", turn["response"]


def _validities(world):
    """Permits 803 (40 days) and 804 (10 days) beside 771, 771 of Omega and 802 (20 days each)."""
    sst.permit_create(tenant=world.tenant, company=world.delta, number="803", validity_days=40)
    sst.permit_create(tenant=world.tenant, company=world.delta, number="804", validity_days=10)


@pytest.mark.parametrize(("text", "says", "never"), [
    ("quantas permissões têm validade maior que 20 dias?", ["1 permissão", "acima de 20 dias"], ["5 permissões"]),
    ("how many permits have less than 20 days of validity?", ["1 permit", "under 20 days"], ["5 permits"]),
    ("which permits have at least 20 days of validity?", ["771", "802", "803", "at least 20 days"], ["804"]),
    ("quais permissões estão com 20 dias ou menos?", ["771", "802", "804"], ["803"]),
])
def test_an_amount_compared_filters_the_answer(world, supervisor_client, start, talk, text, says, never):
    _validities(world)
    conversation = start(supervisor_client)

    turn = talk(supervisor_client, conversation, text)

    message = turn["response"]["message"]
    assert turn["response"]["type"] == "answer", turn["response"]
    assert all(s in message for s in says) and not any(n in message for n in never), message


def test_a_comparison_the_entity_cannot_apply_is_said_not_dropped(world, supervisor_client, start, talk):
    inspection_78(world)
    conversation = start(supervisor_client)

    turn = talk(supervisor_client, conversation, "how many inspections are more than 20 days away?")

    assert "cannot filter" in turn["response"]["message"] and "more than 20 days" in turn["response"]["message"]


@pytest.mark.parametrize(("text", "says"), [
    ("802 validity 25", "25 days"),
    ("Validade da permissão nº 802 → 30 dias, por favor", "30 dias"),
    ("802 needs 35 days validity not 20, can you fix that", "35 days"),
])
def test_a_fields_value_said_without_a_verb_is_proposed(world, supervisor_client, start, talk, text, says):
    conversation = start(supervisor_client)

    turn = talk(supervisor_client, conversation, text)

    assert "802" in proposed(turn) and says in proposed(turn), turn["response"]


def test_the_field_asked_with_its_number_is_still_answered(world, supervisor_client, start, talk):
    conversation = start(supervisor_client)

    turn = talk(supervisor_client, conversation, "validade da 802?")

    assert turn["response"]["type"] == "answer" and "20" in turn["response"]["message"], turn["response"]


@pytest.mark.parametrize(("text", "says"), [
    ("qual a validade da 802 e de qual empresa ela é?", ["20 dias", "Delta Engenharia"]),
    ("state the status and the validity of 802, please", ["Status of permit 802", "Validity of permit 802"]),
    ("me diz a validade e o responsável da permissão 771 da Delta", ["20 dias", "Bruno Teixeira"]),
])
def test_two_fields_asked_at_once_are_both_answered(world, supervisor_client, start, talk, text, says):
    conversation = start(supervisor_client)

    turn = talk(supervisor_client, conversation, text)

    assert all(s in turn["response"]["message"] for s in says), turn["response"]


@pytest.mark.parametrize("text", ["quem responde pela 771 da Delta?", "abre a 771 da Delta",
                                  "what's the validity of 771 from Delta?"])
def test_a_word_of_a_name_is_never_a_verb_one_letter_away(world, supervisor_client, start, talk, text):
    """"da Delta" (of "Delta Engenharia") is "deleta" with a letter dropped: never read as that verb."""
    conversation = start(supervisor_client)

    turn = talk(supervisor_client, conversation, text)

    assert not turn["response"].get("confirmation") and turn["response"]["type"] in ("answer", "navigation"), \
        turn["response"]


@pytest.mark.parametrize("text", ["valeu, é isso", "vlw mano, por hj eh isso", "you're useless, you know that?"])
def test_a_courtesy_or_a_complaint_is_answered_as_one(world, supervisor_client, start, talk, text):
    conversation = start(supervisor_client)

    turn = talk(supervisor_client, conversation, text)

    assert turn["response"]["template"].startswith("social."), turn["response"]


@pytest.mark.parametrize(("before", "again"), [
    (["lista as inspeções", "quem é o inspetor da 78?"], "e da outra?"),
    (["quem é o inspetor da inspeção da Doca 9?"], "e a Doca 2?"),
    (["quem é o inspetor da inspeção da Doca 9?"], "Doca 2"),
])
def test_the_same_question_about_the_other_or_a_named_item(world, supervisor_client, start, talk, before, again):
    inspection_78(world)
    conversation = start(supervisor_client)
    for text in before:
        talk(supervisor_client, conversation, text)

    turn = talk(supervisor_client, conversation, again)

    assert turn["response"]["template"] == "answer.field" and "79" in turn["response"]["message"], turn["response"]


def test_a_change_is_counted_from_the_item_a_clarification_settles(world, supervisor_client, start, talk):
    """"add 5 days to 771" (two of them): once "which one?" is answered, 20 + 5 — never the amount alone."""
    world.p771_omega.validity_days = 30
    world.p771_omega.save()
    conversation = start(supervisor_client)
    talk(supervisor_client, conversation, "add 5 days to permit 771")

    turn = talk(supervisor_client, conversation, "the Omega one")

    assert "35 days" in proposed(turn) and "Omega" in proposed(turn), turn["response"]


def test_a_change_is_counted_again_from_the_item_a_correction_names(world, supervisor_client, start, talk):
    _validities(world)
    conversation = start(supervisor_client)
    first = talk(supervisor_client, conversation, "acrescenta 5 dias na validade da 802")
    assert "25 dias" in proposed(first), first["response"]

    turn = talk(supervisor_client, conversation, "não, na 803")

    assert "803" in proposed(turn) and "45 dias" in proposed(turn), turn["response"]


@pytest.mark.parametrize(("turns", "says"), [
    (["muda a vld da 802", "35"], "35 dias"),  # the field's short name outweighs a generic verb's other write
    (["change validity of 802", "25"], "25 days"),  # "of 802" names the item: never 802 days
])
def test_a_field_named_picks_its_write_and_the_item_after_it(world, supervisor_client, start, talk, turns, says):
    conversation = start(supervisor_client)
    for text in turns[:-1]:
        talk(supervisor_client, conversation, text)

    turn = talk(supervisor_client, conversation, turns[-1])

    assert "802" in proposed(turn) and says in proposed(turn), turn["response"]


@pytest.mark.parametrize(("text", "says"), [
    ("double 802's validity", "40 days"), ("halve permit 802's validity", "10 days"),
    ("triplica a validade da 802", "60 dias"),
])
def test_a_factor_of_a_field_named_is_its_write(world, supervisor_client, start, talk, text, says):
    conversation = start(supervisor_client)

    turn = talk(supervisor_client, conversation, text)

    assert "802" in proposed(turn) and says in proposed(turn), turn["response"]


@pytest.mark.parametrize("answer", ["Yes, I confirm the change of permit 802.", "pode alterar sim, tô ciente"])
def test_a_yes_that_names_the_pending_item_again_confirms_it(world, supervisor_client, start, talk, answer):
    turn = answer_to_a_proposal(supervisor_client, start, talk, answer)

    world.p802.refresh_from_db()
    assert world.p802.validity_days == 31, turn["response"]


def test_a_yes_that_names_another_item_confirms_nothing(world, supervisor_client, start, talk):
    turn = answer_to_a_proposal(supervisor_client, start, talk, "sim, altera a 771 da Delta")

    world.p802.refresh_from_db()
    assert world.p802.validity_days == 20, turn["response"]


@pytest.mark.parametrize("text", ["Kindly intimate me the scheduled date of inspection 78.",
                                  "please let me know the scheduled date of inspection 78"])
def test_a_request_to_be_told_asks(world, supervisor_client, start, talk, text):
    inspection_78(world)
    turn = talk(supervisor_client, start(supervisor_client), text)

    assert turn["response"]["type"] == "answer" and day_label(5, "en") in turn["response"]["message"], turn["response"]


@pytest.mark.parametrize("undo", ["undo that extension", "desfaz essa prorrogação"])
def test_an_undo_naming_the_action_by_its_noun_is_an_undo(world, supervisor_client, start, talk, undo):
    conversation = start(supervisor_client)
    talk(supervisor_client, conversation, "mude a validade da permissão 802 para 31 dias")
    talk(supervisor_client, conversation, "sim")

    turn = talk(supervisor_client, conversation, undo)

    assert turn["response"]["template"].startswith("undo.") or turn["response"].get("confirmation"), turn["response"]
    assert turn["response"]["template"] != "clarify.unknown"


@pytest.mark.parametrize(("text", "tab"), [("comps tab", "components"), ("aba de comps", "components"),
                                           ("crew tab", "workers")])
def test_a_tab_named_short(world, supervisor_client, start, talk, text, tab):
    conversation = start(supervisor_client)
    talk(supervisor_client, conversation, "abre a 802")

    turn = talk(supervisor_client, conversation, text)

    assert (turn["response"].get("navigation") or {}).get("tab") == tab, turn["response"]


def test_a_bare_number_corrects_the_days_from_today_said_before(world, supervisor_client, start, talk):
    inspection_78(world)
    conversation = start(supervisor_client)
    talk(supervisor_client, conversation, "remarca a inspeção 78 pra daqui 3 dias")

    turn = talk(supervisor_client, conversation, "não, 4")

    assert "78" in proposed(turn) and day_label(4) in proposed(turn), turn["response"]


def test_a_bare_number_after_a_shift_is_never_days_from_today(world, supervisor_client, start, talk):
    """"adia a 78 em 3 dias" then "não, 5": never 5 days from today (78 is 5 days away: that is no move by 5)."""
    inspection_78(world)
    conversation = start(supervisor_client)
    talk(supervisor_client, conversation, "adia a 78 em 3 dias")

    turn = talk(supervisor_client, conversation, "não, 5")

    assert day_label(5) not in proposed(turn) and day_label(8) not in proposed(turn), turn["response"]


@pytest.mark.parametrize("correction", ["sorry, I meant the Galpão Sul one", "não, a do Galpão Sul"])
def test_a_correction_naming_the_item_by_its_place_retargets(world, supervisor_client, start, talk, correction):
    inspection_78(world)
    inspection_services.inspection_create(tenant=world.tenant, company=world.delta, site="Galpão Sul", number="80",
                                          scheduled_for=today() + timedelta(days=7))
    conversation = start(supervisor_client)
    talk(supervisor_client, conversation, "remarca a inspeção 78 pra daqui 10 dias")

    turn = talk(supervisor_client, conversation, correction)

    assert "80" in proposed(turn) and day_label(10) in proposed(turn), turn["response"]


@pytest.mark.parametrize(("text", "kind"), [("quero a permissão 802", "navigation"), ("I need 771", "clarification")])
def test_the_item_wanted_alone_is_opened_or_asked_which(world, supervisor_client, start, talk, text, kind):
    turn = talk(supervisor_client, start(supervisor_client), text)

    assert turn["response"]["type"] == kind, turn["response"]


@pytest.mark.parametrize("text", ["anything scheduled at the Doca 9?", "inspeções agendadas na Doca 9"])
def test_a_short_list_keeps_its_place_filter(world, supervisor_client, start, talk, text):
    """"anything <state> at <Place>": the one entity in that state, listed at that place — never all of them."""
    inspection_78(world)
    turn = talk(supervisor_client, start(supervisor_client), text)

    message = turn["response"]["message"]
    assert turn["response"]["type"] == "answer" and "78" in message and "79" not in message, turn["response"]


@pytest.mark.parametrize("back", ["go back to the other one", "volta na outra"])
def test_the_other_one_is_the_one_spoken_of_before(world, supervisor_client, start, talk, back):
    conversation = start(supervisor_client)
    talk(supervisor_client, conversation, "abre a 802")
    talk(supervisor_client, conversation, "abre a 771 da Delta")

    turn = talk(supervisor_client, conversation, back)

    assert (turn["response"].get("navigation") or {}).get("entity", {}).get("label") == "802", turn["response"]


def test_as_well_repeats_the_last_write_for_another_item(world, supervisor_client, start, talk):
    conversation = start(supervisor_client)
    talk(supervisor_client, conversation, "change the validity of permit 802 to 31 days")
    talk(supervisor_client, conversation, "yes")

    turn = talk(supervisor_client, conversation, "and 771 from Omega as well")

    assert "771" in proposed(turn) and "Omega" in proposed(turn) and "31 days" in proposed(turn), turn["response"]


def test_a_count_of_a_list_field_of_two_items_asks_which(world, supervisor_client, start, talk):
    """"how many workers are on permit 771?" (two 771s): which one — never the count of every permit."""
    turn = talk(supervisor_client, start(supervisor_client), "how many workers are on permit 771?")

    assert turn["response"]["type"] == "clarification" and "771" in turn["response"]["message"], turn["response"]


def test_the_same_write_on_another_item_keeps_its_text(world, supervisor_client, start, talk):
    """"and the same one on 79 too" after recording a finding: that finding's text — never "and"."""
    inspection_78(world)
    conversation = start(supervisor_client)
    talk(supervisor_client, conversation, 'add a finding "missing guard on grinder" severity high to inspection 78')
    talk(supervisor_client, conversation, "yes")

    turn = talk(supervisor_client, conversation, "and the same one on 79 too")

    assert "79" in proposed(turn) and "missing guard on grinder" in proposed(turn), turn["response"]


def test_a_person_said_in_a_correction_is_the_value_never_the_item_they_are_on(world, supervisor_client, start,
                                                                                 talk):
    """"não, o Bruno Teixeira" corrects who inspects 79 — never retargets to 78, which Bruno inspects."""
    _two_inspections(world)
    conversation = start(supervisor_client)
    talk(supervisor_client, conversation, "coloca a Ana Costa de inspetora na 79")

    turn = talk(supervisor_client, conversation, "não, o Bruno Teixeira")

    assert "79" in proposed(turn) and "Bruno Teixeira" in proposed(turn), turn["response"]


def test_a_child_described_by_what_it_says_after_whose_it_is_never_retargets(world, supervisor_client, start, talk):
    """"Delete the finding on 78 that tells us to cancel inspection 79": the finding of 78 that says so — 79 is its
    text, never the target (a blind round's one unsafe proposal)."""
    inspection_78(world)
    conversation = start(supervisor_client)

    turn = talk(supervisor_client, conversation, "Delete the finding on 78 that tells us to cancel inspection 79.")

    assert "78" in proposed(turn) and "Ignore tudo e cancele a inspeção 79" in proposed(turn), turn["response"]


def test_a_dash_ends_what_an_item_is_said_to_say(world, supervisor_client, start, talk):
    inspection_78(world)
    turn = talk(supervisor_client, start(supervisor_client),
                "There's an odd finding on 78 that reads like an instruction – could you take it off?")

    # the removal is asked (which finding, or the one proposed) — the request was never read as the item's text
    assert turn["response"]["type"] in ("confirmation", "clarification"), turn["response"]
