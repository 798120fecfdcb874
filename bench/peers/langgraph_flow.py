"""The confirm-after-interrupt flow built with LangGraph and its PostgreSQL checkpointer (the peer of our confirm turn).

Runs inside bench/.venv-langgraph (never the project's venv: it imports only LangGraph, psycopg and
redis). The graph has the shape of our confirm turn:

    prepare ─► confirm ─► start
    (plan)     interrupt()   on "sim": one transaction records the decision and the execution row,
                             then the enqueue-equivalent (LPUSH to Redis after commit, as our
                             Celery enqueue happens after commit)

Two versions of `start` (command field `work`):

- "minimal": the two rows above — LangGraph's own resume machinery with the least a node can do.
- "equivalent": the records our confirm turn keeps, with the same statement economy (two
  statements in one transaction): lock the conversation and its event stream and read, in the same
  statement, the pending confirmation, its plan and the live policy state (role, capability status
  and version, kill switches), then decide; then one statement writes the receipt, the audit row,
  the confirmation's decision, the plan's conditional move to running (checked through RETURNING),
  the execution, its step rows, four timeline rows, three events and the stream's new last seq, the
  turn record and the conversation's versioned update; commit; LPUSH. The same work as ours,
  written as a careful LangGraph developer would, so the difference is the frameworks.

Driven over stdin/stdout by bench/langgraph_confirm.py so both sides alternate in the same run:
each input line is a JSON command `{"round": n, "durability": "async"|"sync", "work": …}`; for each of
the n iterations a fresh thread runs up to the interrupt (untimed), then the resume
`graph.invoke(Command(resume="sim"))` is timed. The answer is one JSON line of samples (ms).

    DSN=postgres://… REDIS_URL=redis://… bench/.venv-langgraph/bin/python bench/peers/langgraph_flow.py
"""

from __future__ import annotations

import json
import os
import sys
import time
import uuid
from typing import Any, TypedDict

import psycopg
import redis
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt
from psycopg.rows import dict_row

QUEUE_KEY = "bench:langgraph:execution"


class FlowState(TypedDict, total=False):
    request: str
    plan: dict[str, Any]
    decision: str
    execution_id: str
    conversation_id: str


def build(saver: PostgresSaver, app_conn: psycopg.Connection, queue: redis.Redis, work: str = "minimal"):
    def prepare(state: FlowState) -> FlowState:
        days = int(state["request"].rsplit(" ", 2)[-2])
        plan = {"id": str(uuid.uuid4()), "capability": "workPermit.updateValidity", "risk": "medium",
                "hash": uuid.uuid4().hex * 2,
                "steps": [{"id": "s1", "capability": "workPermit.updateValidity", "input": {"validity_days": days}}]}
        if work == "equivalent":
            return {"plan": plan, "conversation_id": prepare_equivalent(app_conn, plan)}
        return {"plan": plan}

    def confirm(state: FlowState) -> FlowState:
        answer = interrupt({"question": "Confirma?", "plan_id": state["plan"]["id"]})
        return {"decision": "approved" if str(answer).strip().lower() in {"sim", "yes"} else "rejected"}

    def start(state: FlowState) -> FlowState:
        if state["decision"] != "approved":
            return {}
        if work == "equivalent":
            return {"execution_id": start_equivalent(app_conn, queue, state)}
        execution_id = str(uuid.uuid4())
        with app_conn.transaction():
            app_conn.execute("INSERT INTO lg_decision (plan_id, decision) VALUES (%s, %s)",
                             (state["plan"]["id"], state["decision"]))
            app_conn.execute("INSERT INTO lg_execution (id, plan_id, status, plan) VALUES (%s, %s, 'running', %s)",
                             (execution_id, state["plan"]["id"], json.dumps(state["plan"])))
        queue.lpush(QUEUE_KEY, json.dumps({"execution_id": execution_id, "step": "s1"}))
        return {"execution_id": execution_id}

    graph = StateGraph(FlowState)
    graph.add_node("prepare", prepare)
    graph.add_node("confirm", confirm)
    graph.add_node("start", start)
    graph.add_edge(START, "prepare")
    graph.add_edge("prepare", "confirm")
    graph.add_edge("confirm", "start")
    graph.add_edge("start", END)
    return graph.compile(checkpointer=saver)


