"""What the sixteenth session mended, each a general mechanism found among the whole corpus's leftovers: a request
after sentences that only tell why, navigation said in street words, tabs moved to, an item named by what it has
before its noun. None of the corpus's phrasings is used here. Each test failed before its change, unless it says
it guards. (Permit 802 of Delta has 20 days; 771 of Delta has Bruno Teixeira responsible; inspection 78 is 5 days
out, 79 six.)"""

from __future__ import annotations

from datetime import timedelta

import pytest

from conversations.dates import today
from sst import inspection_services

from .conftest import inspection_78, said

pytestmark = pytest.mark.django_db

# --- a request after what the message tells ----------------------------------------------------------------------


def test_a_request_after_a_told_sentence_is_read_without_the_told_verbs(world, supervisor_client, start, talk):
    inspection_78(world)
    reply = said(supervisor_client, start, talk,
                  "Choveu a noite toda e o acesso ao pátio virou lama. Remarca a inspeção 78 para daqui a 9 dias, "
                  "por favor.")

    assert reply["type"] == "confirmation" and "78" in reply["message"], reply
    assert "remarcar" in reply["message"].lower(), reply


@pytest.mark.parametrize(("text", "language"), [
    ("Revisei a análise de risco da 802 com a equipe e ficou tudo certo. Pode aprovar.", None),
    ("Checked 802 with the team this morning – go ahead and approve it please.", "en"),
])
def test_the_item_told_before_a_bare_request_is_the_one_acted_on(world, supervisor_client, start, talk, text, language):
    """(The English one guards: the dash is a sentence's end, and the told item stays the one acted on.)"""
    reply = said(supervisor_client, start, talk, text, language=language)

    assert reply["type"] == "confirmation" and "802" in reply["message"], reply
    assert any(word in reply["message"].lower() for word in ("aprovar", "approve")), reply
    world.p802.refresh_from_db()
    assert world.p802.status == "DRAFT"


def test_a_creation_keeps_what_the_told_sentence_gives_it(world, supervisor_client, start, talk):
    """Guards: the company named before "agenda uma nova <entidade> lá" stays the new item's company."""
    reply = said(supervisor_client, start, talk,
                  "Recebemos um pedido da Delta Engenharia. Agenda uma nova inspeção lá para daqui a 3 dias.")

    assert "Delta Engenharia" in reply["message"] or reply["type"] == "clarification", reply


# --- navigation in street words, tabs moved to ------------------------------------------------------------------


@pytest.mark.parametrize(("text", "language"), [("yo, pull up 79 real quick", "en"),
                                                 ("me joga lá na inspeção 79", None),
                                                 ("joga na tela a inspeção 79", None)])
def test_street_words_for_opening_open_the_item(world, supervisor_client, start, talk, text, language):
    inspection_78(world)
    reply = said(supervisor_client, start, talk, text, language=language)

    assert reply["type"] == "navigation" and "79" in reply["message"], reply


def test_handing_an_item_to_a_person_assigns_it_and_passing_it_to_a_day_moves_it(world, supervisor_client, start,
                                                                                  talk):
    inspection_78(world)
    to_person = said(supervisor_client, start, talk, "repassa a 79 pra Ana Costa")
    to_day = said(supervisor_client, start, talk, "passa a 79 pra daqui 12 dias")  # guards

    assert to_person["type"] == "confirmation" and "Ana Costa" in to_person["message"], to_person
    assert "inspetor" in to_person["message"].lower(), to_person
    assert to_day["type"] == "confirmation" and "remarcar" in to_day["message"].lower(), to_day


@pytest.mark.parametrize(("texts", "language"), [
    (("abre a 802", "passa pra aba de trabalhadores"), None),
    (("open inspection 78", "findings tab. quick. come on"), "en"),
])
def test_a_tab_moved_to_opens_it_on_the_item_in_view(world, supervisor_client, start, talk, texts, language):
    inspection_78(world)
    reply = said(supervisor_client, start, talk, *texts, language=language)

    assert reply["type"] == "navigation", reply
    assert (reply.get("navigation") or {}).get("tab") in ("workers", "findings"), reply


# --- an item named by what it has, before its noun ---------------------------------------------------------------


