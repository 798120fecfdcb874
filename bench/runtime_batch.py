"""The 100-permit batch evaluation (PRD-034 §110-§117) under an injected degradation, on a real worker.

Runs `workPermit.evaluateBatch` over 100 DRAFT permits (training, risk, compliance, decision) while
the primary compliance source answers in 2 s instead of ~50 ms for its next 15 calls (then
recovers), and reports: completion time, calls made, duplicate effects (PermitEvaluation rows beyond
one per permit — must be 0), peak concurrency per lane (the Redis slot sets' high-water marks),
how many adaptations were recorded, and the controller's own overhead per decision.

The overhead is the controller's work around one call — admit (breaker), read the lane, take and
give back a concurrency slot, record the observation with its compare-and-set — timed in this
process against the same Redis the workers use (n = 2000 after a warm-up). The baseline is one bare
Redis PING round trip in the same run. PRD-034 §92 asks for P50 < 5 ms / P95 < 20 ms; issue 8's
target is P50 < 1 ms / P95 < 5 ms.

Also reported, outside that number: `pause_check` — the per-item read of the runtime's status
(PostgreSQL) that lets a pause stop new items at once — and `queue_decision`, the priority rule
that picks a step's queue (pure, no I/O), each over n = 2000.

It builds a throw-away database `<DATABASE_URL name>_bench_runtime` (dropped at the end).

    DATABASE_URL=postgres://… REDIS_URL=redis://… .venv/bin/python bench/runtime_batch.py
"""

from __future__ import annotations

import time

from _common import emit, ratio, run_on_throwaway_database, summarize, time_calls

NAME = "runtime_batch"
PERMITS, DECISIONS, WARMUP = 100, 2000, 200






def main() -> None:
    emit(NAME, run_on_throwaway_database("bench_runtime", "a real worker", measure, worker=True))


def _batch(tenant, user) -> dict:
    from execution.control import Envelope, Lane, lanes_clear
    from execution.models import RuntimeAdaptation, StepRun
    from execution.services import execution_start
    from registry.selectors import registry_snapshot
    from sst.faults import fault_add
    from tests.execution.batch_helpers import batch_plan, duplicate_effects, make_batch_world
    from tests.execution.helpers import wait_settled

    lanes_clear(tenant.pk)
    ids = make_batch_world(tenant, PERMITS)
    fault_add(tenant=tenant, route="sst:permit-compliance", latency_ms=2000, times=15)
    plan, receipt = batch_plan(tenant=tenant, actor=user, ids=ids)
    started = time.perf_counter()
    execution = wait_settled(execution_start(plan=plan, receipt_id=receipt.pk, actor=user, tenant=tenant), 240)
    elapsed = time.perf_counter() - started
    snapshot = registry_snapshot()
    peaks = {}
    for capability in ("workPermit.checkTraining", "workPermit.assessRisk", "workPermit.checkCompliance",
                       "workPermit.recordDecision"):
        spec = snapshot.get(capability)
        for resource in (spec.resource.key, *spec.resource.fallbacks):
            peak = Lane(tenant.pk, capability, resource, Envelope.of(spec)).peak()
            if peak:
                peaks[f"{capability}@{resource}"] = peak
    adaptations = RuntimeAdaptation.objects.for_tenant(tenant).filter(execution=execution)
    calls = StepRun.objects.for_tenant(tenant).filter(execution=execution).values_list("calls", flat=True)
    return {"status": execution.status, "completion_s": round(elapsed, 3), "calls": sum(calls),
            "duplicate_effects": duplicate_effects(tenant), "peak_concurrency": peaks,
            "adaptations": adaptations.count(),
            "resource_switches": adaptations.filter(kind="RESOURCE").count()}


def _decisions(tenant) -> tuple[list[float], list[float]]:
    from execution.control import Envelope, Lane, lanes_clear, store
    from registry.selectors import registry_snapshot

    spec = registry_snapshot().get("workPermit.checkCompliance")
    lane = Lane(tenant.pk, spec.id, "bench-lane", Envelope.of(spec))
    lanes_clear(tenant.pk)

    def decision(i: int) -> None:
        lane.admit()
        token = lane.acquire(lease_s=5)
        lane.observe("ok" if i % 10 else "timeout", 40.0 + i % 7)
        if token:
            lane.release(token)

    for i in range(WARMUP):
        decision(i)
    samples = []
    for i in range(DECISIONS):
        t0 = time.perf_counter_ns()
        decision(i)
        samples.append((time.perf_counter_ns() - t0) / 1e6)
    client = store().client
    baseline = []
    for _ in range(DECISIONS):
        t0 = time.perf_counter_ns()
        client.ping()
        baseline.append((time.perf_counter_ns() - t0) / 1e6)
    lanes_clear(tenant.pk)
    return samples, baseline


def measure() -> dict:
    from django.contrib.auth import get_user_model

    from tenancy.models import Role
    from tenancy.services import membership_grant, tenant_create
    from tests.registry_fixtures import activate_manifest

    activate_manifest()
    tenant = tenant_create(slug="bench-runtime", name="Bench")
    user = get_user_model().objects.create_user(username="bench-operator", password="x" * 12)
    membership_grant(user=user, tenant=tenant, role=Role.OPERATOR)
    batch = _batch(tenant, user)
    samples, baseline = _decisions(tenant)
    ours, base = summarize(samples), summarize(baseline)
    return {**ours, "baseline": base, "ratio": ratio(ours, base), "overhead_p50_ms": ours["p50_ms"],
            "overhead_p95_ms": ours["p95_ms"], **batch, **_runtime_checks(tenant)}


def _runtime_checks(tenant) -> dict:
    from types import SimpleNamespace

    from django.utils import timezone

    from execution.batch import _held
    from execution.models import Execution
    from execution.priority import queue_for

    execution = Execution.objects.for_tenant(tenant).latest("started_at")
    ctx = SimpleNamespace(execution=execution)
    now = timezone.now()
    return {"pause_check": summarize(time_calls(lambda i: _held(ctx), n=DECISIONS, warmup=WARMUP)),
            "queue_decision": summarize(time_calls(lambda i: queue_for(execution, now), n=DECISIONS, warmup=WARMUP))}


if __name__ == "__main__":
    main()
