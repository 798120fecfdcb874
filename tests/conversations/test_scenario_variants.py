"""Kinds of phrasing that blind variants of the shared scenarios found (other names, numbers and words,
written by someone who never read the agent): an explanation asked in English of a field whose noun a
verb's stem also is, "como funciona" before the topic, an explanation asked as a question right after
an add, a copy asked with any form of a copy verb ("duplica"), "nope" opening a correction, a request asked as
whether it is possible, an undo asked with an apology, a relative change after a remark or right after a write
of the field, a count asked again in an ellipsis, "quer dizer" opening a correction, going back to an item.
The first case of each test failed before its change; the others guard the neighbouring phrasings."""

from __future__ import annotations

import pytest

from conversations.grammar import grammar_for, same_word
from knowledge.services import knowledge_package_create
from registry.selectors import registry_snapshot
from sst import services as sst
from sst.models import PermitComponent, WorkPermit

from .conftest import selection

executes = pytest.mark.django_db(transaction=True)


def _knowledge(world) -> None:
    knowledge_package_create(tenant=world.tenant, documents=[
        {"title": "Validade da permissão de trabalho",
         "body": "A validade padrão de uma permissão de trabalho é de 19 dias; depois da aprovação só cabe cancelar."},
        {"title": "Work permit validity",
         "body": "The default validity of a work permit is 19 days; once approved it can only be cancelled."},
        {"title": "Montagem de Andaime", "body": "Andaimes exigem guarda-corpo e inspeção diária antes do uso."}])


@executes
@pytest.mark.parametrize("text", [
    "Explain the permit validity to me", "explain the validity of the permit",
    "Me explica como funciona a validade da permissão", "explica pra mim a validade da permissão",
])
def test_an_explanation_of_a_field_is_answered_from_the_knowledge_base(world, operator_client, start, talk, text):
    _knowledge(world)
    turn = talk(operator_client, start(operator_client), text, ui=selection(world.p802))
    assert turn["response"]["type"] == "answer", turn["response"]
    assert "19" in turn["response"]["message"], turn["response"]  # the document's, not the permit's 20 days
    assert turn["response"]["confirmation"] is None


@executes
@pytest.mark.parametrize(("add", "yes", "question"), [
    ("bota montagem de andaime", "manda ver", "pode explicar esse componente?"),
    ("add the scaffolding assembly component", "yes please", "Can you explain this component?"),
])
def test_an_explanation_asked_as_a_question_is_no_field_question(world, operator_client, start, talk, add, yes,
                                                                  question):
    _knowledge(world)
    conversation = start(operator_client)
    talk(operator_client, conversation, add, ui=selection(world.p802))
    talk(operator_client, conversation, yes)
    turn = talk(operator_client, conversation, question)
    assert turn["response"]["type"] == "answer" and "guarda-corpo" in turn["response"]["message"], turn["response"]


@executes
@pytest.mark.parametrize("text", [
    "Duplica essa permissão, mas com a Ana Costa de responsável e validade de 12 dias",
    "clona essa aqui com a Ana Costa de responsável e validade de 12 dias",
])
def test_any_form_of_a_copy_verb_copies_the_item(world, operator_client, start, talk, text):
    PermitComponent.objects.create(tenant=world.tenant, permit=world.p802, component_type=world.weld)
    conversation = start(operator_client)
    asked = talk(operator_client, conversation, text, ui=selection(world.p802))
    assert asked["response"]["confirmation"], asked["response"]
    assert "802" in asked["response"]["message"], asked["response"]  # the copy names its source
    talk(operator_client, conversation, "sim")
    copy = WorkPermit.objects.for_tenant(world.tenant).exclude(pk__in=[world.p802.pk, world.p771.pk,
                                                                      world.p771_omega.pk]).get()
    assert copy.validity_days == 12 and copy.responsible_id == world.ana_costa.pk
    assert list(copy.components.values_list("component_type__name", flat=True)) == ["Solda Elétrica"]


@pytest.mark.django_db
def test_no_one_word_verb_is_a_word_for_a_field_of_its_own_entity(registry):
    """"valid for" lost its "for" to the function-word filter and became the verb "valid", which "validity"
    matched by its stem: "explain the permit validity" was read as a change of the validity."""
    grammar = grammar_for(registry_snapshot())
    field_words: dict[str, set[str]] = {}
    for cap in grammar.capabilities.values():
        for phrases in cap.fields.values():
            field_words.setdefault(cap.entity, set()).update(p[0] for p in phrases if len(p) == 1)
    clashes = [(cap.id, verb.words[0], word) for cap in grammar.capabilities.values() for verb in cap.verbs
               if len(verb.words) == 1 for word in field_words.get(cap.entity, ()) if same_word(word, verb.words[0])]
    assert clashes == []


