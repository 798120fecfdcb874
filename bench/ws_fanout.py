"""Latency from an event's commit to its arrival at N websockets of one conversation (N = 1, 100, 500).

Real daphne processes (one per core, `WS_FANOUT_SERVERS`; the sockets are spread over them as a
load balancer would) (config.asgi, tenancy's auth stack, the conversation consumer) serves a
throw-away database `<DATABASE_URL name>_bench_wsfanout` (migrated here, dropped at the end) with
channels-redis on REDIS_URL. A child process (bench/_ws_clients.py) opens N real websocket clients (autobahn's asyncio
client: it ships with daphne, so no new dependency) authenticated by a token; this one appends events with
`events.services.event_append` one at a time. The clock starts in an on_commit callback registered
before event_append's own (callbacks run in order: commit → our stamp → publish) and stops when a
client's frame has arrived (time.monotonic, one clock for both processes on Linux); every
(event, socket) pair is one sample. The next event is
appended when all N sockets have the previous one.

Baseline, same run, N = 500: the channel layer alone — a `group_send` of the same kind of message to
the same group, straight from this process (no database, no commit), relayed by the same consumers.
`ratio` = our p95 ÷ that p95 at N = 500. daphne runs with the project settings.
Clients and server share this machine (`nproc` cores), so the
figures include the clients' own parsing of N frames.

    DATABASE_URL=postgres://… REDIS_URL=redis://… .venv/bin/python bench/ws_fanout.py
"""

from __future__ import annotations

import io
import json
import os
import queue
import subprocess
import sys
import threading
import time
import uuid
from urllib.parse import urlparse

from _common import ROOT, emit, ratio, recreate_database, summarize, throwaway_database

NAME = "ws_fanout"
SIZES = tuple(int(n) for n in os.environ.get("WS_FANOUT_SIZES", "1,100,500").split(","))
EVENTS = {1: 200, 100: 60, 500: 40}  # per N; other N (WS_FANOUT_SIZES) get 40
WARMUP_EVENTS = 5
BASELINE_EVENTS = 40
EXPECT_TIMEOUT_S = 60.0
SERVERS = int(os.environ.get("WS_FANOUT_SERVERS", os.cpu_count() or 1))






