"""A list or count of one entity filtered by who is responsible or by a child it has ("which permits is
<person> responsible for?", "quantas permissões têm <componente>?"): the manifest's filter slots resolve the
name, the API narrows — never every item, never a field question about one of them."""

from __future__ import annotations

import pytest

from sst import services as sst


@pytest.mark.parametrize("text", [
    "quais permissões têm o Bruno Teixeira como responsável?",
    "which permits is Bruno Teixeira responsible for?",
])
def test_a_list_by_the_person_responsible(world, supervisor_client, start, talk, text):
    conversation = start(supervisor_client)
    answer = talk(supervisor_client, conversation, text)["state"]["last_response"]
    assert answer["type"] == "answer", answer
    assert "771" in answer["message"] and "802" not in answer["message"], answer["message"]
    assert "Omega" not in answer["message"], answer["message"]  # the other 771 has no one responsible


@pytest.mark.parametrize("text", [
    "quais permissões têm o Bruno Teixeira como responsável?",
    "which permits is Bruno Teixeira responsible for?",
])
def test_a_list_by_a_person_responsible_for_several(world, supervisor_client, start, talk, text):
    # With one permit the name picks it (a field question); with two, the search's filter slot must
    # resolve the name from the people's list (its resolver needs a query: it once resolved nothing and
    # listed every permit).
    sst.permit_create(tenant=world.tenant, company=world.omega, number="905", validity_days=10,
                      responsible=world.bruno)
    conversation = start(supervisor_client)
    answer = talk(supervisor_client, conversation, text)["state"]["last_response"]
    assert answer["type"] == "answer", answer
    message = answer["message"]
    assert "771" in message and "905" in message and "802" not in message, message


@pytest.mark.parametrize(("text", "says"), [
    ("quantas permissões têm Solda Elétrica?", "1"),
    ("which permits have the Montagem de Andaime component?", "nenhum|no |none|0"),
])
def test_a_count_or_list_by_a_component(world, supervisor_client, start, talk, text, says):
    sst.permit_create(tenant=world.tenant, company=world.delta, number="903", validity_days=10,
                      component_types=[world.weld])
    conversation = start(supervisor_client)
    answer = talk(supervisor_client, conversation, text)["state"]["last_response"]
    assert answer["type"] == "answer", answer
    message = answer["message"]
    assert any(s in message.lower() for s in says.split("|")), message
    assert "771" not in message and "802" not in message, message
