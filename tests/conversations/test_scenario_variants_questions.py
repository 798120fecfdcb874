"""What blind scenarios of questions, screens and supervisors found: an undo of "what was done", a partial
result naming what failed as the user named it, inspections filtered by their inspector, a yes-or-no question
never a write, "same question for <n>", "bump it up by <n>" as a change by that amount, and a choice said by its
place in the list shown ("a de cima", "the second one"). Each failed before its change but the inspector lists:
in this world the free-text search happened to find the inspector's name; in the blind file's it listed all five
(now a filter of its own, `inspector`, in the sample API and the manifest)."""

from __future__ import annotations

import pytest

from knowledge.services import knowledge_package_create
from sst.models import Inspection, PermitComponent

from .conftest import inspection_78, selection

executes = pytest.mark.django_db(transaction=True)


def _msg(turn) -> str:
    return turn["response"]["message"]


@executes
@pytest.mark.parametrize("undo", ["desfaz o que foi feito", "undo what was done",
                                  # the fresh blind corpora's (test_scenario_variants_fresh.py): the last thing
                                  # done, and an undo with a remark on what the user did
                                  "hmm undo the last thing you did", "desfaz essa adição aí",
                                  "desfaça isso, por favor; coloquei na permissão errada",
                                  "undo that please, I added it to the wrong permit"])
def test_an_undo_of_what_was_done(world, operator_client, start, talk, undo):
    conversation = start(operator_client)
    talk(operator_client, conversation, "bota montagem de andaime", ui=selection(world.p802))
    talk(operator_client, conversation, "sim")
    turn = talk(operator_client, conversation, undo)
    assert turn["response"]["confirmation"] and "Montagem de Andaime" in _msg(turn), turn["response"]


@executes
@pytest.mark.parametrize(("text", "person", "listed", "not_listed"), [
    ("Quais inspeções estão com a Ana Costa?", "ana_costa", "78", "79"),
    ("Which inspections is Bruno Teixeira assigned to?", "bruno", "79", "78"),
])
def test_inspections_listed_by_their_inspector(world, operator_client, start, talk, text, person, listed, not_listed):
    inspection_78(world)
    for number, who in (("78", world.ana_costa), ("79", world.bruno)):
        Inspection.objects.for_tenant(world.tenant).filter(number=number).update(inspector=who)
    turn = talk(operator_client, start(operator_client), text)
    assert turn["response"]["type"] == "answer" and listed in _msg(turn) and not_listed not in _msg(turn), turn


@executes
def test_a_yes_or_no_question_about_a_child_is_no_write(world, operator_client, start, talk):
    PermitComponent.objects.create(tenant=world.tenant, permit=world.p802, component_type=world.weld)
    turn = talk(operator_client, start(operator_client), "does 802 include scaffolding assembly?")
    assert turn["response"]["confirmation"] is None, turn["response"]
    assert turn["response"]["type"] == "answer" and "Solda Elétrica" in _msg(turn)


@executes
def test_the_same_question_for_another_item(world, operator_client, start, talk):
    conversation = start(operator_client)
    talk(operator_client, conversation, "what's the validity of permit 802?")
    turn = talk(operator_client, conversation, "same question for 771 of Omega")
    assert turn["response"]["type"] == "answer" and "771" in _msg(turn), turn["response"]


@executes
@pytest.mark.parametrize(("then", "days"), [("Bump it up by 10 days", "30"), ("raise it by 5 days", "25"),
                                            ("baixa em 5 dias", "15")])
def test_a_change_by_an_amount_after_the_field_was_asked(world, operator_client, start, talk, then, days):
    conversation = start(operator_client)
    talk(operator_client, conversation, "qual a validade da 802?")
    turn = talk(operator_client, conversation, then)
    assert turn["response"]["confirmation"] and f"{days} " in _msg(turn), turn["response"]


@executes
@pytest.mark.parametrize(("choice", "index"), [("a de cima", 0), ("the second one", 1), ("a última", 1)])
def test_a_choice_said_by_its_place_in_the_list(world, operator_client, start, talk, choice, index):
    conversation = start(operator_client)
    asked = talk(operator_client, conversation, "abre a permissão 771")
    candidates = asked["response"]["clarification"]["candidates"]
    turn = talk(operator_client, conversation, choice)
    assert turn["response"]["type"] == "navigation", turn["response"]
    assert turn["response"]["navigation"]["entity"]["id"] == str(candidates[index]["id"])


@executes
@pytest.mark.parametrize("again", ["And this one?", "e essa aqui?"])
def test_the_same_question_about_the_item_selected_since(world, operator_client, start, talk, again):
    conversation = start(operator_client)
    talk(operator_client, conversation, "What's the validity of this permit?", ui=selection(world.p802))
    turn = talk(operator_client, conversation, again, ui=selection(world.p771))
    assert turn["response"]["type"] == "answer" and "771" in _msg(turn), turn["response"]


@executes
@pytest.mark.parametrize("correction", ["No, I meant this one", "não, quis dizer essa aqui"])
def test_a_correction_pointing_at_the_item_selected_since(world, operator_client, start, talk, correction):
    conversation = start(operator_client)
    talk(operator_client, conversation, "Set the validity of this one to 44 days", ui=selection(world.p802))
    turn = talk(operator_client, conversation, correction, ui=selection(world.p771))
    assert turn["response"]["confirmation"] and "771" in _msg(turn) and "44" in _msg(turn), turn["response"]


def _focus(permit, field: str, label: str) -> dict:
    return {**selection(permit), "focus": {"fieldName": field, "label": label}}


@executes
@pytest.mark.parametrize(("text", "field", "label", "expected"), [
    ("What's this field?", "validity_days", "Validade", "19 dias"),
    ("o que é esse campo?", "responsible", "Responsável", "execução segura"),
    ("pra que serve esse campo?", "validity_days", "Validade", "19 dias"),
])
def test_what_the_field_under_the_cursor_is(world, operator_client, start, talk, text, field, label, expected):
    knowledge_package_create(tenant=world.tenant, documents=[
        {"title": "Validade da permissão",
         "body": "A validade diz por quantos dias a permissão vale; o padrão é 19 dias."},
        {"title": "Responsável pela permissão", "body": "O responsável responde pela execução segura do trabalho."}])
    turn = talk(operator_client, start(operator_client), text, ui=_focus(world.p802, field, label))
    assert turn["response"]["type"] == "answer" and expected in _msg(turn), turn["response"]
