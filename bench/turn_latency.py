"""The full confirm turn ("sim"), server-side on PostgreSQL, against a bare transaction of the same shape.

Measured (`p50_ms`/`p95_ms`/`p99_ms`): `conversations.services.conversation_turn(text="sim")` on a
conversation with a pending soft confirmation — the row lock and version check, the confirmation
lookup and consumption, policy re-evaluation (live state read now; target facts as decided at
planning — the step re-reads them before its call) and the ALLOW receipt with its audit row, the
plan start, the execution, step and timeline records (the first step committed as DISPATCHED: the
outbox row that is the enqueue), the events and the turn record; the broker message itself is sent
right after the commit by the process's sender thread (execution.publish), so `until_enqueued`
reports the turn plus the wait until that message is in Redis (no worker consumes it here). Each
iteration first prepares the pending confirmation with an untimed "mude a validade para N dias"
and waits for that turn's background work (event publication, log line) before the timed call.

`baseline`: a bare psycopg transaction of the same shape on the same server in the same run —
lock a row, read it, update it with a version check, insert one event row (temp tables).
`ratio` = ours ÷ baseline (p50).

`llm_free_share`: the share of the shared scenario turns (/work/shared/scenarios or
$SCENARIOS_DIR) whose response reports `metrics.llm_calls == 0`, played in-process through the
scenario runner with a fake LLM endpoint configured (so an LLM call would be counted, not
skipped). Set BENCH_SKIP_SCENARIOS=1 to leave it out (then it is null).

It uses the database named by DATABASE_URL (rows it writes are kept: receipts and events are
append-only), seeds the registry idempotently, and purges the Celery queues it filled.

    DATABASE_URL=postgres://… REDIS_URL=redis://… .venv/bin/python bench/turn_latency.py
"""

from __future__ import annotations

import io
import os
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

NAME = "turn_latency"
N, WARMUP, BASELINE_N = int(os.environ.get("BENCH_N", "200")), 20, 1000


def _world():
    tag = uuid.uuid4().hex[:8]
    tenant = tenant_create(slug=f"bench-turn-{tag}", name="Bench turn")
    user = get_user_model().objects.create_user(username=f"bench-turn-{tag}")
    membership_grant(user=user, tenant=tenant, role=Role.OPERATOR)
    company = sst.company_create(tenant=tenant, name="Bench Company")
    permit = sst.permit_create(tenant=tenant, company=company, number="9001", validity_days=10)
    return tenant, user, permit


def _confirm_turns() -> tuple[list[float], list[float]]:
    tenant, user, permit = _world()
    ui = {"selection": {"entityType": "workPermit", "entityId": str(permit.pk)}}
    pending: dict[str, str] = {}

    def prepare(i: int) -> None:
        conversation = conversation_create(tenant=tenant, user=user)
        turn = conversation_turn(tenant=tenant, user=user, conversation_id=conversation.pk,
                                 # never the permit's own 10 days: that is answered "já está assim" at once
                                 text=f"mude a validade para {11 + i % 300} dias", ui_context=ui)
        assert turn["status"] == "CONFIRMATION_REQUIRED", turn["response"]
        pending["id"] = str(conversation.pk)

    def confirm(_: int) -> None:
        turn = conversation_turn(tenant=tenant, user=user, conversation_id=pending["id"], text="sim")
        assert turn["status"] == "EXECUTING", turn["response"]

    samples: list[float] = []
    enqueued: list[float] = []
    for i in range(N + WARMUP):
        prepare(i)
        background_settle()  # the untimed prepare's event publication and log line are done first
        sample = time_calls(confirm, n=1)[0]
        if i >= WARMUP:
            samples.append(sample)
            enqueued.append(enqueued_after(sample))
    return samples, enqueued


