"""Load: K concurrent simulated users, 20 turns each, real HTTP into daphne with real Celery workers.

For each K in LOAD_LEVELS (default 10, 50, 200) a fresh scenario world is created through the
test-control API (one permit per simulated user, so users contend for the server, not for each
other's rows), then K asyncio clients (httpx) each open a conversation and play the same realistic
20-turn mix (TURNS below: open, navigate, add a component + "sim", explain it, undo + "sim", a
count question, change validity then cancel, change validity + "sim", add another component +
"sim"). After a turn answered EXECUTING the client polls the conversation until it settles, as the
chat page waits for the result; that wait is reported separately (`settle_*`), not as turn latency.

Every message carries a `client_message_id`; a transport error is retried once with the same id
(idempotent), so a retry can never duplicate a turn. An overloaded server answers 503 with
Retry-After (config/overload.py: it did nothing); the client waits that long (plus jitter) and sends
the same id again, up to LOAD_503_RETRIES times, as the chat page would. `overloaded_503` counts
those answers; `errors` are what was still failing after the retries, `errors_by_kind` by status.
Afterwards each run is verified against the database and the API: turns stored per conversation =
turns answered (`lost_turns`, `duplicate_turns`), each conversation's events numbered 1..n without a gap (`event_gaps`),
completed executions = "sim" turns (`lost_executions`, `duplicate_executions`), SST writes recorded
by the API's idempotency table = expected writes (`sst_effects` expected/recorded), and each
permit's final components and validity as the mix implies (`wrong_final_state`).

Top level (`p50_ms`/`p95_ms`/`p99_ms`, `turns_per_s`, `errors`) is the largest K; `levels` has
every K. There is no same-run baseline for a load test (BENCH.md allows none): `ratio` is null.
Rate limits are raised in the server's environment (the point is the machine, not the limiter).

    DATABASE_URL=postgres://… REDIS_URL=redis://… .venv/bin/python bench/load_turns.py
    LOAD_LEVELS=10 .venv/bin/python bench/load_turns.py     # a quick run
"""

from __future__ import annotations

import asyncio
import os
import random
import secrets
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from _common import ROOT, django_setup, emit, free_port, summarize

django_setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.db.models import Count  # noqa: E402

from conversations.models import Turn  # noqa: E402
from events.models import ConversationEvent  # noqa: E402
from execution.models import Execution  # noqa: E402
from sst.models import IdempotencyRecord  # noqa: E402
from tenancy.models import Tenant  # noqa: E402

NAME = "load_turns"
LEVELS = [int(k) for k in os.environ.get("LOAD_LEVELS", "10,50,200").split(",")]
# The clients' whole budget (the script must end in 5 minutes); each level may use what the earlier ones left.
PLAY_BUDGET_S = float(os.environ.get("LOAD_PLAY_BUDGET_S", "220"))
# daphne runs each process's Python on one core; one process per core, clients spread over them.
SERVERS = int(os.environ.get("LOAD_SERVERS", str(os.cpu_count() or 1)))
RETRIES_503 = int(os.environ.get("LOAD_503_RETRIES", "3"))
BUSY = frozenset({"UNDERSTANDING", "PLANNING", "EXECUTING", "CANCELLING", "RESUMING"})
COMPONENTS = [{"key": "workingAtHeight", "name": "Trabalho em Altura", "undoable": True},
              {"key": "hotWork", "name": "Trabalho a Quente", "undoable": True},
              {"key": "confinedSpace", "name": "Espaço Confinado", "undoable": True}]
# The 20-turn mix: (text, what the turn should answer). {n} is the user's permit, {d} a validity.
TURNS: list[tuple[str, str]] = [
    ("Abra a permissão {n}", "navigation"),
    ("Agora vá para os componentes", "navigation"),
    ("Adicione o componente de trabalho em altura", "confirmation"),
    ("sim", "execution"),
    ("Explique esse componente", "answer"),
    ("desfaça", "confirmation"),
    ("sim", "execution"),
    ("Adicione o componente trabalho a quente", "confirmation"),
    ("sim", "execution"),
    ("Quantos funcionários estão cadastrados?", "answer"),
    ("Mude a validade para {d} dias", "confirmation"),
    ("cancela", "cancelled"),
    ("Mude a validade para {d2} dias", "confirmation"),
    ("sim", "execution"),
    ("Explique a validade da permissão", "answer"),
    ("Vá para os componentes", "navigation"),
    ("Adicione o componente espaço confinado", "confirmation"),
    ("sim", "execution"),
    ("Abra a permissão {n}", "navigation"),
    ("Quantos funcionários estão cadastrados?", "answer"),
]
EXPECTED_COMPONENTS = {"Trabalho a Quente", "Espaço Confinado"}


