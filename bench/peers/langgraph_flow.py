"""The confirm-after-interrupt flow built with LangGraph and its PostgreSQL checkpointer (the peer of our confirm turn).

Runs inside bench/.venv-langgraph (never the project's venv: it imports only LangGraph, psycopg and
redis). The graph has the shape of our confirm turn:

    prepare ─► confirm ─► start
    (plan)     interrupt()   on "sim": one transaction records the decision and the execution row,
                             then the enqueue-equivalent (LPUSH to Redis after commit, as our
                             Celery enqueue happens after commit)

Driven over stdin/stdout by bench/langgraph_confirm.py so both sides alternate in the same run:
each input line is a JSON command `{"round": n, "durability": "async"|"sync"|"exit"}`; for each of
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


def build(saver: PostgresSaver, app_conn: psycopg.Connection, queue: redis.Redis):
    def prepare(state: FlowState) -> FlowState:
        days = int(state["request"].rsplit(" ", 2)[-2])
        return {"plan": {"id": str(uuid.uuid4()), "capability": "workPermit.updateValidity", "risk": "medium",
                         "steps": [{"id": "s1", "input": {"validity_days": days}}]}}

    def confirm(state: FlowState) -> FlowState:
        answer = interrupt({"question": "Confirma?", "plan_id": state["plan"]["id"]})
        return {"decision": "approved" if str(answer).strip().lower() in {"sim", "yes"} else "rejected"}

    def start(state: FlowState) -> FlowState:
        if state["decision"] != "approved":
            return {}
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


def _app_tables(conn: psycopg.Connection) -> None:
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
        graph = build(saver, app_conn, queue)
        counter = [0]
        print(json.dumps({"ready": True}), flush=True)
        for line in sys.stdin:
            command = json.loads(line)
            samples = run_round(graph, int(command["round"]), command.get("durability", "async"), counter)
            print(json.dumps({"samples": samples}), flush=True)
    queue.delete(QUEUE_KEY)


if __name__ == "__main__":
    main()
