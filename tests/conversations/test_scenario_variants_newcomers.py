"""What blind scenarios of newcomers and of creating things found (written by someone who never read the
agent): "deu certo?" answered from the last operation, a permission asked with a tag ("…, tudo bem?"), a
meaning asked before another noun, the words before the explain verb no topic, "please <verb>" after a
statement, a unit never a person's surname, a clarification answered with more values than asked, a field
named while a proposal waits, an amount placed by a verb while a proposal waits, several values for a slot
that takes one (asked, never dropped), several workers added at once, and help asked "before anything else".
All cases but "make it 45 days" (a guard of the English form) failed before their change."""

from __future__ import annotations

import pytest

from knowledge.services import knowledge_package_create
from sst import services as sst
from sst.models import PermitWorker, WorkPermit

from .conftest import inspection_78

executes = pytest.mark.django_db(transaction=True)


def _msg(turn) -> str:
    return turn["response"]["message"]


@executes
@pytest.mark.parametrize(("ask", "said"), [("Deu certo?", "Sim, deu certo"), ("did it work?", "Yes, it worked")])
def test_how_did_it_go_is_answered_from_the_last_operation(world, operator_client, start, talk, ask, said):
    conversation = start(operator_client)
    before = talk(operator_client, conversation, ask)
    assert before["response"]["type"] == "answer" and "20 " not in _msg(before)  # nothing ran yet: said so
    talk(operator_client, conversation, "muda a validade da 802 pra 33 dias")
    talk(operator_client, conversation, "sim")
    turn = talk(operator_client, conversation, ask)
    assert turn["response"]["type"] == "answer" and _msg(turn).startswith(said) and "33" in _msg(turn), turn


@executes
@pytest.mark.parametrize("text", ["Vou precisar adiar essa inspeção em 3 dias, tudo bem?",
                                  "I'll need to push this inspection back 3 days, is that ok?"])
def test_a_request_with_a_tag_question_is_a_request(world, operator_client, start, talk, text):
    inspection_78(world)
    conversation = start(operator_client)
    talk(operator_client, conversation, "abre a inspeção 78")
    turn = talk(operator_client, conversation, text)
    assert turn["response"]["confirmation"], turn["response"]


@executes
@pytest.mark.parametrize(("text", "expected"), [
    ("O que significa um achado numa inspeção?", "não conformidade"),
    ("Bom dia. Antes de mexer em qualquer coisa, o que significa a validade de uma permissão?", "19 dias"),
    ("What does scaffolding assembly mean?", "guard rails"),
])
def test_a_meaning_asked_is_explained_from_the_knowledge_base(world, operator_client, start, talk, text, expected):
    knowledge_package_create(tenant=world.tenant, documents=[
        {"title": "Achados de inspeção", "body": "Um achado é uma não conformidade observada na inspeção."},
        {"title": "Validade da permissão", "body": "A validade padrão de uma permissão é de 19 dias."},
        {"title": "Scaffolding assembly", "body": "Scaffolding assembly needs guard rails and a daily check."}])
    turn = talk(operator_client, start(operator_client), text)
    assert turn["response"]["type"] == "answer" and expected in _msg(turn), turn["response"]


@executes
def test_please_and_a_verb_after_a_statement_is_the_request(world, operator_client, start, talk):
    conversation = start(operator_client)
    turn = talk(operator_client, conversation, "Got it. I have permit 802 open right now, please add welding to it.")
    assert turn["response"]["confirmation"] and "Solda Elétrica" in _msg(turn), turn["response"]


@executes
def test_a_unit_after_a_number_never_names_a_person(world, operator_client, start, talk):
    sst.employee_create(tenant=world.tenant, company=world.omega, name="Carlos Dias")
    turn = talk(operator_client, start(operator_client), "Cria uma permissão de 10 dias da Delta Engenharia")
    assert turn["response"]["confirmation"] and "Carlos" not in _msg(turn), turn["response"]


@executes
@pytest.mark.parametrize(("ask", "answer"), [
    ("Preciso criar uma permissão nova de 20 dias", "É pra Delta Engenharia, e o responsável vai ser o Bruno Teixeira"),
    ("Create a 20-day permit", "It's for Delta Engenharia, and Bruno Teixeira is responsible"),
])
def test_a_clarification_answered_with_more_values_than_asked(world, operator_client, start, talk, ask, answer):
    conversation = start(operator_client)
    assert talk(operator_client, conversation, ask)["response"]["type"] == "clarification"
    turn = talk(operator_client, conversation, answer)
    assert turn["response"]["confirmation"] and "Bruno Teixeira" in _msg(turn), turn["response"]


@executes
@pytest.mark.parametrize(("change", "expected"), [
    ("A responsável é a Ana Costa", "Ana Costa"), ("responsible: Ana Costa", "Ana Costa"),
    ("ah, pensando bem, coloca 45 dias", "45"), ("make it 45 days", "45"),
])
def test_a_value_said_while_a_proposal_waits_changes_it(world, operator_client, start, talk, change, expected):
    conversation = start(operator_client)
    talk(operator_client, conversation, "Cria uma permissão de 10 dias da Delta Engenharia")
    turn = talk(operator_client, conversation, change)
    assert turn["response"]["confirmation"] and expected in _msg(turn), turn["response"]
    assert "Delta Engenharia" in _msg(turn)  # the same proposal, changed


@executes
def test_several_values_for_a_slot_that_takes_one_are_asked_never_dropped(world, operator_client, start, talk):
    inspection_78(world)
    conversation = start(operator_client)
    turn = talk(operator_client, conversation, "coloca a Ana Costa e o Bruno Teixeira como inspetor da inspeção 78")
    assert turn["response"]["type"] == "clarification", turn["response"]
    assert len(turn["response"]["clarification"]["candidates"]) == 2
    chosen = talk(operator_client, conversation, "o Bruno")  # one of them, then the proposal of that one only
    assert chosen["response"]["confirmation"] and "Bruno Teixeira" in _msg(chosen) and "Ana" not in _msg(chosen)


@executes
def test_several_workers_are_added_at_once_and_all_of_them_are(world, operator_client, start, talk):
    conversation = start(operator_client)
    asked = talk(operator_client, conversation, "Put Ana Costa and Bruno Teixeira on permit 802")
    assert "Ana Costa" in _msg(asked) and "Bruno Teixeira" in _msg(asked), asked["response"]
    talk(operator_client, conversation, "yes")
    workers = PermitWorker.objects.for_tenant(world.tenant).filter(permit=world.p802)
    assert sorted(w.employee.name for w in workers) == ["Ana Costa", "Bruno Teixeira"]
    assert WorkPermit.objects.for_tenant(world.tenant).count() == 3


@executes
def test_help_asked_before_anything_else(world, operator_client, start, talk):
    turn = talk(operator_client, start(operator_client), "Hi! Before anything else, what can you do for me?")
    assert turn["response"]["type"] == "answer", turn["response"]
    assert turn["response"]["template"] in ("social.help", "social.greeting"), turn["response"]