class Stack:
    """SERVERS daphne processes (HTTP + websockets) and a Celery worker, on this environment's database and Redis."""

    def __init__(self) -> None:
        self.urls = [f"http://127.0.0.1:{free_port()}" for _ in range(SERVERS)]
        self.token = secrets.token_urlsafe(24)
        self.log = Path(tempfile.gettempdir()) / f"sst-agent-load-{os.getpid()}.log"
        self.processes: list[subprocess.Popen] = []

    def env(self) -> dict[str, str]:
        return {**os.environ, "AGENT_TEST_CONTROL": "1", "AGENT_TEST_CONTROL_TOKEN": self.token,
                "SST_FAULT_INJECTION": "1", "AGENT_RATE_USER_PER_MINUTE": "1000000",
                "AGENT_RATE_TENANT_PER_MINUTE": "1000000", "ALLOWED_HOSTS": "127.0.0.1,localhost",
                "LOG_LEVEL": "WARNING", "PYTHONUNBUFFERED": "1", "DEBUG": "0"}

    def start(self) -> None:
        bin_dir = Path(sys.executable).parent
        out = self.log.open("ab")
        daphnes = [[str(bin_dir / "daphne"), "-b", "127.0.0.1", "-p", url.rsplit(":", 1)[1], "config.asgi:application"]
                   for url in self.urls]
        for argv in (*daphnes,
                     [str(bin_dir / "celery"), "-A", "config", "worker", "-P", "prefork", "-c", "2", "-O", "fair",
                      "-Q", "execution,execution_high,default", "--loglevel=WARNING", "--without-gossip",
                      "--without-mingle", "--without-heartbeat", "-n", f"load-{os.getpid()}@%h"]):
            self.processes.append(subprocess.Popen(argv, cwd=ROOT, env=self.env(), stdout=out,
                                                   stderr=subprocess.STDOUT, start_new_session=True))
        deadline = time.monotonic() + 60
        waiting = list(self.urls)
        while waiting and time.monotonic() < deadline:
            if any(p.poll() is not None for p in self.processes):
                raise RuntimeError(f"a server process exited; see {self.log}")
            try:
                if httpx.get(f"{waiting[0]}/login/", timeout=2).status_code == 200:
                    waiting.pop(0)
                    continue
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        if waiting:
            raise RuntimeError(f"daphne did not answer; see {self.log}")

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    settles: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)
    answered: dict[str, int] = field(default_factory=dict)  # conversation id → turns answered 2xx
    permits: dict[str, tuple[str, int]] = field(default_factory=dict)  # conversation id → (permit number, validity)
    executions: list[str] = field(default_factory=list)  # execution ids the "sim" turns started
    unplayed: int = 0  # turns not sent because the level's time ran out
    retries: int = 0
    overloaded: int = 0  # 503 answers (each retried after its Retry-After while retries remain)
    errors_by_kind: Counter[str] = field(default_factory=Counter)

    def error(self, what: str, response: httpx.Response | None) -> None:
        kind = "transport" if response is None else f"http {response.status_code}"
        self.errors.append(f"{what} {kind}")
        self.errors_by_kind[kind] += 1


def _kind(body: dict[str, Any]) -> str:
    if body.get("status") == "CANCELLED":
        return "cancelled"
    return (body.get("response") or {}).get("type") or "?"


async def _user(client: httpx.AsyncClient, token: str, index: int, number: str, tally: Tally,
                deadline: float) -> None:
    headers = {"Authorization": f"Token {token}"}
    created = await _post_turn(client, "/agent/conversations", headers, {}, tally)
    if created is None or created.status_code != 201:
        tally.error("create", created)
        return
    conversation = created.json()["id"]
    tally.answered[conversation] = 0
    values = {"n": number, "d": str(20 + index % 40), "d2": str(61 + index % 60)}
    tally.permits[conversation] = (number, int(values["d2"]))
    for position, (template, expected) in enumerate(TURNS):
        if time.monotonic() > deadline:
            tally.unplayed += len(TURNS) - position
            return
        body = {"text": template.format(**values), "client_message_id": f"load-{conversation}-{position}"}
        started = time.perf_counter()
        answer = await _post_turn(client, f"/agent/conversations/{conversation}/messages", headers, body, tally)
        tally.latencies.append((time.perf_counter() - started) * 1000)
        if answer is None or answer.status_code >= 300:
            tally.error(f"turn {position}", answer)
            continue
        tally.answered[conversation] += 1
        turn = answer.json()
        if _kind(turn) != expected:
            tally.unexpected.append(f"turn {position}: wanted {expected}, got {_kind(turn)} "
                                    f"{(turn.get('response') or {}).get('message', '')[:80]!r}")
        if expected == "execution" and (turn.get("response") or {}).get("execution"):
            tally.executions.append(turn["response"]["execution"]["id"])
        if turn.get("status") in BUSY:
            await _settle(client, conversation, headers, tally)