def _baseline() -> list[float]:
    with psycopg.connect(settings.DATABASES["default"]["NAME"] and _dsn(), autocommit=True) as conn:
        conn.execute("CREATE TEMP TABLE bench_conv (id uuid PRIMARY KEY, version bigint NOT NULL, status text, "
                     "context jsonb)")
        conn.execute("CREATE TEMP TABLE bench_event (id bigserial PRIMARY KEY, conversation uuid, seq bigint, "
                     "type text, payload jsonb, state_version bigint)")
        row_id = uuid.uuid4()
        conn.execute("INSERT INTO bench_conv VALUES (%s, 1, 'CONFIRMATION_REQUIRED', '{}')", (row_id,))

        def one(i: int) -> None:
            with conn.transaction():
                version, _status, _context = conn.execute(
                    "SELECT version, status, context FROM bench_conv WHERE id = %s FOR UPDATE", (row_id,)).fetchone()
                updated = conn.execute("UPDATE bench_conv SET version = version + 1, status = 'EXECUTING' "
                                       "WHERE id = %s AND version = %s", (row_id, version)).rowcount
                assert updated == 1
                conn.execute("INSERT INTO bench_event (conversation, seq, type, payload, state_version) "
                             "VALUES (%s, %s, 'CONFIRMATION_RECEIVED', '{}', %s)", (row_id, i, version + 1))

        return time_calls(one, n=BASELINE_N, warmup=100)


def _dsn() -> str:
    db = settings.DATABASES["default"]
    return (f"host={db.get('HOST') or 'localhost'} port={db.get('PORT') or 5432} dbname={db['NAME']} "
            f"user={db.get('USER') or ''} password={db.get('PASSWORD') or ''}")


def _llm_free_share() -> tuple[float | None, int]:
    if os.environ.get("BENCH_SKIP_SCENARIOS"):
        return None, 0
    folder = Path(os.environ.get("SCENARIOS_DIR", "/work/shared/scenarios"))
    if not folder.exists():
        return None, 0
    sys.path.insert(0, str(ROOT))
    from django.test import override_settings

    from demo.scenarios import transport as transport_module
    from demo.scenarios.client import ApiClient
    from demo.scenarios.runner import scenarios_run
    from tests.fakes.llm_server import FakeLLMServer

    counts = {"turns": 0, "free": 0}
    original = transport_module.InProcessTransport.request

    def counting(self, method, path, **kwargs):
        result = original(self, method, path, **kwargs)
        if method == "POST" and path.startswith("/agent/conversations/") and isinstance(result.body, dict) \
                and "metrics" in result.body:
            counts["turns"] += 1
            counts["free"] += int(result.body["metrics"].get("llm_calls") == 0)
        return result

    fake = FakeLLMServer().start()
    fake.content = '{"capability": null}'
    transport_module.InProcessTransport.request = counting
    try:
        with override_settings(LLM_BASE_URL=fake.url, LLM_API_KEY="bench", LLM_MODEL="fake"), \
                transport_module.in_process() as transport:
            scenarios_run([folder], ApiClient(transport), out=io.StringIO(), settle_seconds=10)
    finally:
        transport_module.InProcessTransport.request = original
        fake.stop()
    return (round(counts["free"] / counts["turns"], 4) if counts["turns"] else None), counts["turns"]


def main() -> None:
    if connection.vendor != "postgresql":
        sys.exit("turn_latency needs DATABASE_URL=postgres://…")
    seed(stdout=io.StringIO())
    snapshot_clear()
    celery_app.conf.task_always_eager = False
    try:
        turns, enqueued = _confirm_turns()
        ours = summarize(turns)
    finally:
        celery_app.control.purge()
    baseline = summarize(_baseline())
    share, turns = _llm_free_share()
    emit(NAME, {**ours, "baseline": baseline, "ratio": ratio(ours, baseline),
                "until_enqueued": summarize(enqueued), "llm_free_share": share,
                "llm_free_share_source": "shared scenarios, in-process runner, fake LLM configured",
                "scenario_turns": turns})


if __name__ == "__main__":
    main()