@executes
@pytest.mark.parametrize("correction", ["nope, the one from Omega Serviços", "nah, I meant the Omega Serviços one"])
def test_a_correction_opened_by_nope_retargets(world, operator_client, start, talk, correction):
    conversation = start(operator_client)
    first = talk(operator_client, conversation, "Open permit 771 of Delta Engenharia")
    assert first["response"]["navigation"]["entity"]["id"] == str(world.p771.pk), first["response"]
    turn = talk(operator_client, conversation, correction)
    assert turn["response"]["type"] == "navigation", turn["response"]
    assert turn["response"]["navigation"]["entity"]["id"] == str(world.p771_omega.pk)


@executes
@pytest.mark.parametrize("text", [
    "Would it be possible to create a permit just like this one, but with Ana Costa as the responsible?",
    "Seria possível criar uma permissão igual a essa, mas com a Ana Costa de responsável?",
])
def test_a_request_asked_as_whether_it_is_possible_is_no_field_question(world, operator_client, start, talk, text):
    turn = talk(operator_client, start(operator_client), text, ui=selection(world.p802))
    assert turn["response"]["confirmation"], turn["response"]  # not "the responsible of 802 is …"
    assert "802" in turn["response"]["message"] and "Ana Costa" in turn["response"]["message"]


@executes
def test_an_undo_asked_with_an_apology_undoes_and_records_nothing(world, operator_client, start, talk):
    conversation = start(operator_client)
    talk(operator_client, conversation, "bota montagem de andaime", ui=selection(world.p802))
    talk(operator_client, conversation, "sim")
    turn = talk(operator_client, conversation,
                "Peço desculpas, mas preciso que o senhor desfaça esse registro, por favor.")
    assert turn["response"]["confirmation"], turn["response"]
    assert "Montagem de Andaime" in turn["response"]["message"]
    talk(operator_client, conversation, "sim")
    assert not PermitComponent.objects.for_tenant(world.tenant).filter(permit=world.p802).exists()


@executes
@pytest.mark.parametrize(("first", "then", "days"), [
    ("What's the validity of permit 802?", "Hmm, too long — reduce it by 15 days", 5),
    ("qual a validade da 802?", "tá muito, tira 5 dias", 15),
])
def test_a_relative_change_after_a_remark(world, operator_client, start, talk, first, then, days):
    conversation = start(operator_client)
    talk(operator_client, conversation, first)
    turn = talk(operator_client, conversation, then)
    assert turn["response"]["confirmation"] and f"{days} " in turn["response"]["message"], turn["response"]


@executes
@pytest.mark.parametrize(("write", "yes", "change", "days"), [
    ("double the validity of permit 802", "yes", "reduce it by 15 days", 25),
    ("muda a validade da 802 pra 30 dias", "sim", "tira mais 5 dias", 25),
])
def test_a_relative_change_right_after_a_write_of_that_field(world, operator_client, start, talk, write, yes, change,
                                                              days):
    conversation = start(operator_client)
    talk(operator_client, conversation, write)
    talk(operator_client, conversation, yes)
    turn = talk(operator_client, conversation, change)
    assert turn["response"]["confirmation"] and f"{days} " in turn["response"]["message"], turn["response"]


@executes
@pytest.mark.parametrize("again", ["e canceladas, quantas são?", "and the cancelled ones, how many are there?"])
def test_an_ellipsis_that_says_the_count_again(world, operator_client, start, talk, again):
    sst.permit_cancel(tenant=world.tenant, permit_id=world.p771_omega.pk)
    conversation = start(operator_client)
    talk(operator_client, conversation, "quantas permissões estão em rascunho?")
    turn = talk(operator_client, conversation, again)
    assert turn["response"]["type"] == "answer", turn["response"]
    assert turn["state"]["last_result"]["execution"]["steps"][0]["capability"] == "workPermit.count"


@executes
def test_a_correction_opened_by_quer_dizer_changes_the_pending_amount(world, operator_client, start, talk):
    conversation = start(operator_client)
    talk(operator_client, conversation, "muda a validade da 802 pra 30 dias")
    turn = talk(operator_client, conversation, "quer dizer, 35 dias")
    assert turn["response"]["confirmation"] and "35" in turn["response"]["message"], turn["response"]


@executes
@pytest.mark.parametrize(("text", "label"), [("Volta pra permissão 802", "802"),
                                             ("go back to permit 771 of Delta", "771")])
def test_going_back_to_an_item_opens_it(world, operator_client, start, talk, text, label):
    conversation = start(operator_client)
    talk(operator_client, conversation, "abre a permissão 771 da Omega")
    navigation = talk(operator_client, conversation, text)["response"]["navigation"]
    assert navigation is not None and navigation["entity"]["label"] == label, navigation
