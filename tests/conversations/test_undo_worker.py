"""Undo of a multi-step operation with a real Celery worker (issue 19 acceptance): the turns go through
the REST API, the operation and then its undo run in a separate worker process, and the conversation
learns of each end through the completion hooks the worker runs."""

from __future__ import annotations

import time

import pytest

from execution.models import Execution
from sst.models import WorkPermit

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def on_worker(django_db_blocker):
    """A worker process of this test's own, stopped after it: the execution suite's session worker is
    stopped and started by its tests, and a second one left running would consume their queues."""
    from config.celery import app
    from tests.execution.worker import WorkerProcess, purge_queues

    app.conf.task_always_eager = False  # the suite's conftest makes it eager; here the worker runs the steps
    with django_db_blocker.unblock():
        purge_queues()
        worker = WorkerProcess()
        worker.start()
    try:
        yield worker
    finally:
        worker.stop()
        purge_queues()


def settled(client, conversation_id: str, timeout_s: float = 60) -> dict:
    """The conversation's state once its running operation settled *for the conversation*: the worker
    runs the completion hook in a transaction of its own after the execution's settling commit, so
    an execution row already finished does not mean the conversation knows it yet — a turn sent in
    between still finds it EXECUTING, with no result to undo."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        state = client.get(f"/agent/conversations/{conversation_id}").json()
        if state["status"] not in ("EXECUTING", "CANCELLING"):
            return state
        time.sleep(0.1)
    raise AssertionError(f"conversation {conversation_id} did not settle in {timeout_s} s")


def _components(world) -> set[str]:
    permit = WorkPermit.objects.for_tenant(world.tenant).get(pk=world.p802.pk)
    return set(permit.components.values_list("component_type__name", flat=True))


def test_a_two_step_add_and_its_undo_run_on_the_worker(world, operator_client, start, talk, on_worker):
    conversation = start(operator_client)
    asked = talk(operator_client, conversation, "adicione solda elétrica e montagem de andaime na 802")
    assert asked["status"] == "CONFIRMATION_REQUIRED", asked["response"]
    talk(operator_client, conversation, "sim")
    assert settled(operator_client, conversation)["status"] == "SUCCESS"
    assert _components(world) == {"Solda Elétrica", "Montagem de Andaime"}
    undo = talk(operator_client, conversation, "desfaz")
    assert undo["status"] == "CONFIRMATION_REQUIRED", undo["response"]
    talk(operator_client, conversation, "sim")
    assert settled(operator_client, conversation)["status"] == "SUCCESS"
    assert _components(world) == set()
    statuses = Execution.objects.for_tenant(world.tenant).order_by("started_at").values_list("status", flat=True)
    assert list(statuses) == ["completed", "completed"]
