"""Undo of an operation of several writes (issue 19 point 2): every completed write undone through its
registered undo, last change first, as one plan under one confirmation, each step authorised by
policy; refused whole when one of the writes has no registered undo."""

from __future__ import annotations

import json

import pytest

from sst import services as sst
from sst.models import WorkPermit

from .conftest import selection

executes = pytest.mark.django_db(transaction=True)


def _components(world, pk) -> set[str]:
    permit = WorkPermit.objects.for_tenant(world.tenant).get(pk=pk)
    return set(permit.components.values_list("component_type__name", flat=True))


@executes
def test_two_adds_are_undone_together_last_first(world, operator_client, start, talk):
    conversation = start(operator_client)
    asked = talk(operator_client, conversation, "adicione solda elétrica e montagem de andaime na 802")
    assert asked["status"] == "CONFIRMATION_REQUIRED", asked["response"]
    talk(operator_client, conversation, "sim")
    assert _components(world, world.p802.pk) == {"Solda Elétrica", "Montagem de Andaime"}
    undo = talk(operator_client, conversation, "desfaz")
    assert undo["status"] == "CONFIRMATION_REQUIRED", undo["response"]
    message = undo["response"]["message"]
    assert "Solda Elétrica" in message and "Montagem de Andaime" in message
    assert message.index("Montagem de Andaime") < message.index("Solda Elétrica")  # the last added goes first
    assert _components(world, world.p802.pk) == {"Solda Elétrica", "Montagem de Andaime"}  # only asked
    done = talk(operator_client, conversation, "sim")
    assert done["state"]["status"] == "SUCCESS", done["state"]
    assert _components(world, world.p802.pk) == set()


@executes
def test_a_clone_is_undone_through_each_registered_undo(world, supervisor_client, start, talk):
    sst.permit_component_add(tenant=world.tenant, permit_id=world.p802.pk, component_type=world.weld)
    conversation = start(supervisor_client)
    before = set(WorkPermit.objects.for_tenant(world.tenant).values_list("pk", flat=True))
    talk(supervisor_client, conversation, "crie uma permissão igual a esta", ui=selection(world.p802))
    talk(supervisor_client, conversation, "sim")
    created = set(WorkPermit.objects.for_tenant(world.tenant).values_list("pk", flat=True)) - before
    assert len(created) == 1 and _components(world, next(iter(created))) == {"Solda Elétrica"}
    undo = talk(supervisor_client, conversation, "desfaça")
    assert undo["status"] == "CONFIRMATION_REQUIRED", undo["response"]
    new_number = WorkPermit.objects.for_tenant(world.tenant).get(pk=next(iter(created))).number
    assert undo["response"]["message"].count(new_number) >= 2  # both steps name the copy by its number
    done = talk(supervisor_client, conversation, "sim")
    assert done["state"]["status"] == "SUCCESS", done["state"]
    assert not WorkPermit.objects.for_tenant(world.tenant).filter(pk__in=created).exists()
    assert _components(world, world.p802.pk) == {"Solda Elétrica"}  # the source is untouched


@executes
def test_several_writes_with_one_lacking_an_undo_are_refused_whole(world, supervisor_client, start, talk, fake_llm):
    fake_llm.content = json.dumps({"steps": [
        {"id": "s1", "capability": "workPermit.components.add", "slots": {"permit": "802", "component": "solda"}},
        {"id": "s2", "capability": "workPermit.updateValidity", "slots": {"permit": "802", "validity_days": "33"},
         "depends_on": ["s1"]}]})
    conversation = start(supervisor_client)
    talk(supervisor_client, conversation, "adicione solda na 802 e depois deixe com 33 dias")
    talk(supervisor_client, conversation, "sim")
    assert _components(world, world.p802.pk) == {"Solda Elétrica"}
    turn = talk(supervisor_client, conversation, "desfaz")
    assert turn["response"]["error"]["code"] == "NOT_UNDOABLE" and turn["response"]["confirmation"] is None
    assert _components(world, world.p802.pk) == {"Solda Elétrica"}


@executes
def test_each_undo_step_is_authorised_an_operator_cannot_undo_a_copy_by_deleting_it(world, operator_client, start,
                                                                                   talk):
    sst.permit_component_add(tenant=world.tenant, permit_id=world.p802.pk, component_type=world.weld)
    conversation = start(operator_client)
    before = WorkPermit.objects.for_tenant(world.tenant).count()
    talk(operator_client, conversation, "crie uma permissão igual a esta", ui=selection(world.p802))
    talk(operator_client, conversation, "sim")
    turn = talk(operator_client, conversation, "desfaça")
    assert turn["response"]["error"]["code"] == "POLICY_DENIED" and turn["response"]["confirmation"] is None
    assert WorkPermit.objects.for_tenant(world.tenant).count() == before + 1
