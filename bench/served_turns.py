"""Served turns: fast-path turns over HTTP into the production serving stack (`make serve`), against an
authenticated GET of one permit on the same servers at the same concurrency.

The stack is scripts/serve_production.sh itself — gunicorn with one uvicorn worker per core, DEBUG=0, a
Celery worker and beat under honcho — on a free port, with the test-control API off and the rate limits
raised (the point is the machine, not the limiter). For each K in SERVED_LEVELS (default 10, 50, 200)
a fresh world with one permit per client is made in this process (demo.testcontrol's services on the
same database: the stack serves as in production, where every clock read is free), and K asyncio clients
(httpx), each with its own conversation and its own connection, play for SERVED_SECONDS (default 20)
the mix in MIX, each from another point of it: open the permit, ask its validity, count the employees, ask to change the
permit's validity, "sim". Before its next write question a client waits until its last write has
settled (polling, not counted as a turn: a write is refused while one runs; `settle_polls` counts them).
The baseline — every client GETting its permit from /api/sst/permits/<id> — runs for half of SERVED_BASELINE_SECONDS
(default 8) before the turns and half after, so a drift in the shared machine's load hits both;
`ratio` is turn p50 ÷ baseline p50, per level and per kind.

A 503 (overload: nothing was done) is retried after its Retry-After with the same client_message_id,
up to SERVED_503_RETRIES times; a transport error once. `errors` are what still failed. The warm-up
also checks that a websocket on the stack receives a turn's event (`websocket_events`). Afterwards,
against the database: turns stored = turns answered, SST writes recorded = "sim" turns that started
an execution, every such execution completed, each permit's validity the last one confirmed. Every
report key and the targets are computed in bench/_served_report.py.

    DATABASE_URL=postgres://… REDIS_URL=redis://… .venv/bin/python bench/served_turns.py
    SERVED_LEVELS=10,50 SERVED_SECONDS=10 .venv/bin/python bench/served_turns.py     # a quick run
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
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
from _common import ROOT, django_setup, emit, free_port
from _served_report import Seen, level_summary, lost_or_duplicated, targets_met
from websockets.exceptions import WebSocketException

django_setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.db.models import Count  # noqa: E402

from conversations.models import Turn  # noqa: E402
from demo.testcontrol.services import world_create, world_delete, world_facts  # noqa: E402
from execution.models import Execution  # noqa: E402
from sst.models import IdempotencyRecord  # noqa: E402
from tenancy.models import Tenant  # noqa: E402

NAME = "served_turns"
LEVELS = [int(k) for k in os.environ.get("SERVED_LEVELS", "10,50,200").split(",")]
SECONDS = float(os.environ.get("SERVED_SECONDS", "20"))
BASELINE_SECONDS = float(os.environ.get("SERVED_BASELINE_SECONDS", "8"))
RETRIES_503 = int(os.environ.get("SERVED_503_RETRIES", "3"))
BUSY = frozenset({"UNDERSTANDING", "PLANNING", "EXECUTING", "CANCELLING", "RESUMING"})
# (kind, text, the reply's type). {n} is the client's permit, {d} a validity no earlier cycle left.
MIX = [("navigation", "Abra a permissão {n}", "navigation"),
       ("field", "Qual a validade da permissão {n}?", "answer"),
       ("count", "Quantos funcionários estão cadastrados?", "answer"),
       ("write", "Mude a validade da permissão {n} para {d} dias", "confirmation"),
       ("sim", "sim", "execution")]


class Stack:
    """scripts/serve_production.sh on a free port of 127.0.0.1, on this environment's database and Redis."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = Path(tempfile.gettempdir()) / f"sst-agent-served-{os.getpid()}.log"
        self.process: subprocess.Popen | None = None

    def env(self) -> dict[str, str]:
        # As served in production: the sample API's fault injection off (its default; a rule lookup per
        # business API call otherwise) and the test-control API off (a shared-clock read per clock read
        # otherwise); the worlds are made and removed by this process (_make_world).
        return {**os.environ, "PORT": str(self.port), "HOST": "127.0.0.1", "AGENT_TEST_CONTROL": "0",
                "SST_FAULT_INJECTION": "0",
                "AGENT_RATE_USER_PER_MINUTE": "1000000", "AGENT_RATE_TENANT_PER_MINUTE": "1000000",
                "ALLOWED_HOSTS": "127.0.0.1,localhost", "LOG_LEVEL": "WARNING", "PYTHONUNBUFFERED": "1"}

    def start(self) -> None:
        # Its own process group: stop() ends honcho, gunicorn and its workers, celery and beat together.
        self.process = subprocess.Popen(["bash", str(ROOT / "scripts" / "serve_production.sh")], cwd=ROOT,
                                        env=self.env(), stdout=self.log.open("ab"), stderr=subprocess.STDOUT,
                                        start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the serving stack exited; see {self.log}")
            try:
                if httpx.get(f"{self.url}/login/", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"the serving stack did not answer in 60 s; see {self.log}")

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


@dataclass
class Client:
    """One simulated user: its conversation and permit, and what its turns left to verify."""

    http: httpx.AsyncClient
    headers: dict[str, str]
    seen: Seen
    index: int
    number: str
    permit_id: int
    conversation: str = ""
    answered: int = 0  # turns answered 2xx
    executions: list[str] = field(default_factory=list)  # started by its "sim" turns
    validity: int | None = None  # the last validity a "sim" started writing
    days: int = 0  # the validity this cycle asks for
    sent: int = 0

    async def post(self, path: str, body: dict[str, Any], kind: str) -> httpx.Response | None:
        """POST with the issue's retry rules: a 503 after its Retry-After, a transport error once."""
        transport_retried, overloaded = False, 0
        while True:
            try:
                response = await self.http.post(path, headers=self.headers, json=body)
            except httpx.TransportError:
                if transport_retried:
                    return None
                transport_retried = True  # same client_message_id: the server answers the first turn again
                continue
            if response.status_code != 503:
                return response
            self.seen.overloaded[kind] += 1
            if overloaded >= RETRIES_503:
                return response
            overloaded += 1
            await asyncio.sleep(float(response.headers.get("Retry-After", "1")) * random.uniform(1, 1.5))  # noqa: S311

    async def open(self) -> None:
        created = await self.post("/agent/conversations", {}, "open")
        if created is None or created.status_code != 201:
            raise RuntimeError(f"could not open a conversation: {created and created.status_code}")
        self.conversation = created.json()["id"]

    async def turn(self, kind: str, text: str, expected: str) -> None:
        body = {"text": text, "client_message_id": f"served-{self.conversation}-{self.sent}"}
        self.sent += 1
        started = time.perf_counter()
        answer = await self.post(f"/agent/conversations/{self.conversation}/messages", body, kind)
        ms = (time.perf_counter() - started) * 1000
        if answer is None or answer.status_code >= 300:
            self.seen.errors[kind] += 1
            self.seen.error_statuses["transport" if answer is None else f"http {answer.status_code}"] += 1
            return
        self.answered += 1
        reply = answer.json().get("response") or {}
        self.seen.answered(kind, ms, reply.get("type") or "?", expected, reply.get("message") or "")
        if kind == "sim" and reply.get("execution"):
            self.executions.append(reply["execution"]["id"])
            self.validity = self.days

    async def settle(self) -> None:
        """Wait until the conversation is no longer busy (the last write ran), as the chat page waits."""
        pause, deadline = 0.05, time.monotonic() + 30
        while time.monotonic() < deadline:
            self.seen.polls += 1
            try:
                state = await self.http.get(f"/agent/conversations/{self.conversation}", headers=self.headers)
            except httpx.TransportError:  # a kept-alive connection the server closed meanwhile: poll again
                state = None
            if state is not None and state.status_code == 200 and state.json().get("status") not in BUSY:
                return
            await asyncio.sleep(pause)
            pause = min(pause * 1.5, 0.3)

    async def play(self, deadline: float) -> None:
        # Clients start at different kinds ("sim" only after its question): each kind is played even
        # when a loaded server leaves a client time for a few turns only.
        position = self.index % (len(MIX) - 1)
        while time.monotonic() < deadline:
            kind, template, expected = MIX[position % len(MIX)]
            if kind == "write":
                self.days = 20 + (self.index * 7 + position // len(MIX)) % 300  # differs from the last cycle's
                if self.executions:
                    await self.settle()
            await self.turn(kind, template.format(n=self.number, d=self.days), expected)
            position += 1

    async def baseline(self, deadline: float, samples: list[float], failures: list[str]) -> None:
        while time.monotonic() < deadline:
            started = time.perf_counter()
            try:
                response = await self.http.get(f"/api/sst/permits/{self.permit_id}", headers=self.headers)
            except httpx.TransportError:
                failures.append("transport")
                continue
            if response.status_code == 200:
                samples.append((time.perf_counter() - started) * 1000)
            else:
                failures.append(f"http {response.status_code}")


def _world(k: int) -> dict[str, Any]:
    return {"companies": ["Carga Ltda"],
            "employees": [{"name": name, "company": "Carga Ltda"} for name in ("Ana Lima", "Bruno Sá", "Carla Dias")],
            "components": [{"key": "workingAtHeight", "name": "Trabalho em Altura", "undoable": True}],
            "permits": [{"number": f"{7000 + i}", "company": "Carga Ltda", "validity_days": 10, "components": []}
                        for i in range(k)]}


async def _make_world(k: int) -> tuple[str, str, dict[str, int]]:
    made = await asyncio.to_thread(world_create, world=_world(k))
    facts = await asyncio.to_thread(world_facts, tenant_id=made.tenant)
    return made.tenant, made.users["operator"]["token"], {p["number"]: p["id"] for p in facts["permits"]}


def _http(stack: Stack) -> httpx.AsyncClient:
    """One client's own connection, as a user's browser keeps its own: a pool shared by K users costs the load
    generator O(K) per request (httpcore scans every pooled connection), and at K=50 that was half its CPU."""
    return httpx.AsyncClient(base_url=stack.url, timeout=60,
                             limits=httpx.Limits(max_connections=2, max_keepalive_connections=2))


async def _level(stack: Stack, k: int, made: list[str]) -> dict[str, Any]:
    async with contextlib.AsyncExitStack() as pools:
        tenant, token, ids = await _make_world(k)
        seen, headers = Seen(), {"Authorization": f"Token {token}"}
        clients = [Client(await pools.enter_async_context(_http(stack)), headers, seen, i, f"{7000 + i}",
                          ids[f"{7000 + i}"]) for i in range(k)]
        await asyncio.gather(*(c.open() for c in clients))
        samples, failures = [], []
        await _all(clients, Client.baseline, BASELINE_SECONDS / 2, samples, failures)
        started = time.perf_counter()
        await _all(clients, Client.play, SECONDS)
        elapsed = time.perf_counter() - started
        await _all(clients, Client.baseline, BASELINE_SECONDS / 2, samples, failures)
        verified = await _verify(tenant, clients)
    made.append(tenant)
    report = level_summary(seen, elapsed, samples)
    report["baseline"].update(errors=len(failures), errors_by_status=dict(Counter(failures)),
                              requests_per_s=round(len(samples) / BASELINE_SECONDS, 2))
    return {"clients": k, **report, **verified, "lost_or_duplicated": lost_or_duplicated(verified)}


async def _all(clients: list[Client], method: Any, seconds: float, *args: Any) -> None:
    deadline = time.monotonic() + seconds
    await asyncio.gather(*(method(c, deadline, *args) for c in clients))


async def _verify(tenant_id: str, clients: list[Client]) -> dict[str, Any]:
    """Nothing lost or duplicated: turns, SST writes, executions and final validity against what the clients saw."""
    tenant = await asyncio.to_thread(Tenant.objects.get, pk=tenant_id)
    started = [e for c in clients for e in c.executions]
    settled = await _settled(tenant, started)
    stored = await asyncio.to_thread(_counts, tenant, [c.conversation for c in clients])
    facts = (await asyncio.to_thread(world_facts, tenant_id=tenant_id))["permits"]
    validity = {p["number"]: p["validity_days"] for p in facts}
    return {"lost_turns": sum(max(0, c.answered - stored["turns"].get(c.conversation, 0)) for c in clients),
            "duplicate_turns": sum(max(0, stored["turns"].get(c.conversation, 0) - c.answered) for c in clients),
            "executions": {"started_by_sim": len(started), "completed": settled},
            "sst_writes": {"expected": len(started), "recorded": stored["sst_writes"]},
            "wrong_final_validity": sum(1 for c in clients if c.validity is not None
                                        and validity[c.number] != c.validity)}


async def _settled(tenant: Tenant, ids: list[str]) -> int:
    """Completed executions among `ids`, once every one has settled (or 60 s have passed)."""
    deadline = time.monotonic() + 60
    while True:
        running, completed = await asyncio.to_thread(_execution_states, tenant, ids)
        if not running or time.monotonic() > deadline:
            return completed
        await asyncio.sleep(0.5)


def _execution_states(tenant: Tenant, ids: list[str]) -> tuple[int, int]:
    states = dict(Execution.objects.for_tenant(tenant).filter(pk__in=ids).values_list("status")
                  .annotate(n=Count("id")).values_list("status", "n"))
    completed = states.pop("completed", 0)
    return sum(n for status, n in states.items() if status in ("running", "verifying", "compensating")), completed


def _counts(tenant: Tenant, conversations: list[str]) -> dict[str, Any]:
    turns = dict(Turn.objects.for_tenant(tenant).filter(conversation_id__in=conversations)
                 .values_list("conversation_id").annotate(n=Count("id")).values_list("conversation_id", "n"))
    return {"turns": {str(k): v for k, v in turns.items()},
            "sst_writes": IdempotencyRecord.objects.for_tenant(tenant).filter(state="COMPLETED").count()}


async def _warm_up(stack: Stack, made: list[str]) -> bool:
    """An untimed turn on each of 8 clients, so each worker process has loaded what a turn needs;
    and whether a websocket on the stack receives a turn's event (true: websockets are served too)."""
    async with httpx.AsyncClient(base_url=stack.url, timeout=60) as http:
        tenant, token, ids = await _make_world(8)
        clients = [Client(http, {"Authorization": f"Token {token}"}, Seen(), i, f"{7000 + i}", ids[f"{7000 + i}"])
                   for i in range(8)]
        await asyncio.gather(*(c.open() for c in clients))
        socket_ok = await _socket_gets_an_event(stack, clients[0])
        await asyncio.gather(*(c.play(time.monotonic() + 0.01) for c in clients))
        await asyncio.gather(*(c.settle() for c in clients))
    made.append(tenant)
    return socket_ok


async def _socket_gets_an_event(stack: Stack, client: Client) -> bool:
    """Open the conversation's socket after its last event, play a turn over HTTP, wait for the next event.
    The turn may be served by another worker process than the socket: this crosses the Redis channel layer."""
    from websockets.asyncio.client import connect

    events = await client.http.get(f"/agent/conversations/{client.conversation}/events?after=0", headers=client.headers)
    last = max((e["seq"] for e in events.json()["events"]), default=0)
    url = f"ws://127.0.0.1:{stack.port}/ws/agent/conversations/{client.conversation}/?after={last}"
    try:
        async with connect(url, origin=stack.url, additional_headers=client.headers, open_timeout=10) as socket:
            await client.turn("count", "Quantos funcionários estão cadastrados?", "answer")
            message = json.loads(await asyncio.wait_for(socket.recv(), 10))
    except (OSError, TimeoutError, ValueError, WebSocketException):
        return False
    return isinstance(message.get("seq"), int) and message["seq"] > last


def main() -> None:
    if connection.vendor != "postgresql" or not settings.REDIS_URL:
        sys.exit("served_turns needs DATABASE_URL=postgres://… and REDIS_URL=redis://…")
    from tests.execution.worker import purge_queues

    # From an empty queue, and leaving one: steps another run left queued for a world it deleted
    # would take this stack's worker (seen: 220 such steps failing through a served level at K=50).
    purge_queues()
    stack, made = Stack(), []
    stack.start()
    try:
        socket_ok = asyncio.run(_warm_up(stack, made))
        levels = [asyncio.run(_level(stack, k, made)) for k in LEVELS]
    finally:
        stack.stop()
        purge_queues()
        # After the levels, not between them: removing a tenant moves the registry's version (its own
        # capability rows go with it), and each served process would rebuild its registry snapshot and
        # grammar inside the next measured level — a cost no production load pays per level.
        for tenant in made:
            world_delete(tenant_id=tenant)
    top = levels[-1]
    emit(NAME, {"n": top["n"], "p50_ms": top["p50_ms"], "p95_ms": top["p95_ms"], "p99_ms": top["p99_ms"],
                "ratio": top["ratio"], "baseline": top["baseline"], "turns_per_s": top["turns_per_s"],
                "errors": sum(lv["errors"] for lv in levels),
                "overloaded_503": sum(lv["overloaded_503"] for lv in levels),
                "lost_or_duplicated": sum(lv["lost_or_duplicated"] for lv in levels),
                "executing_replies": sum(lv["executing_replies"] for lv in levels),
                "websocket_events": socket_ok, "targets_met": targets_met({lv["clients"]: lv for lv in levels}),
                "servers": f"make serve: gunicorn, {os.cpu_count()} uvicorn workers (HTTP on "
                           f"{settings.HTTP_CONCURRENCY} threads each), 1 celery worker (-c 2), beat",
                "nproc": os.cpu_count(), "levels": levels, "run_id": uuid.uuid4().hex[:8]})


if __name__ == "__main__":
    main()