class Fleet:
    """N sockets spread over the servers (one bench/_ws_clients.py process per server), as a load balancer would."""

    def __init__(self, *, ports: list[int], conversation_id: str, token: str, count: int, after: int) -> None:
        shares = [count // len(ports) + (1 if i < count % len(ports) else 0) for i in range(len(ports))]
        self.parts = [Clients(port=port, conversation_id=conversation_id, token=token, count=share, after=after)
                      for port, share in zip(ports, shares, strict=True) if share]

    def expect(self, line: str) -> None:
        for part in self.parts:
            part.expect(line)

    def arrivals(self) -> dict[int, list[float]]:
        merged: dict[int, list[float]] = {}
        for part in self.parts:
            for seq, times in part.arrivals().items():
                merged.setdefault(seq, []).extend(times)
        return merged


class Clients:
    """One bench/_ws_clients.py process holding N open sockets."""

    started: list[Clients] = []

    def __init__(self, *, port: int, conversation_id: str, token: str, count: int, after: int) -> None:
        self.count, self.port = count, port
        self.process = subprocess.Popen(
            [sys.executable, str(ROOT / "bench" / "_ws_clients.py"), str(port), conversation_id, token, str(count),
             str(after)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        Clients.started.append(self)
        self.expect("ready")

    def _read(self) -> None:
        for got in self.process.stdout:
            self.lines.put(got)
        self.lines.put("")

    def _next(self, timeout_s: float) -> str:
        try:
            return self.lines.get(timeout=timeout_s)
        except queue.Empty:
            raise RuntimeError(f"nothing from the websocket clients within {timeout_s:.0f} s") from None

    def expect(self, line: str, timeout_s: float = EXPECT_TIMEOUT_S) -> None:
        """Wait for `line`; a frame that never arrives, or a socket the server closed, fails the run
        instead of hanging it, saying how many sockets had the event."""
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                got = self._next(max(0.1, deadline - time.monotonic()))
            except RuntimeError as exc:
                raise RuntimeError(f"{exc} ({line!r} expected{self._reached(line)})") from None
            if not got:
                raise RuntimeError("the websocket clients exited")
            if got.startswith("closed "):
                raise RuntimeError(f"the server closed a websocket: {got.strip()}")
            if got.strip() == line:
                return

    def _reached(self, line: str) -> str:
        if not line.startswith("done "):
            return ""
        seq = line.split()[1]
        self.process.stdin.write(f"count {seq}\n")
        self.process.stdin.flush()
        while (answer := self._next(5)) and not answer.startswith("count "):
            pass
        return f"; {answer.split()[-1]} of {self.count} sockets on port {self.port} have seq {seq}" if answer else ""

    def arrivals(self) -> dict[int, list[float]]:
        self.process.stdin.write("dump\n")
        self.process.stdin.flush()
        data = json.loads(self._next(EXPECT_TIMEOUT_S))
        self.process.wait(timeout=30)
        return {int(seq): times for seq, times in data.items()}


def append_event(tenant, conversation_id, stamps: dict[int, float]) -> int:
    from django.db import transaction

    from events.services import event_append

    holder: dict[str, int] = {}
    with transaction.atomic():
        # Registered before event_append's publish, so it runs first, right after the commit.
        transaction.on_commit(lambda: stamps.__setitem__(holder["seq"], time.monotonic()))
        event = event_append(tenant=tenant, conversation_id=conversation_id, type="EXECUTION_PROGRESS",
                             actor="agent", state_version=0, payload={
                                 "execution_id": str(uuid.UUID(int=1)), "step_id": "s", "capability": "bench",
                                 "label": {"pt-BR": "Medindo…", "en": "Measuring…"}, "status": "completed",
                                 "done": 1, "total": 1})
        holder["seq"] = event.seq
    return event.seq


def latencies(clients: Fleet, stamps: dict[int, float], measured: list[int]) -> list[float]:
    arrivals = clients.arrivals()
    return [(t - stamps[seq]) * 1000 for seq in measured for t in arrivals[seq]]


def measure(ports: list[int], tenant, conversation, token: str, last_seq: int) -> tuple[dict, int]:
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    from events.selectors import events_after, group_name

    stamps: dict[int, float] = {}
    by_n: dict[str, dict] = {}
    for size in SIZES:
        clients = Fleet(ports=ports, conversation_id=str(conversation.pk), token=token, count=size, after=last_seq)
        measured = []
        for i in range(WARMUP_EVENTS + EVENTS.get(size, 40)):
            last_seq = append_event(tenant, conversation.pk, stamps)
            clients.expect(f"done {last_seq}")
            if i >= WARMUP_EVENTS:
                measured.append(last_seq)
        if size != SIZES[-1]:
            by_n[str(size)] = summarize(latencies(clients, stamps, measured))
    # Baseline on the same N sockets: the channel layer alone, no database, no commit.
    template = events_after(tenant=tenant, conversation_id=conversation.pk, after_seq=0, limit=1)[0]
    group = group_name(tenant_id=tenant.pk, conversation_id=conversation.pk)
    layer = get_channel_layer()
    baseline_seqs = []
    for i in range(WARMUP_EVENTS + BASELINE_EVENTS):
        seq = last_seq + 1 + i
        stamps[seq] = time.monotonic()
        async_to_sync(layer.group_send)(group, {"type": "conversation.event",
                                                "event": {**template, "id": str(uuid.uuid4()), "seq": seq}})
        clients.expect(f"done {seq}")
        if i >= WARMUP_EVENTS:
            baseline_seqs.append(seq)
    arrivals = clients.arrivals()
    ours = [(t - stamps[s]) * 1000 for s in measured for t in arrivals[s]]
    base = [(t - stamps[s]) * 1000 for s in baseline_seqs for t in arrivals[s]]
    by_n[str(SIZES[-1])] = summarize(ours)
    return {"by_n": by_n, "baseline": summarize(base)}, last_seq


def main() -> None:
    admin_url, bench_url = throwaway_database("bench_wsfanout", "daphne + channels-redis")
    bench_name = urlparse(bench_url).path.strip("/")
    recreate_database(admin_url, bench_name, create=True)
    os.environ["DATABASE_URL"] = bench_url
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connections

    call_command("migrate", verbosity=0, stdout=io.StringIO())
    from django.contrib.auth import get_user_model

    from conversations.services import conversation_create
    from tenancy.models import Role
    from tenancy.services import access_token_issue, membership_grant, tenant_create
    from tests.browser.servers import AsgiServer

    tenant = tenant_create(slug="bench-wsfanout", name="Bench")
    user = get_user_model().objects.create_user(username="bench-ws", password="x" * 12)
    membership_grant(user=user, tenant=tenant, role=Role.OPERATOR)
    conversation = conversation_create(tenant=tenant, user=user)
    token = access_token_issue(user=user, tenant=tenant)
    # One ASGI process per core behind a (simulated) load balancer: how ARCHITECTURE.md scales servers.
    servers = [AsgiServer() for _ in range(SERVERS)]
    try:
        for server in servers:
            server.start(DJANGO_SETTINGS_MODULE="config.settings")
        measured, _ = measure([server.port for server in servers], tenant, conversation, token, 0)
        top = measured["by_n"][str(SIZES[-1])]
        result = {**top, **measured, "ratio": ratio(top, measured["baseline"], "p95_ms"), "sockets": SIZES[-1],
                  "servers": SERVERS, "target_p95_ms": 250}
    finally:
        for clients in Clients.started:
            if clients.process.poll() is None:
                clients.process.kill()
        for server in servers:
            server.stop()
        connections.close_all()
        recreate_database(admin_url, bench_name, create=False)
    emit(NAME, result)


if __name__ == "__main__":
    main()
