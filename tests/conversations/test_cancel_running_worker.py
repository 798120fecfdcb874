"""Cancelling a running operation from the conversation, on a real Celery worker (issue 19 point 2).

"adicione A, B e C na 802" is three independent writes; every write spends SLOW_MS inside the SST
API (a latency fault), so the worker's two processes are both calling when the user cancels, and
the third write's message waits in the broker. The cancel skips the third; the two calling ones
finish (rule finish) or are undone once they finish (rule compensate); the reply says which.
"""

from __future__ import annotations

import time

import pytest

from conversations.consumers import outgoing_is_valid
from execution.models import Execution, StepRun, TimelineEntry
from planning.models import PlanStep
from sst.faults import fault_add
from sst.models import WorkPermit
from tests.conversations.test_undo_worker import on_worker  # noqa: F401 - fixture: this module's own worker

pytestmark = pytest.mark.django_db(transaction=True)

SLOW_MS = 2500
NAMES = {"welding": "Solda Elétrica", "scaffolding": "Montagem de Andaime", "noise": "Ruído Contínuo"}
ASK = "adicione solda elétrica, montagem de andaime e ruído contínuo na 802"


def _wait_until(predicate, timeout_s: float = 30.0):
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def _components(world) -> set[str]:
    permit = WorkPermit.objects.for_tenant(world.tenant).get(pk=world.p802.pk)
    return set(permit.components.values_list("component_type__name", flat=True))


def _running(world) -> tuple[Execution, dict[str, str]]:
    """The execution once two of its writes are inside their slow calls; step id → the item's name."""
    execution = _wait_until(lambda: Execution.objects.for_tenant(world.tenant).first())
    _wait_until(lambda: TimelineEntry.objects.for_tenant(world.tenant).filter(
        execution=execution, type="STEP_STARTED").count() == 2)
    time.sleep(0.2)
    names = {s.step_id: NAMES[s.input["component"]]
             for s in PlanStep.objects.for_tenant(world.tenant).filter(plan=execution.plan_id)}
    return execution, names


def _statuses(execution) -> dict[str, str]:
    return dict(StepRun.objects.for_tenant(execution.tenant_id).filter(execution=execution)
                .values_list("step_id", "status"))


def _confirm_slow_add(world, client, start, talk, ask: str = ASK, yes: str = "sim") -> str:
    fault_add(tenant=world.tenant, route="sst:permit-components", method="POST", latency_ms=SLOW_MS, times=3)
    conversation_id = start(client)
    asked = talk(client, conversation_id, ask)
    assert asked["status"] == "CONFIRMATION_REQUIRED", asked["response"]
    assert talk(client, conversation_id, yes)["status"] == "EXECUTING"
    return conversation_id


def _settled_state(client, conversation_id: str) -> dict:
    return _wait_until(lambda: (lambda s: s if s["status"] not in ("EXECUTING", "CANCELLING") else None)(
        client.get(f"/agent/conversations/{conversation_id}").json()))


def test_cancela_stops_the_write_not_started_and_lets_the_calling_ones_finish(
        world, operator_client, supervisor_client, start, talk, on_worker, settings):  # noqa: F811
    settings.AGENT_CANCEL_IN_FLIGHT = "finish"
    conversation = _confirm_slow_add(world, operator_client, start, talk)
    execution, names = _running(world)
    calling = sorted(sid for sid, status in _statuses(execution).items() if status == "running")
    waiting = [sid for sid in names if sid not in calling]
    assert len(calling) == 2 and _statuses(execution)[waiting[0]] == "dispatched"

    # Another user of the tenant: not their conversation (404), and their own has nothing to cancel.
    attack = supervisor_client.post(f"/agent/conversations/{conversation}/messages", {"text": "cancela"},
                                    format="json")
    assert attack.status_code == 404
    own = start(supervisor_client)
    assert talk(supervisor_client, own, "cancela")["response"]["template"] == "nothing.to_cancel"
    execution.refresh_from_db()
    assert execution.error is None and _statuses(execution)[waiting[0]] == "dispatched"

    cancelled = talk(operator_client, conversation, "cancela")
    message = cancelled["response"]["message"]
    assert cancelled["status"] == "CANCELLING", cancelled["response"]
    assert "Cancelei a operação em andamento" in message
    assert f"Não serão feitos: {names[waiting[0]]}." in message
    assert all(names[sid] in message.split("não pode ser interrompido:")[1] for sid in calling), message

    state = _settled_state(operator_client, conversation)
    assert state["status"] == "CANCELLED"
    final = state["last_response"]["message"]
    assert final.startswith("A operação foi cancelada.") and "Estava em andamento e foi concluído" in final, final
    assert _statuses(execution) == {**{sid: "completed" for sid in calling}, waiting[0]: "skipped"}
    assert _components(world) == {names[sid] for sid in calling}

    events = operator_client.get(f"/agent/conversations/{conversation}/events").json()["events"]
    assert all(outgoing_is_valid(e) for e in events), "every event of the cancel fits the websocket contract"
    skipped = [e["payload"]["step_id"] for e in events
               if e["type"] == "EXECUTION_PROGRESS" and e["payload"]["status"] == "skipped"]
    assert skipped == waiting and events[-1]["type"] == "EXECUTION_CANCELLED"

    again = talk(operator_client, conversation, "pare")
    assert again["response"]["template"] == "cancel.already_settled"
    assert "já tinha terminado (cancelada)" in again["response"]["message"]


def test_stop_in_english_with_the_compensate_rule_undoes_the_calling_writes(
        world, operator_client, start, talk, on_worker, settings):  # noqa: F811
    settings.AGENT_CANCEL_IN_FLIGHT = "compensate"
    conversation = _confirm_slow_add(world, operator_client, start, talk, yes="yes",
                                     ask="add solda eletrica, montagem de andaime and ruido continuo to permit 802")
    execution, names = _running(world)
    calling = sorted(sid for sid, status in _statuses(execution).items() if status == "running")

    cancelled = talk(operator_client, conversation, "stop")
    message = cancelled["response"]["message"]
    assert cancelled["status"] == "CANCELLING", cancelled["response"]
    assert message.startswith("I cancelled the running operation.") and "will be undone" in message, message

    state = _settled_state(operator_client, conversation)
    assert state["status"] == "CANCELLED"
    final = state["last_response"]["message"]
    assert "Undone after the cancel:" in final and all(names[sid] in final for sid in calling), final
    assert set(_statuses(execution).values()) == {"compensated", "skipped"}
    assert _components(world) == set()
    again = talk(operator_client, conversation, "cancel it")
    assert "had already finished (cancelled)" in again["response"]["message"]


def test_with_nothing_left_to_stop_the_calling_write_finishes_and_the_operation_succeeds(
        world, operator_client, start, talk, on_worker, settings):  # noqa: F811
    settings.AGENT_CANCEL_IN_FLIGHT = "finish"
    conversation = _confirm_slow_add(world, operator_client, start, talk, ask="adicione solda elétrica na 802")
    execution = _wait_until(lambda: Execution.objects.for_tenant(world.tenant).first())
    _wait_until(lambda: TimelineEntry.objects.for_tenant(world.tenant).filter(
        execution=execution, type="STEP_STARTED").exists())
    cancelled = talk(operator_client, conversation, "cancela")
    assert (cancelled["status"], cancelled["response"]["template"]) == ("EXECUTING", "cancel.not_cancellable")
    assert "não pode mais ser interrompida" in cancelled["response"]["message"]
    assert _settled_state(operator_client, conversation)["status"] == "SUCCESS"
    assert _components(world) == {"Solda Elétrica"}