async def _post_turn(client: httpx.AsyncClient, path: str, headers: dict[str, str], body: dict[str, Any],
                     tally: Tally) -> httpx.Response | None:
    transport_retried, overloaded = False, 0
    while True:
        try:
            response = await client.post(path, headers=headers, json=body)
        except httpx.TransportError:
            if transport_retried:
                return None
            transport_retried = True
            tally.retries += 1  # same client_message_id: the server answers the first turn again
            continue
        if response.status_code != 503:
            return response
        tally.overloaded += 1
        if overloaded >= RETRIES_503:
            return response
        overloaded += 1
        wait = float(response.headers.get("Retry-After", "1"))
        await asyncio.sleep(wait * random.uniform(1, 1.5))  # noqa: S311 - jitter, not security


async def _settle(client: httpx.AsyncClient, conversation: str, headers: dict[str, str], tally: Tally) -> None:
    started, pause = time.perf_counter(), 0.05
    while time.perf_counter() - started < 60:
        await asyncio.sleep(pause)
        state = await client.get(f"/agent/conversations/{conversation}", headers=headers)
        if state.status_code == 200 and state.json().get("status") not in BUSY:
            tally.settles.append((time.perf_counter() - started) * 1000)
            return
        pause = min(pause * 1.5, 0.3)
    tally.errors.append("execution did not settle in 60 s")
    tally.errors_by_kind["settle timeout"] += 1


def _world(k: int) -> dict[str, Any]:
    return {"companies": ["Carga Ltda"], "employees": [{"name": "Ana Lima", "company": "Carga Ltda"}],
            "components": COMPONENTS,
            "permits": [{"number": f"{7000 + i}", "company": "Carga Ltda", "validity_days": 10, "components": []}
                        for i in range(k)],
            "knowledge": [{"title": "Trabalho em Altura",
                           "body": "Trabalho em altura é toda atividade acima de 2 metros, regida pela NR-35."}]}


async def _level(stack: Stack, k: int, budget_s: float) -> dict[str, Any]:
    control = {"X-Test-Control-Token": stack.token}
    limits = httpx.Limits(max_connections=k + 5, max_keepalive_connections=k + 5)
    clients = [httpx.AsyncClient(base_url=url, timeout=120, limits=limits) for url in stack.urls]
    client = clients[0]
    try:
        made = await client.post("/api/_test/worlds", headers=control, json=_world(k))
        made.raise_for_status()
        world = made.json()
        token = world["users"]["operator"]["token"]
        tally = Tally()
        deadline = time.monotonic() + budget_s
        started = time.perf_counter()
        await asyncio.gather(*(_user(clients[i % len(clients)], token, i, f"{7000 + i}", tally, deadline)
                               for i in range(k)))
        elapsed = time.perf_counter() - started
        verified = await _verify(client, token, world["tenant"], tally, control)
        await client.delete(f"/api/_test/worlds/{world['tenant']}", headers=control)
    finally:
        for each in clients:
            await each.aclose()
    turns = len(tally.latencies)
    return {"users": k, "turns": turns, "unplayed_turns": tally.unplayed, "budget_s": round(budget_s, 1),
            "seconds": round(elapsed, 2), "turns_per_s": round(turns / elapsed, 2),
            **summarize(tally.latencies or [0.0], digits=2),
            "settle": summarize(tally.settles or [0.0], digits=2),
            "errors": len(tally.errors), "errors_by_kind": dict(tally.errors_by_kind),
            "error_kinds": sorted(set(tally.errors))[:5], "overloaded_503": tally.overloaded,
            "transport_retries": tally.retries,
            "unexpected_replies": len(tally.unexpected), "unexpected_examples": sorted(set(tally.unexpected))[:3],
            **verified}