def test_a_value_before_the_noun_names_the_item(world, supervisor_client, start, talk):
    inspection_78(world)
    inspection_services.inspection_create(tenant=world.tenant, company=world.omega, site="Oficina", number="81",
                                          scheduled_for=today() + timedelta(days=8))
    site = said(supervisor_client, start, talk, "the Oficina inspection", language="en")
    person = said(supervisor_client, start, talk, "Bruno Teixeira's permit", language="en")

    assert site["type"] == "navigation" and "81" in site["message"], site
    assert person["type"] == "navigation" and "771" in person["message"], person
    assert "Delta" in person["message"], person


# --- a no, then a question --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("answer", "language"), [("não, não. e qual a validade dela hoje?", None),
                                                  ("cancel that. what's its validity btw?", "en")])
def test_a_no_then_a_question_sets_the_proposal_aside_and_answers(world, supervisor_client, start, talk, answer,
                                                                    language):
    reply = said(supervisor_client, start, talk, "mude a validade da permissão 802 para 31 dias", answer,
                  language=language)

    assert reply["type"] == "answer" and "20" in reply["message"], reply
    assert not reply.get("confirmation"), reply
    world.p802.refresh_from_db()
    assert world.p802.validity_days == 20


# --- a creation at a place its items already have ----------------------------------------------------------------


def test_a_creation_at_a_known_place_takes_that_place_not_the_words_left_over(world, supervisor_client, start, talk):
    inspection_services.inspection_create(tenant=world.tenant, company=world.omega, site="Oficina", number="81",
                                          scheduled_for=today() + timedelta(days=8))
    reply = said(supervisor_client, start, talk, "Hello there, could you kindly book an inspection for Omega "
                  "Serviços at the Oficina in 10 days? Cheers!", language="en")

    assert reply["type"] == "confirmation" and "“Oficina”" in reply["message"], reply


def test_an_item_read_with_no_field_asked_is_answered_with_the_item(world, supervisor_client, start, talk):
    inspection_78(world)
    reply = said(supervisor_client, start, talk, "whats up with inspection 79", language="en")

    assert reply["type"] == "answer" and "79" in reply["message"] and "Doca 2" in reply["message"], reply


# --- an undo after what the message tells -----------------------------------------------------------------------


@pytest.mark.parametrize(("texts", "language"), [
    (("coloca solda na 802", "!confirm", "Ih, pus a solda no lugar errado. Você poderia desfazer essa última mudança?"),
     None),
    (("add welding to 802", "!confirm", "how long is 802 valid?",
      "right, back to that permit, undo the welding I added"), "en"),
])
def test_an_undo_after_a_told_clause_undoes_the_last_change(world, supervisor_client, start, talk, texts, language):
    """(The Portuguese one guards: its told sentence names no verb of adding.)"""
    reply = said(supervisor_client, start, talk, *texts, language=language)

    assert reply["type"] == "confirmation" and "Solda Elétrica" in reply["message"], reply
    assert any(word in reply["message"].lower() for word in ("remover", "remove")), reply


# --- a question asked of the last two items -----------------------------------------------------------------------


@pytest.mark.parametrize(("texts", "says", "language"), [
    (("abre a 802", "abre a 771 da Omega", "e qual a validade dessas duas?"), ("802", "771"), None),
    (("open inspection 78", "open inspection 79", "what's the site of the two of them?"), ("Doca 9", "Doca 2"), "en"),
])
def test_a_question_of_the_two_is_answered_for_each(world, supervisor_client, start, talk, texts, says, language):
    inspection_78(world)
    reply = said(supervisor_client, start, talk, *texts, language=language)

    assert reply["type"] == "answer", reply
    assert all(said in reply["message"] for said in says), reply


def test_which_with_a_noun_in_the_singular_still_lists(world, supervisor_client, start, talk):
    reply = said(supervisor_client, start, talk, "quais pt tão em rascunho")

    assert reply["type"] == "answer" and "802" in reply["message"], reply


def test_a_date_moved_by_days_is_never_the_item_in_view_of_another_type(world, supervisor_client, start, talk):
    """"move it 5 days later" with an inspection, then a permit open: the verb moves an inspection's date; the
    permit's days are no date — never its field changed in the verb's place (it asks, or moves the inspection)."""
    inspection_78(world)
    reply = said(supervisor_client, start, talk, "open inspection 78", "open permit 802", "move it 5 days later",
                  language="en")

    assert "802" not in reply["message"], reply
    world.p802.refresh_from_db()
    assert world.p802.validity_days == 20
