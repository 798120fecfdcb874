"""Races against PostgreSQL (invariant 5): "sim" and "cancela" sent at the same moment, many times, on
fresh conversations — exactly one of them takes effect every time; two "sim" start one execution; a
burst of turns on one conversation loses none of them. CONV_RACE_N sets the repetitions (the issue's
acceptance run uses 200; the default run keeps it short)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

import pytest
from django.db import connection

from conftest import client_for
from conversations.models import Confirmation, Conversation, PendingStatus, Turn
from events.models import ConversationEvent
from execution.models import Execution
from sst.models import WorkPermit

from .conftest import selection

pytestmark = pytest.mark.django_db(transaction=True)
RUNS = int(os.environ.get("CONV_RACE_N", "20"))


def _together(*calls: Callable[[], object]) -> list[object]:
    """Run the calls in threads released by one barrier; each thread closes its own connection."""
    barrier = threading.Barrier(len(calls))
    results: list[object] = [None] * len(calls)

    def runner(index: int, call: Callable[[], object]) -> None:
        try:
            barrier.wait()
            results[index] = call()
        finally:
            connection.close()

    threads = [threading.Thread(target=runner, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def _pending(client, world, start) -> tuple[str, str]:
    # A validity the permit does not have yet: one it already has is answered with no confirmation.
    current = WorkPermit.objects.for_tenant(world.tenant).get(pk=world.p802.pk).validity_days
    conversation = start(client)
    response = client.post(f"/agent/conversations/{conversation}/messages",
                           {"text": f"mude a validade para {42 if current == 41 else 41} dias",
                            "ui_context": selection(world.p802)},
                           format="json").json()
    assert response["status"] == "CONFIRMATION_REQUIRED", response
    return conversation, response["response"]["confirmation"]["id"]


def _say(client, conversation: str, text: str) -> Callable[[], int]:
    return lambda: client.post(f"/agent/conversations/{conversation}/messages", {"text": text},
                               format="json").status_code


def test_sim_and_cancela_together_always_have_exactly_one_effect(world, operator, tenant, start):
    outcomes = {"confirmed": 0, "cancelled": 0}
    for _ in range(RUNS):
        client = client_for(operator, tenant)
        conversation, confirmation_id = _pending(client, world, start)
        codes = _together(_say(client, conversation, "sim"), _say(client, conversation, "cancela"))
        assert codes == [200, 200]
        confirmation = Confirmation.objects.for_tenant(tenant).get(pk=confirmation_id)
        executions = Execution.objects.for_tenant(tenant).filter(plan_id=confirmation.plan_id).count()
        if confirmation.status == PendingStatus.CONSUMED:
            outcomes["confirmed"] += 1
            assert executions == 1
        else:
            assert confirmation.status == PendingStatus.CANCELLED
            outcomes["cancelled"] += 1
            assert executions == 0
            assert Conversation.objects.for_tenant(tenant).get(pk=conversation).status == "CANCELLED"
    print("race outcomes", outcomes)
    assert sum(outcomes.values()) == RUNS


def test_two_sims_together_start_one_execution(world, operator, tenant, start):
    for _ in range(max(3, RUNS // 5)):
        client = client_for(operator, tenant)
        conversation, confirmation_id = _pending(client, world, start)
        assert _together(_say(client, conversation, "sim"), _say(client, conversation, "sim")) == [200, 200]
        plan_id = Confirmation.objects.for_tenant(tenant).get(pk=confirmation_id).plan_id
        assert Execution.objects.for_tenant(tenant).filter(plan_id=plan_id).count() == 1


def test_a_burst_of_turns_on_one_conversation_loses_none(world, operator, tenant, start):
    client = client_for(operator, tenant)
    conversation = start(client)
    burst = 6
    codes = _together(*[_say(client, conversation, "abra a permissão 802") for _ in range(burst)])
    assert codes == [200] * burst
    row = Conversation.objects.for_tenant(tenant).get(pk=conversation)
    assert row.version == 1 + burst
    assert Turn.objects.for_tenant(tenant).filter(conversation=row).count() == burst
    received = ConversationEvent.objects.for_tenant(tenant).filter(conversation_id=row.pk, type="MESSAGE_RECEIVED")
    assert received.count() == burst
    versions = sorted(received.values_list("state_version", flat=True))
    assert versions == list(range(2, 2 + burst))