async def _verify(client: httpx.AsyncClient, token: str, tenant_id: str, tally: Tally,
                  control: dict[str, str]) -> dict[str, Any]:
    """Nothing lost or duplicated: turns, events, executions and SST writes against what the clients saw."""
    tenant = await asyncio.to_thread(Tenant.objects.get, pk=tenant_id)
    conversations = list(tally.answered)
    stored = await asyncio.to_thread(_counts, tenant, conversations)
    lost_turns = sum(max(0, tally.answered[c] - stored["turns"].get(c, 0)) for c in conversations)
    duplicate_turns = sum(max(0, stored["turns"].get(c, 0) - tally.answered[c]) for c in conversations)
    gaps = 0
    headers = {"Authorization": f"Token {token}"}
    for conversation in conversations:
        events = (await client.get(f"/agent/conversations/{conversation}/events?after=0", headers=headers)).json()
        items = events.get("events", events) if isinstance(events, dict) else events
        seqs = [e["seq"] for e in items]
        gaps += int(seqs != list(range(1, len(seqs) + 1)) or len(seqs) != stored["events"].get(conversation, 0))
    facts = (await client.get(f"/api/_test/worlds/{tenant_id}/facts", headers=control)).json()["permits"]
    by_number = {p["number"]: p for p in facts}
    full = [c for c in conversations if tally.answered[c] == len(TURNS)]
    wrong_state = sum(1 for c in full if set(by_number[tally.permits[c][0]]["components"]) != EXPECTED_COMPONENTS
                      or by_number[tally.permits[c][0]]["validity_days"] != tally.permits[c][1])
    completed = await asyncio.to_thread(_completed, tenant, tally.executions)
    return {"lost_turns": lost_turns, "duplicate_turns": duplicate_turns, "event_gaps": gaps,
            "executions": {"started_by_sim": len(tally.executions), "completed": completed},
            "sst_effects": {"expected": len(tally.executions), "recorded": stored["sst_writes"]},
            "wrong_final_state": wrong_state, "complete_conversations": len(full)}


def _completed(tenant: Tenant, ids: list[str]) -> int:
    return Execution.objects.for_tenant(tenant).filter(pk__in=ids, status="completed").count()


def _counts(tenant: Tenant, conversations: list[str]) -> dict[str, Any]:
    turns = dict(Turn.objects.for_tenant(tenant).filter(conversation_id__in=conversations)
                 .values_list("conversation_id").annotate(n=Count("id")).values_list("conversation_id", "n"))
    events = dict(ConversationEvent.objects.filter(tenant=tenant, conversation_id__in=conversations)
                  .values_list("conversation_id").annotate(n=Count("id")).values_list("conversation_id", "n"))
    return {"turns": {str(k): v for k, v in turns.items()}, "events": {str(k): v for k, v in events.items()},
            "sst_writes": IdempotencyRecord.objects.for_tenant(tenant).filter(state="COMPLETED").count()}


def main() -> None:
    if connection.vendor != "postgresql" or not settings.REDIS_URL:
        sys.exit("load_turns needs DATABASE_URL=postgres://… and REDIS_URL=redis://…")
    from tests.execution.worker import purge_queues

    # From an empty queue, and leaving one: steps another run left queued for a world it deleted
    # would take this stack's worker (seen: 220 such steps failing through a served level at K=50).
    purge_queues()
    stack = Stack()
    stack.start()
    levels, budget_end = [], time.monotonic() + PLAY_BUDGET_S
    try:
        for position, k in enumerate(LEVELS):
            share = (budget_end - time.monotonic()) / (len(LEVELS) - position)
            levels.append(asyncio.run(_level(stack, k, share)))
    finally:
        stack.stop()
        purge_queues()
    top = levels[-1]
    emit(NAME, {"n": top["turns"], "p50_ms": top["p50_ms"], "p95_ms": top["p95_ms"], "p99_ms": top["p99_ms"],
                "ratio": None, "turns_per_s": top["turns_per_s"], "errors": sum(lv["errors"] for lv in levels),
                "errors_by_kind": dict(sum((Counter(lv["errors_by_kind"]) for lv in levels), Counter())),
                "overloaded_503": sum(lv["overloaded_503"] for lv in levels),
                "lost_or_duplicated": sum(lv["lost_turns"] + lv["duplicate_turns"] + lv["event_gaps"]
                                          + lv["wrong_final_state"]
                                          + abs(lv["sst_effects"]["expected"] - lv["sst_effects"]["recorded"])
                                          + lv["executions"]["started_by_sim"] - lv["executions"]["completed"]
                                          for lv in levels),
                "servers": f"{SERVERS} daphne + 1 celery worker (prefork -c 2)", "nproc": os.cpu_count(),
                "levels": levels, "run_id": uuid.uuid4().hex[:8]})


if __name__ == "__main__":
    main()