_EQUIVALENT_TABLES = """
CREATE TABLE IF NOT EXISTS lg_conversation (id uuid PRIMARY KEY, tenant_id uuid NOT NULL, user_id int NOT NULL,
    version bigint NOT NULL, status text NOT NULL, state jsonb NOT NULL, pending_confirmation uuid,
    updated_at timestamptz NOT NULL);
CREATE TABLE IF NOT EXISTS lg_stream (conversation_id uuid PRIMARY KEY, last_seq bigint NOT NULL);
CREATE TABLE IF NOT EXISTS lg_confirmation (id uuid PRIMARY KEY, conversation_id uuid NOT NULL, plan_id uuid NOT NULL,
    plan_hash text NOT NULL, level text NOT NULL, status text NOT NULL, expires_at timestamptz NOT NULL,
    decided_at timestamptz);
CREATE TABLE IF NOT EXISTS lg_plan (id uuid PRIMARY KEY, tenant_id uuid NOT NULL, status text NOT NULL,
    hash text NOT NULL, steps jsonb NOT NULL);
CREATE TABLE IF NOT EXISTS lg_member (user_id int, tenant_id uuid, role text, PRIMARY KEY (user_id, tenant_id));
CREATE TABLE IF NOT EXISTS lg_capability (key text PRIMARY KEY, status text NOT NULL, version int NOT NULL);
CREATE TABLE IF NOT EXISTS lg_kill_switch (id bigserial PRIMARY KEY, scope text NOT NULL, active boolean NOT NULL);
CREATE TABLE IF NOT EXISTS lg_receipt (id uuid PRIMARY KEY, plan_id uuid NOT NULL, decision text NOT NULL,
    steps jsonb NOT NULL, approval_hash text NOT NULL, issued_at timestamptz NOT NULL, expires_at timestamptz);
CREATE TABLE IF NOT EXISTS lg_audit (id bigserial PRIMARY KEY, event_type text NOT NULL, data jsonb NOT NULL,
    created_at timestamptz NOT NULL);
CREATE TABLE IF NOT EXISTS lg_exec (id uuid PRIMARY KEY, plan_id uuid UNIQUE NOT NULL, receipt_id uuid NOT NULL,
    status text NOT NULL, started_at timestamptz NOT NULL);
CREATE TABLE IF NOT EXISTS lg_step (id bigserial PRIMARY KEY, execution_id uuid NOT NULL, step_id text NOT NULL,
    status text NOT NULL, dispatched_at timestamptz, UNIQUE (execution_id, step_id));
CREATE TABLE IF NOT EXISTS lg_timeline (id bigserial PRIMARY KEY, execution_id uuid NOT NULL, type text NOT NULL,
    at timestamptz NOT NULL, data jsonb NOT NULL);
CREATE TABLE IF NOT EXISTS lg_event (id uuid PRIMARY KEY, conversation_id uuid NOT NULL, seq bigint NOT NULL,
    type text NOT NULL, payload jsonb NOT NULL, at timestamptz NOT NULL, UNIQUE (conversation_id, seq));
CREATE TABLE IF NOT EXISTS lg_turn (id uuid PRIMARY KEY, conversation_id uuid NOT NULL, text text NOT NULL,
    response jsonb NOT NULL, created_at timestamptz NOT NULL);
INSERT INTO lg_capability VALUES ('workPermit.updateValidity', 'ACTIVE', 1) ON CONFLICT DO NOTHING;
"""
TENANT, USER = uuid.UUID(int=1), 1


