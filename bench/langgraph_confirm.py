"""Our confirm turn against the same confirm-after-interrupt flow built with LangGraph + PostgresSaver.

Measured (`p50_ms`/`p95_ms`/`p99_ms`): the same call as bench/turn_latency.py —
`conversations.services.conversation_turn(text="sim")` server-side on a conversation holding a
pending soft confirmation (row lock + version, confirmation consumed, policy re-evaluated on live
state, ALLOW receipt + audit, plan start, execution, step and timeline rows, events, turn record,
first step committed as DISPATCHED, its broker message sent by the sender thread right after the
commit — `until_enqueued` adds the wait for it to be in Redis, and `ratio_until_enqueued` compares
that with the peer, whose LPUSH is inside its timed call). Each iteration first prepares the
pending confirmation with an untimed "mude a validade para N dias" and waits for that turn's
background work (event publication, log line) before the timed call.

`baseline`: bench/peers/langgraph_flow.py — a LangGraph graph that prepares a plan, `interrupt()`s
for confirmation and, resumed with "sim", keeps the same records our turn keeps with the same
statement economy ("equivalent", two statements: conversation + stream lock with the pending
confirmation, its plan and the live policy state, then the decision; receipt + audit + checked plan
start + execution + steps + timeline + events + turn record + versioned conversation update in one
statement; commit; LPUSH); the timed call is
`graph.invoke(Command(resume="sim"))` with `PostgresSaver` on the same PostgreSQL server (its own
database, `<name>_langgraph`, so its tables stay out of ours), durability "async" (LangGraph's
default). `baseline_minimal`: the same graph whose node writes only a decision row and an
execution row — LangGraph's floor. `baseline_sync`: equivalent work, durability "sync".
`ratio` = ours ÷ baseline (p50); `ratio_p95` likewise; `ratio_minimal` = ours ÷ baseline_minimal.

Both sides alternate in rounds in one run (the machine is shared: drift hits both). LangGraph runs
in bench/.venv-langgraph (git-ignored), created here from PyPI with exact pins on first use.

    DATABASE_URL=postgres://… REDIS_URL=redis://… .venv/bin/python bench/langgraph_confirm.py
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

from _common import ROOT, background_settle, django_setup, emit, enqueued_after, ratio, summarize, time_calls

django_setup()

import psycopg  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402

from config.celery import app as celery_app  # noqa: E402
from conversations.services import conversation_create, conversation_turn  # noqa: E402
from demo.seeding.registry import seed  # noqa: E402
from registry.selectors import snapshot_clear  # noqa: E402
from sst import services as sst  # noqa: E402
from tenancy.models import Role  # noqa: E402
from tenancy.services import membership_grant, tenant_create  # noqa: E402

NAME = "langgraph_confirm"
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
PER_ROUND = int(os.environ.get("BENCH_N", "200")) // ROUNDS
WARMUP = 20
SYNC_N = 100
VENV = ROOT / "bench" / ".venv-langgraph"
PEER = ROOT / "bench" / "peers" / "langgraph_flow.py"
# Exact pins: a new LangGraph release must not move the baseline between runs unnoticed.
PEER_REQUIREMENTS = ["langgraph==1.2.24", "langgraph-checkpoint-postgres==3.2.0", "langgraph-checkpoint==4.3.2",
                     "psycopg[binary]==3.3.9", "psycopg-pool==3.3.3", "redis==8.1.0"]


def _peer_python() -> Path:
    """bench/.venv-langgraph/bin/python with PEER_REQUIREMENTS installed (a stamp file remembers which)."""
    python = VENV / "bin" / "python"
    stamp = VENV / f".installed-{hashlib.sha1(' '.join(PEER_REQUIREMENTS).encode()).hexdigest()[:12]}"
    if not stamp.exists():
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        *PEER_REQUIREMENTS], check=True, stdout=sys.stderr)
        for old in VENV.glob(".installed-*"):
            old.unlink()
        stamp.touch()
    return python


def _server_dsn(dbname: str) -> str:
    db = settings.DATABASES["default"]
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    host, port = db.get("HOST") or "localhost", db.get("PORT") or 5432
    return f"postgresql://{db.get('USER') or ''}{password}@{host}:{port}/{dbname}"


def _peer_database() -> str:
    name = f"{settings.DATABASES['default']['NAME']}_langgraph"
    with psycopg.connect(_server_dsn("postgres"), autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')
    return _server_dsn(name)


class Peer:
    """The LangGraph flow in its own interpreter, asked for rounds of timed resumes over a pipe."""

    def __init__(self) -> None:
        env = {"PATH": os.environ.get("PATH", ""), "DSN": _peer_database(), "REDIS_URL": settings.REDIS_URL,
               "LANGCHAIN_TRACING_V2": "false", "LANGSMITH_TRACING": "false"}
        self.process = subprocess.Popen([str(_peer_python()), str(PEER)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        assert json.loads(self._line())["ready"]

    def _line(self) -> str:
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the LangGraph peer exited ({self.process.wait()})")
        return line

    def round(self, n: int, durability: str = "async", work: str = "equivalent") -> list[float]:
        self.process.stdin.write(json.dumps({"round": n, "durability": durability, "work": work}) + "\n")
        self.process.stdin.flush()
        return json.loads(self._line())["samples"]

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=30)


class Ours:
    """Our confirm turn, exactly as bench/turn_latency.py measures it."""

    def __init__(self) -> None:
        tag = uuid.uuid4().hex[:8]
        self.tenant = tenant_create(slug=f"bench-lgc-{tag}", name="Bench LangGraph confirm")
        self.user = get_user_model().objects.create_user(username=f"bench-lgc-{tag}")
        membership_grant(user=self.user, tenant=self.tenant, role=Role.OPERATOR)
        company = sst.company_create(tenant=self.tenant, name="Bench Company")
        permit = sst.permit_create(tenant=self.tenant, company=company, number="9001", validity_days=10)
        self.ui = {"selection": {"entityType": "workPermit", "entityId": str(permit.pk)}}
        self.count = 0
        self.enqueued: list[float] = []

    def round(self, n: int) -> list[float]:
        samples = []
        for _ in range(n):
            self.count += 1
            conversation = conversation_create(tenant=self.tenant, user=self.user)
            turn = conversation_turn(tenant=self.tenant, user=self.user, conversation_id=conversation.pk,
                                     text=f"mude a validade para {10 + self.count % 300} dias", ui_context=self.ui)
            assert turn["status"] == "CONFIRMATION_REQUIRED", turn["response"]
            background_settle()  # the untimed prepare's event publication and log line are done first

            def confirm(_: int, conversation_id=conversation.pk) -> None:
                done = conversation_turn(tenant=self.tenant, user=self.user, conversation_id=conversation_id,
                                         text="sim")
                assert done["status"] == "EXECUTING", done["response"]

            sample = time_calls(confirm, n=1)[0]
            samples.append(sample)
            self.enqueued.append(enqueued_after(sample))
        return samples


def main() -> None:
    if connection.vendor != "postgresql":
        sys.exit("langgraph_confirm needs DATABASE_URL=postgres://…")
    seed(stdout=io.StringIO())
    snapshot_clear()
    celery_app.conf.task_always_eager = False
    peer, ours = Peer(), Ours()
    samples: dict[str, list[float]] = {"ours": [], "equivalent": [], "minimal": []}
    runs = {"ours": ours.round, "equivalent": lambda n: peer.round(n, work="equivalent"),
            "minimal": lambda n: peer.round(n, work="minimal")}
    try:
        for run in runs.values():
            run(WARMUP)
        for index in range(ROUNDS):
            # Rotate who goes first so no side always runs on a warmer cache.
            order = list(runs)[index % 3:] + list(runs)[:index % 3]
            for side in order:
                samples[side].extend(runs[side](PER_ROUND))
        sync_samples = peer.round(SYNC_N, durability="sync", work="equivalent")
    finally:
        peer.close()
        celery_app.control.purge()
    mine, theirs, minimal = (summarize(samples[k]) for k in ("ours", "equivalent", "minimal"))
    emit(NAME, {**mine, "baseline": theirs, "ratio": ratio(mine, theirs), "ratio_p95": ratio(mine, theirs, "p95_ms"),
                "baseline_minimal": minimal, "ratio_minimal": ratio(mine, minimal),
                "baseline_sync": summarize(sync_samples), "peer": " ".join(PEER_REQUIREMENTS[:2]),
                "until_enqueued": summarize(ours.enqueued[WARMUP:]),
                "ratio_until_enqueued": ratio(summarize(ours.enqueued[WARMUP:]), theirs),
                "peer_work": "baseline: the same records as our turn (peers/langgraph_flow.py 'equivalent'); "
                             "baseline_minimal: two rows",
                "peer_durability": "async (default); baseline_sync: sync, equivalent work"})


if __name__ == "__main__":
    main()
