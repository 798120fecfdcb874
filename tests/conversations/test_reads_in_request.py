"""A question is answered in its own response with no worker and no broker (issue #18, point 1).

Celery is not eager here and the broker's messages are captured, not sent: an answer can only come
from the read plan run in the request (execution/inline.py). A write still waits for a worker.
"""

from __future__ import annotations

import pytest

from execution import publish
from execution.models import Execution, ExecutionStatus

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def no_worker(monkeypatch, settings):
    from config.celery import app

    sent: list[tuple] = []
    monkeypatch.setattr(publish, "send_soon", lambda task, args, countdown=None: sent.append(args))
    settings.AGENT_READ_WAIT_SECONDS = 0  # no waiting for a worker that would answer later
    app.conf.task_always_eager = False  # the conftest's _eager fixture restores it
    return sent


def test_field_and_count_questions_are_answered_without_a_worker(world, operator_client, start, no_worker):
    conversation = start(operator_client)
    field = operator_client.post(f"/agent/conversations/{conversation}/messages",
                                 {"text": "qual é a validade da permissão 802?"}, format="json").json()
    count = operator_client.post(f"/agent/conversations/{conversation}/messages",
                                 {"text": "quantos funcionários existem?"}, format="json").json()

    assert field["response"]["type"] == "answer" and "20" in field["response"]["message"]
    assert count["response"]["type"] == "answer" and "3" in count["response"]["message"]
    assert count["status"] == "SUCCESS"
    assert no_worker == []
    assert set(Execution.objects.for_tenant(world.tenant).values_list("status", flat=True)) == {
        ExecutionStatus.COMPLETED}


def test_a_confirmed_write_still_goes_to_a_worker(world, operator_client, start, no_worker):
    conversation = start(operator_client)
    proposal = operator_client.post(f"/agent/conversations/{conversation}/messages",
                                    {"text": "prorroga a permissão 802 para 35 dias"}, format="json").json()
    assert proposal["status"] == "CONFIRMATION_REQUIRED"
    started = operator_client.post(f"/agent/conversations/{conversation}/messages", {"text": "sim"},
                                   format="json").json()

    assert started["status"] == "EXECUTING" and started["response"]["type"] == "execution"
    assert len(no_worker) == 1
    world.p802.refresh_from_db()
    assert world.p802.validity_days == 20


def test_a_read_past_its_budget_is_left_to_a_worker_and_the_turn_says_so(world, operator_client, start, no_worker,
                                                                         settings):
    settings.EXECUTION_INLINE_READ_MS = 0
    conversation = start(operator_client)
    count = operator_client.post(f"/agent/conversations/{conversation}/messages",
                                 {"text": "quantos funcionários existem?"}, format="json").json()

    assert count["status"] == "EXECUTING" and count["response"]["type"] == "execution"
    assert len(no_worker) == 1


def test_after_a_field_question_a_count_of_another_entity_is_a_count(world, operator_client, start, no_worker):
    """The field in focus speaks for the writes of the entity in focus, never for a create whose verb a
    past participle happens to match ("cadastrados")."""
    conversation = start(operator_client)
    for text in ("abra a permissão 802", "qual a validade da permissão 802?"):
        operator_client.post(f"/agent/conversations/{conversation}/messages", {"text": text}, format="json")
    count = operator_client.post(f"/agent/conversations/{conversation}/messages",
                                 {"text": "Quantos funcionários estão cadastrados?"}, format="json").json()

    assert count["response"]["type"] == "answer" and "3" in count["response"]["message"], count["response"]