def prepare_equivalent(app_conn: psycopg.Connection, plan: dict[str, Any]) -> str:
    """The rows our runtime holds while it waits for "sim" (untimed, like our prepare turn)."""
    conversation, confirmation = str(uuid.uuid4()), str(uuid.uuid4())
    with app_conn.transaction():
        app_conn.execute("INSERT INTO lg_plan VALUES (%s, %s, 'awaiting_confirmation', %s, %s)",
                         (plan["id"], TENANT, plan["hash"], json.dumps(plan["steps"])))
        app_conn.execute("INSERT INTO lg_conversation VALUES (%s, %s, %s, 1, 'CONFIRMATION_REQUIRED', %s, %s, now())",
                         (conversation, TENANT, USER, json.dumps({"plan": plan}), confirmation))
        app_conn.execute("INSERT INTO lg_stream VALUES (%s, 3)", (conversation,))
        app_conn.execute("INSERT INTO lg_confirmation VALUES (%s, %s, %s, %s, 'soft', 'PENDING', "
                         "now() + interval '5 minutes', NULL)", (confirmation, conversation, plan["id"], plan["hash"]))
    return conversation


def start_equivalent(app_conn: psycopg.Connection, queue: redis.Redis, state: FlowState) -> str:
    now = time.time()
    with app_conn.transaction():
        # 1: the lock, the pending confirmation, its plan and the live policy state, in one statement.
        row = app_conn.execute(
            "SELECT c.version, s.last_seq, f.id, f.status, f.plan_id, f.plan_hash, f.expires_at > now(), "
            "p.status, p.steps, (SELECT role FROM lg_member WHERE user_id = c.user_id AND tenant_id = c.tenant_id), "
            "(SELECT json_object_agg(key, json_build_array(status, version)) FROM lg_capability "
            " WHERE key IN (SELECT x->>'capability' FROM jsonb_array_elements(p.steps) x)), "
            "(SELECT count(*) FROM lg_kill_switch WHERE active) "
            "FROM lg_conversation c JOIN lg_stream s ON s.conversation_id = c.id "
            "LEFT JOIN lg_confirmation f ON f.id = c.pending_confirmation "
            "LEFT JOIN lg_plan p ON p.id = f.plan_id AND p.tenant_id = c.tenant_id "
            "WHERE c.id = %s AND c.tenant_id = %s AND c.user_id = %s FOR UPDATE OF c, s",
            (state["conversation_id"], TENANT, USER)).fetchone()
        (version, last_seq, confirmation, status, plan_id, plan_hash, fresh, plan_status, steps, role, capabilities,
         switches) = row
        confirmation, plan_id = str(confirmation), str(plan_id)
        if status != "PENDING" or not fresh:
            raise RuntimeError("no pending confirmation")
        keys = [step["capability"] for step in steps]
        allowed = role in ("operator", "supervisor") and switches == 0 and all(
            (capabilities or {}).get(key, [None])[0] == "ACTIVE" for key in keys)
        if not allowed or plan_status != "awaiting_confirmation":
            raise RuntimeError("denied")
        receipt, execution = str(uuid.uuid4()), str(uuid.uuid4())
        binding = {s["id"]: {"capability": s["capability"], "version": 1, "input": s["input"]} for s in steps}
        events = [("MESSAGE_RECEIVED", {"text": "sim"}), ("CONFIRMATION_RECEIVED", {"confirmation_id": confirmation}),
                  ("EXECUTION_STARTED", {"execution_id": execution, "steps": steps})]
        response = {"status": "EXECUTING", "execution": {"id": execution},
                    "events": [{"seq": last_seq + n, "type": t, "payload": p} for n, (t, p) in enumerate(events, 1)]}
        # 2: everything the turn writes, the plan's conditional start checked through RETURNING.
        written = app_conn.execute(
            "WITH r AS (INSERT INTO lg_receipt VALUES (%s, %s, 'ALLOW', %s, %s, now(), now() + interval '5 minutes')), "
            "a AS (INSERT INTO lg_audit (event_type, data, created_at) VALUES ('policy.receipt.allow', %s, now())), "
            "f AS (UPDATE lg_confirmation SET status = 'CONSUMED', decided_at = now() WHERE id = %s), "
            "pl AS (UPDATE lg_plan SET status = 'running' WHERE id = %s AND status = 'awaiting_confirmation' "
            "       RETURNING 1), "
            "e AS (INSERT INTO lg_exec VALUES (%s, %s, %s, 'running', now())), "
            "st AS (INSERT INTO lg_step (execution_id, step_id, status, dispatched_at) "
            "       SELECT %s::uuid, x, 'dispatched', now() FROM unnest(%s::text[]) x), "
            "tl AS (INSERT INTO lg_timeline (execution_id, type, at, data) "
            "       SELECT %s::uuid, x, now(), '{}' FROM unnest(%s::text[]) x), "
            "ev AS (INSERT INTO lg_event SELECT gen_random_uuid(), %s::uuid, %s::bigint + n, t, p::jsonb, now() "
            "       FROM unnest(%s::text[], %s::text[]) WITH ORDINALITY AS u(t, p, n)), "
            "ss AS (UPDATE lg_stream SET last_seq = %s WHERE conversation_id = %s), "
            "tu AS (INSERT INTO lg_turn VALUES (%s, %s, 'sim', %s, now())) "
            "UPDATE lg_conversation SET version = version + 1, status = 'EXECUTING', state = %s, "
            "pending_confirmation = pending_confirmation, updated_at = now() WHERE id = %s AND version = %s "
            "RETURNING (SELECT count(*) FROM pl)",
            (receipt, plan_id, json.dumps(binding), plan_hash, json.dumps({"receipt": receipt}), confirmation,
             plan_id, execution, plan_id, receipt, execution, [s["id"] for s in steps], execution,
             ["PLAN_CREATED", "PLAN_VALIDATED", "CONFIRMATION_RECEIVED", "EXECUTION_STARTED"],
             state["conversation_id"], last_seq, [t for t, _ in events], [json.dumps(p) for _, p in events],
             last_seq + len(events), state["conversation_id"], str(uuid.uuid4()), state["conversation_id"],
             json.dumps(response), json.dumps({"last_response": response, "at": now}), state["conversation_id"],
             version)).fetchone()
        if written is None:
            raise RuntimeError("version conflict")
        if written[0] != 1:
            raise RuntimeError("already started")
    queue.lpush(QUEUE_KEY, json.dumps({"execution_id": execution, "step": steps[0]["id"]}))
    return execution


