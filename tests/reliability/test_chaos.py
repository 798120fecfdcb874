"""Chaos on a throwaway stack: Redis restarted during turns and during an execution, PostgreSQL
connections dropped mid-turn, the Celery worker SIGKILLed during a multi-step execution.

The invariants after each: every turn either completed or failed cleanly (an answer, never a
hang); nothing half-written (each conversation's events gap-free, at most one execution per
confirmation, a permit changed only by an execution that completed); executions resume and
finish once the service is back, each SST write applied exactly once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from .chaos import Stack

pytestmark = pytest.mark.chaos

BUSY = {"UNDERSTANDING", "PLANNING", "EXECUTING", "CANCELLING", "RESUMING"}
SETTLE_S = 90  # the watchdog (beat, every 30 s) re-dispatches a step whose message Redis lost


def _world(n: int) -> dict[str, Any]:
    return {"companies": ["Gama Obras"],
            "components": [{"key": "workingAtHeight", "name": "Trabalho em Altura", "undoable": True},
                           {"key": "hotWork", "name": "Trabalho a Quente", "undoable": True},
                           {"key": "confinedSpace", "name": "Espaço Confinado", "undoable": True}],
            "permits": [{"number": str(5100 + i), "company": "Gama Obras", "validity_days": 10, "components": []}
                        for i in range(n)]}


@pytest.fixture
def stack() -> Iterator[Stack]:
    # One stack per test: a restart or a kill in one test must not be what the next one measures.
    stack = Stack()
    try:
        stack.start()
        yield stack
    finally:
        stack.stop()


def _pending(stack: Stack, client: httpx.Client, tenant: str, number: str, text: str) -> str:
    permit = next(p for p in stack.facts(tenant)["permits"] if p["number"] == number)
    conversation = client.post("/agent/conversations", json={}).json()["id"]
    ui = {"selection": {"entityType": "workPermit", "entityId": str(permit["id"])}}
    asked = client.post(f"/agent/conversations/{conversation}/messages", json={"text": text, "ui_context": ui})
    assert asked.status_code == 200 and asked.json()["status"] == "CONFIRMATION_REQUIRED", asked.text
    return conversation


def _settled(client: httpx.Client, conversation: str) -> dict[str, Any]:
    deadline = time.monotonic() + SETTLE_S
    while True:
        try:
            state = client.get(f"/agent/conversations/{conversation}")
            if state.status_code == 200 and state.json()["status"] not in BUSY:
                return state.json()
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, f"conversation {conversation} did not settle in {SETTLE_S} s"
        time.sleep(0.3)


def _invariants(stack: Stack, conversations: list[str]) -> None:
    """Events gap-free, at most one execution per confirmation, no step left running."""
    for conversation in conversations:
        seqs = [row[0] for row in stack.pg.query(
            "SELECT seq FROM events_conversationevent WHERE conversation_id = %s ORDER BY seq", (conversation,))]
        assert seqs == list(range(1, len(seqs) + 1)), (conversation, seqs)
        per_plan = stack.pg.query("SELECT count(*) FROM execution_execution WHERE conversation_id = %s "
                                  "GROUP BY plan_id HAVING count(*) > 1", (conversation,))
        assert per_plan == [], conversation
        running = stack.pg.query("SELECT status FROM execution_execution WHERE conversation_id = %s "
                                 "AND status NOT IN ('completed', 'failed', 'cancelled', 'partially_completed', "
                                 "'compensated')", (conversation,))
        assert running == [], (conversation, running)


def test_redis_restarted_during_confirm_turns_each_turn_completes_or_fails_cleanly(stack, reliability_cases):
    world = stack.world(_world(6))
    tenant, token = world["tenant"], world["users"]["operator"]["token"]
    outcomes: dict[str, Any] = {}
    with stack.client(token) as client:
        conversations = {str(5100 + i): _pending(stack, client, tenant, str(5100 + i), f"Mude a validade para "
                                                 f"{40 + i} dias") for i in range(6)}

        def confirm(number: str, conversation: str) -> None:
            with stack.client(token) as own:
                try:
                    outcomes[number] = own.post(f"/agent/conversations/{conversation}/messages",
                                                json={"text": "sim", "client_message_id": f"chaos-{number}"})
                except httpx.TransportError as exc:
                    outcomes[number] = exc

        threads = [threading.Thread(target=confirm, args=item) for item in conversations.items()]
        for index, thread in enumerate(threads):
            thread.start()
            if index == 2:
                stack.redis.restart(down_seconds=1.5)
        for thread in threads:
            thread.join(timeout=120)
        for number, conversation in conversations.items():
            state = _settled(client, conversation)
            permit = next(p for p in stack.facts(tenant)["permits"] if p["number"] == number)
            answer = outcomes[number]
            ok = isinstance(answer, httpx.Response) and answer.status_code == 200
            if ok and answer.json()["status"] in {"EXECUTING", "SUCCESS"}:
                # Confirmed: the execution finished (resumed after the restart if it had to), once.
                assert state["status"] == "SUCCESS", (number, state["status"])
                assert permit["validity_days"] == 40 + int(number) - 5100
            else:
                # Refused or failed: nothing of it happened.
                assert permit["validity_days"] == 10, (number, permit, answer)
        _invariants(stack, list(conversations.values()))
    reliability_cases("chaos: Redis restarted during a turn", len(conversations))


def test_redis_restarted_during_an_execution_the_execution_resumes_and_writes_once(stack, reliability_cases):
    world = stack.world(_world(1))
    tenant, token = world["tenant"], world["users"]["operator"]["token"]
    stack.fault(tenant=tenant, capability="workPermit.updateValidity", latency_ms=3000, times=1)
    with stack.client(token) as client:
        conversation = _pending(stack, client, tenant, "5100", "Mude a validade para 77 dias")
        started = client.post(f"/agent/conversations/{conversation}/messages", json={"text": "sim"})
        assert started.status_code == 200 and started.json()["status"] == "EXECUTING", started.text
        time.sleep(1.0)  # the step is inside its slow call now
        stack.redis.restart(down_seconds=1.5)
        state = _settled(client, conversation)
        assert state["status"] == "SUCCESS", state["status"]
    assert stack.facts(tenant)["permits"][0]["validity_days"] == 77
    writes = stack.pg.query("SELECT count(*) FROM sst_idempotencyrecord WHERE tenant_id = %s AND state = "
                            "'COMPLETED'", (tenant,))[0][0]
    assert writes == 1
    _invariants(stack, [conversation])
    reliability_cases("chaos: Redis restarted during an execution", 1)


def test_postgres_connections_dropped_mid_turn_the_turn_fails_cleanly_and_the_next_one_works(stack,
                                                                                             reliability_cases):
    world = stack.world(_world(1))
    tenant, token = world["tenant"], world["users"]["operator"]["token"]
    # The confirm turn re-reads the permit (fresh facts for the policy): make that read slow.
    stack.fault(tenant=tenant, capability="workPermit.read", latency_ms=2500, times=1)
    with stack.client(token) as client:
        conversation = _pending(stack, client, tenant, "5100", "Mude a validade para 33 dias")
        before = stack.pg.query("SELECT version FROM conversations_conversation WHERE id = %s", (conversation,))[0][0]
        answer: dict[str, Any] = {}

        def confirm() -> None:
            with stack.client(token) as own:
                answer["response"] = own.post(f"/agent/conversations/{conversation}/messages", json={"text": "sim"})

        thread = threading.Thread(target=confirm)
        thread.start()
        time.sleep(1.0)
        dropped = stack.pg.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'chaos' "
                                 "AND pid <> pg_backend_pid() AND backend_type = 'client backend'")
        thread.join(timeout=60)
        response = answer["response"]
        assert dropped, "no connection was dropped"
        state = _settled(client, conversation)
        permit = stack.facts(tenant)["permits"][0]
        if response.status_code == 200 and response.json()["status"] in {"EXECUTING", "SUCCESS"}:
            assert state["status"] == "SUCCESS" and permit["validity_days"] == 33
        else:
            # Failed: rolled back as a whole — same version, confirmation still pending, permit untouched.
            after = stack.pg.query("SELECT version FROM conversations_conversation WHERE id = %s",
                                   (conversation,))[0][0]
            assert after == before and permit["validity_days"] == 10, (response.status_code, after, before)
        # The server reconnects: the next turn is answered normally.
        follow = client.post(f"/agent/conversations/{conversation}/messages", json={"text": "sim"})
        assert follow.status_code == 200, follow.text
        _settled(client, conversation)
    _invariants(stack, [conversation])
    reliability_cases("chaos: PostgreSQL connections dropped mid-turn", 1)


def test_worker_sigkilled_during_a_multi_step_execution_resumes_and_applies_each_write_once(stack,
                                                                                           reliability_cases):
    world = stack.world(_world(1))
    tenant, token = world["tenant"], world["users"]["operator"]["token"]
    stack.fault(tenant=tenant, capability="workPermit.components.add", latency_ms=1500)
    with stack.client(token) as client:
        conversation = _pending(stack, client, tenant, "5100", "Adicione os componentes trabalho em altura, "
                                                               "trabalho a quente e espaço confinado")
        started = client.post(f"/agent/conversations/{conversation}/messages", json={"text": "sim"})
        assert started.status_code == 200 and started.json()["status"] == "EXECUTING", started.text
        time.sleep(2.0)  # the first write is done or in flight
        stack.kill_worker()
        time.sleep(1.0)
        stack.start_worker()
        state = _settled(client, conversation)
        assert state["status"] == "SUCCESS", state["status"]
    permit = stack.facts(tenant)["permits"][0]
    assert sorted(permit["components"]) == ["Espaço Confinado", "Trabalho a Quente", "Trabalho em Altura"]
    writes = stack.pg.query("SELECT count(*) FROM sst_idempotencyrecord WHERE tenant_id = %s AND state = "
                            "'COMPLETED'", (tenant,))[0][0]
    assert writes == 3
    _invariants(stack, [conversation])
    reliability_cases("chaos: Celery worker SIGKILL during a batch", 1)
