"""A write the data already shows as done is answered at planning, before any confirmation
(conversations/already.py): the capability's own verification holds on the current data."""

from __future__ import annotations

import pytest

from conversations.models import Confirmation
from sst import services as sst

from .conftest import selection

pytestmark = pytest.mark.django_db


def test_adding_a_component_the_permit_has_asks_nothing(operator_client, world, start, talk):
    sst.permit_component_add(tenant=world.tenant, permit_id=world.p802.pk, component_type=world.weld)
    conversation = start(operator_client)
    turn = talk(operator_client, conversation, "adicione o componente Solda Elétrica", ui=selection(world.p802))
    assert turn["status"] == "IDLE" and turn["response"]["type"] == "answer", turn["response"]
    assert turn["response"]["message"] == ("Não é preciso adicionar “Solda Elétrica” à permissão 802 "
                                           "(Delta Engenharia): já está assim.")
    assert not Confirmation.objects.for_tenant(world.tenant).filter(conversation_id=conversation).exists()
    # Nothing is left pending or failed: the next request is asked as usual.
    turn = talk(operator_client, conversation, "adicione o componente Ruído Contínuo", ui=selection(world.p802))
    assert turn["status"] == "CONFIRMATION_REQUIRED", turn["response"]


def test_setting_the_validity_it_already_has_asks_nothing(operator_client, world, start, talk):
    conversation = start(operator_client)
    turn = talk(operator_client, conversation, "mude a validade para 20 dias", ui=selection(world.p802))
    assert turn["response"]["type"] == "answer" and "já está assim" in turn["response"]["message"], turn
    turn = talk(operator_client, conversation, "mude a validade para 25 dias", ui=selection(world.p802))
    assert turn["status"] == "CONFIRMATION_REQUIRED", turn["response"]


def test_in_english_too(operator_client, world, start, talk):
    conversation = start(operator_client)
    turn = talk(operator_client, conversation, "change the validity to 20 days", ui=selection(world.p802))
    assert turn["response"]["message"].endswith(": that is already the case."), turn["response"]