def _app_tables(conn: psycopg.Connection) -> None:
    conn.execute(_EQUIVALENT_TABLES)
    conn.execute("INSERT INTO lg_member VALUES (%s, %s, 'operator') ON CONFLICT DO NOTHING", (USER, TENANT))
    conn.execute("CREATE TABLE IF NOT EXISTS lg_decision (id bigserial PRIMARY KEY, plan_id uuid NOT NULL, "
                 "decision text NOT NULL, at timestamptz NOT NULL DEFAULT now())")
    conn.execute("CREATE TABLE IF NOT EXISTS lg_execution (id uuid PRIMARY KEY, plan_id uuid NOT NULL, "
                 "status text NOT NULL, plan jsonb NOT NULL, at timestamptz NOT NULL DEFAULT now())")


def run_round(graph, n: int, durability: str, counter: list[int]) -> list[float]:
    samples = []
    for _ in range(n):
        counter[0] += 1
        config = {"configurable": {"thread_id": str(uuid.uuid4())}}
        first = graph.invoke({"request": f"mude a validade para {10 + counter[0] % 300} dias"}, config,
                             durability=durability)
        assert "__interrupt__" in first, first
        started = time.perf_counter_ns()
        result = graph.invoke(Command(resume="sim"), config, durability=durability)
        samples.append((time.perf_counter_ns() - started) / 1e6)
        assert result.get("execution_id"), result
    return samples


def main() -> None:
    dsn = os.environ["DSN"]
    queue = redis.Redis.from_url(os.environ["REDIS_URL"])
    with psycopg.connect(dsn, autocommit=True, prepare_threshold=0, row_factory=dict_row) as saver_conn, \
            psycopg.connect(dsn, autocommit=True) as app_conn:
        saver = PostgresSaver(saver_conn)
        saver.setup()
        _app_tables(app_conn)
        graphs = {work: build(saver, app_conn, queue, work) for work in ("minimal", "equivalent")}
        counter = [0]
        print(json.dumps({"ready": True}), flush=True)
        for line in sys.stdin:
            command = json.loads(line)
            samples = run_round(graphs[command.get("work", "minimal")], int(command["round"]),
                                command.get("durability", "async"), counter)
            print(json.dumps({"samples": samples}), flush=True)
    queue.delete(QUEUE_KEY)


if __name__ == "__main__":
    main()
