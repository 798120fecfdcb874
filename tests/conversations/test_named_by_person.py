"""An item named by the person responsible for it, or many of them by their company in the plural
(understanding._by_attribute with the manifest's `named_by`, plurals.plural_types, choice.choose):
one item → that one; several → which?; said in the plural → the list; a person who is the value of
another slot of the request never picks the target."""

from __future__ import annotations

import pytest

from tests.conversations.conftest import selection


@pytest.mark.parametrize("text", ["abre a permissão do Bruno", "open Bruno Teixeira's permit"])
def test_the_item_of_the_person_responsible_for_it(world, supervisor_client, start, talk, text):
    conversation = start(supervisor_client)
    turn = talk(supervisor_client, conversation, text)
    assert turn["response"]["type"] == "navigation", turn["response"]
    entity = turn["response"]["navigation"]["entity"]
    assert (entity["label"], entity["company"]) == ("771", "Delta Engenharia")


def test_several_items_of_one_person_are_asked_which(world, supervisor_client, start, talk):
    from sst import services as sst

    sst.permit_create(tenant=world.tenant, company=world.delta, number="803", validity_days=5, responsible=world.bruno)
    conversation = start(supervisor_client)
    turn = talk(supervisor_client, conversation, "approve Bruno's permit")
    assert turn["status"] == "CLARIFICATION_REQUIRED", turn["response"]
    assert len(turn["response"]["clarification"]["candidates"]) == 2


@pytest.mark.parametrize("text", ["troca o responsável dela para Bruno Teixeira",
                                  "adiciona o Bruno Teixeira como trabalhador"])
def test_a_person_who_is_another_slots_value_never_picks_the_target(world, supervisor_client, start, talk, text):
    conversation = start(supervisor_client)
    turn = talk(supervisor_client, conversation, text, ui=selection(world.p802))
    assert turn["status"] == "CONFIRMATION_REQUIRED", turn["response"]
    assert "802" in turn["response"]["message"] and "771" not in turn["response"]["message"]


@pytest.mark.parametrize("text", ["gimme all of Delta Engenharia's permits", "show me Delta Engenharia's permits",
                                  "quais permissões estão em rascunho para a Delta Engenharia?"])
def test_many_items_of_a_company_said_in_the_plural_are_listed(world, supervisor_client, start, talk, text):
    conversation = start(supervisor_client)
    turn = talk(supervisor_client, conversation, text)
    assert turn["status"] != "CLARIFICATION_REQUIRED", turn["response"]
    assert turn["state"]["active_operation"]["capability"] == "workPermit.search"