def test_a_slow_read_run_in_the_request_is_not_hedged(world, operator_client, start, no_worker, monkeypatch):
    """On a worker a slow hedgeable read gets a second request (tests/execution/test_step_envelope_worker.py);
    in the request it would take a second thread and database connection from the web process's pool."""
    from execution import tool_runtime
    from execution.control import lanes_clear
    from sst.faults import fault_add

    calls: list[str] = []
    invoke = tool_runtime.ToolSession.invoke

    def spy(self, *, capability, input, **kwargs):  # noqa: A002
        calls.append(capability.id)
        return invoke(self, capability=capability, input=input, **kwargs)

    monkeypatch.setattr(tool_runtime.ToolSession, "invoke", spy)
    lanes_clear(world.tenant.pk)  # no latencies seen yet: the hedge threshold is 3 x the default 100 ms
    conversation = start(operator_client)
    fault_add(tenant=world.tenant, route="sst:employee-count", method="GET", latency_ms=700, times=1)
    count = operator_client.post(f"/agent/conversations/{conversation}/messages",
                                 {"text": "quantos funcionários existem?"}, format="json").json()

    assert count["response"]["type"] == "answer" and "3" in count["response"]["message"]
    assert calls.count("employee.count") == 1


def test_a_read_settles_in_the_turns_own_transaction_and_save(world, operator_client, start, no_worker,
                                                              monkeypatch):
    """The outcome is the turn's reply before its one save: no completion hook locks the conversation again."""
    from conversations import hooks

    hooked: list = []
    monkeypatch.setattr(hooks, "on_execution_settled", lambda execution: hooked.append(execution.pk))
    conversation = start(operator_client)
    before = operator_client.get(f"/agent/conversations/{conversation}").json()["version"]
    count = operator_client.post(f"/agent/conversations/{conversation}/messages",
                                 {"text": "quantos funcionários existem?"}, format="json").json()

    assert count["response"]["type"] == "answer" and count["status"] == "SUCCESS"
    assert count["version"] == before + 1, "one transition of the conversation, one save"
    assert [e["type"] for e in count["events"]][-1] == "EXECUTION_COMPLETED"  # the read's events are the turn's
    assert hooked == []


def test_a_database_error_in_the_reads_leaves_the_turn_answered_and_the_steps_to_run_after(
        world, operator_client, start, no_worker, monkeypatch):
    from django.db import DatabaseError

    from execution import engine

    real = engine._finish
    broken = {"once": True}

    def finish(*args, **kwargs):  # recording the step's outcome fails once (a lost connection, a bug)
        if broken.pop("once", False):
            raise DatabaseError("the read's statement failed")
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "_finish", finish)
    conversation = start(operator_client)
    count = operator_client.post(f"/agent/conversations/{conversation}/messages",
                                 {"text": "quantos funcionários existem?"}, format="json").json()

    assert count["response"]["type"] == "answer" and "3" in count["response"]["message"]
    assert no_worker == []  # run after the commit in this thread, as before (execution/inline.py)
    assert set(Execution.objects.for_tenant(world.tenant).values_list("status", flat=True)) == {
        ExecutionStatus.COMPLETED}


def test_a_question_asked_while_a_write_runs_leaves_the_conversation_following_the_write(
        world, operator_client, start, no_worker, django_capture_on_commit_callbacks):
    from execution.engine import run_step

    def say(text):
        return operator_client.post(f"/agent/conversations/{conversation}/messages", {"text": text},
                                    format="json").json()

    conversation = start(operator_client)
    say("prorroga a permissão 802 para 35 dias")
    started = say("sim")
    question = say("qual é a validade da permissão 802?")
    another_write = say("prorroga a permissão 802 para 36 dias")

    assert question["response"]["type"] == "answer" and "20" in question["response"]["message"]
    assert question["status"] == "EXECUTING", "the write still runs: the conversation still follows it"
    assert (another_write["response"].get("error") or {}).get("code") == "BUSY", another_write["response"]
    with django_capture_on_commit_callbacks(execute=True):
        run_step(*no_worker[0])  # the worker runs the write now; its hook finds the operation it settles
    state = operator_client.get(f"/agent/conversations/{conversation}").json()
    assert state["status"] == "SUCCESS"
    assert state["last_result"]["execution_id"] == started["response"]["execution"]["id"]
    world.p802.refresh_from_db()
    assert world.p802.validity_days == 35
