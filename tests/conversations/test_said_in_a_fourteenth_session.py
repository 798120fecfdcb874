"""What the fourteenth session mended: a yes said with the editor's verb for keeping a change ("pode gravar",
"save it") and a thanks after it. "Pode gravar, obrigado." had been answered as a thanks that set the pending
request aside, and "Pode gravar." was not understood. Then what a thirteenth blind round found, each a general
mechanism (a list asked with "me passa", help with words along, counts in shorthand, corrections without their
unit or their "I", "será que dá pra…", a negative amount from now, short weekdays). Each test failed before its
change. (Permit 802 has 20 days; the proposal is 31. Inspection 78 is 5 days from today.)"""

from __future__ import annotations

from datetime import timedelta

import pytest

from conversations.dates import today
from sst import services as sst

from .conftest import answer_to_a_proposal, day_label, inspection_78, said

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("answer", [
    "Pode gravar, obrigado.",
    "Pode gravar.",
    "pode salvar, valeu",
    "salva aí",
    "Go ahead and save it, thank you.",
    "save it please",
])
def test_a_yes_said_as_keep_the_change_runs_the_proposal(world, supervisor_client, start, talk, answer):
    turn = answer_to_a_proposal(supervisor_client, start, talk, answer)

    assert turn["response"]["type"] == "execution", turn["response"]
    assert "31" in turn["response"]["message"], turn["response"]


@pytest.mark.parametrize("answer", ["salva com 40 dias", "não salva não"])
def test_keep_the_change_with_another_value_or_a_no_is_not_a_yes(world, supervisor_client, start, talk, answer):
    turn = answer_to_a_proposal(supervisor_client, start, talk, answer)

    assert turn["response"]["type"] != "execution" or "31" not in turn["response"]["message"], turn["response"]
    world.p802.refresh_from_db()
    assert world.p802.validity_days == 20


@pytest.mark.parametrize(("text", "template"), [
    ("perfect, thanks", "social.thanks"), ("Perfect, thank you!", "social.thanks"), ("ok thanks", "social.thanks"),
])
def test_a_yes_with_a_thanks_and_nothing_to_confirm_is_a_thanks(world, supervisor_client, start, talk, text, template):
    """"perfect, thanks" after an answer: the thanks is answered, never "there is nothing to confirm"."""
    conversation = start(supervisor_client)
    talk(supervisor_client, conversation, "qual a validade da permissão 802?")
    turn = talk(supervisor_client, conversation, text)

    assert turn["response"]["type"] == "answer", turn["response"]
    assert turn["response"].get("template") == template, turn["response"]


def test_a_bare_yes_with_nothing_to_confirm_still_says_so(world, supervisor_client, start, talk):
    conversation = start(supervisor_client)
    turn = talk(supervisor_client, conversation, "sim")

    assert turn["response"]["type"] == "error" and turn["response"]["error"]["code"] == "NOTHING_PENDING", turn


# --- the thirteenth blind round's own words (fresh_2026_12_bw–bz): each mend general, none of its phrasings ----


@pytest.mark.parametrize("text", ["me passa por favor as permissoes que estao em rascunho",
                                  "me fala as permissões da Delta", "quais permissão tão em rascunho?"])
def test_a_list_asked_with_give_or_tell_me_or_a_slipped_plural_lists(world, supervisor_client, start, talk, text):
    reply = said(supervisor_client, start, talk, text)

    assert reply["type"] == "answer" and "802" in reply["message"], reply


@pytest.mark.parametrize("text", ["o que exatamente você consegue fazer por mim?",
                                  "Desculpa a pergunta, mas o que você faz?"])
def test_what_it_can_do_asked_with_words_along_is_help(world, supervisor_client, start, talk, text):
    reply = said(supervisor_client, start, talk, text)

    assert reply["template"].startswith("social."), reply


@pytest.mark.parametrize("text", ["qty of permits for Delta?", "# of permits for Delta"])
def test_a_count_asked_in_shorthand_counts(world, supervisor_client, start, talk, text):
    reply = said(supervisor_client, start, talk, text, language="en")

    assert reply["type"] == "answer" and "2" in reply["message"], reply  # 771 and 802 of Delta


def test_meant_alone_corrects_the_item(world, supervisor_client, start, talk):
    reply = said(supervisor_client, start, talk, "change the validity of permit 802 to 31 days", "meant 771 of Delta",
                  language="en")

    assert reply.get("confirmation") and "771" in reply["message"] and "31" in reply["message"], reply


def test_a_correction_from_now_without_its_unit_keeps_the_unit_said_before(world, supervisor_client, start, talk):
    inspection_78(world)
    reply = said(supervisor_client, start, talk, "remarca a inspeção 78 pra daqui 15 dias", "não pera, daqui 16")

    assert reply.get("confirmation") and day_label(16) in reply["message"], reply


def test_i_wonder_if_you_could_is_a_request(world, supervisor_client, start, talk):
    sst.permit_component_add(tenant=world.tenant, permit_id=world.p802.pk, component_type=world.weld)
    reply = said(supervisor_client, start, talk, "Será que dá pra remover o componente de solda da 802?")

    assert reply.get("confirmation") and "Solda Elétrica" in reply["message"], reply


def test_someone_standing_in_as_inspector_is_an_assignment(world, supervisor_client, start, talk):
    inspection_78(world)
    reply = said(supervisor_client, start, talk, "A Ana Costa pode ficar de inspetora da 78 no lugar do Bruno?")

    assert reply.get("confirmation") and "Ana Costa" in reply["message"], reply


@pytest.mark.parametrize("text", ["remarca a 78 pra daqui menos dois dias", "move 78 to in minus 3 days"])
def test_a_date_from_now_said_negative_is_asked_about(world, supervisor_client, start, talk, text):
    inspection_78(world)
    reply = said(supervisor_client, start, talk, text)

    assert reply["type"] == "clarification" and not reply.get("confirmation"), reply


@pytest.mark.parametrize(("text", "weekday"), [("move 78 to next Tue", 1), ("push 78 to Thu", 3)])
def test_a_weekday_cut_short_after_a_date_word_is_that_day(world, supervisor_client, start, talk, text, weekday):
    inspection_78(world)
    reply = said(supervisor_client, start, talk, text, language="en")

    assert reply.get("confirmation"), reply
    days = [today() + timedelta(days=n) for n in range(1, 15)]
    assert any(d.weekday() == weekday and d.isoformat() in reply["message"] for d in days), reply


def test_a_unit_slipped_after_a_number_in_words_is_the_unit(world, supervisor_client, start, talk):
    inspection_78(world)
    reply = said(supervisor_client, start, talk, "pode adiar a inspeção 78 em dois dais?")

    assert reply.get("confirmation") and day_label(7) in reply["message"], reply


@pytest.mark.parametrize(("text", "says"), [
    ("A Ana Costa perguntou quantas permissões a Delta tem", "2"),  # who asked is no filter: 771 and 802 of Delta
    ("my boss wants to know how many permits Delta has", "2"),
])
def test_who_asked_is_told_not_asked_about(world, supervisor_client, start, talk, text, says):
    reply = said(supervisor_client, start, talk, text)

    assert reply["type"] == "answer" and says in reply["message"], reply


def test_a_relayed_request_is_the_request(world, supervisor_client, start, talk):
    inspection_78(world)
    reply = said(supervisor_client, start, talk, "O Bruno pediu pra adiar a inspeção 78 em 2 dias")

    assert reply.get("confirmation") and day_label(7) in reply["message"], reply
