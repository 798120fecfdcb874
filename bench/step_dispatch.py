"""Per-step orchestration overhead on a real Celery worker vs a bare Celery round trip (same run).

What a step costs beyond the SST API itself: from the moment it is dispatched (its `dispatched_at`,
persisted before the task is sent) to its persisted result (`finished_at`), minus the time spent
inside the Tool Runtime's calls (`call_ms`: the fresh facts read and the capability call). That
includes the broker hop, the claim, policy revalidation (receipt + live checks, recorded), the
timeline rows and the advance that dispatches the next step. The baseline is a bare round trip of a
no-op task through the same broker and worker (`apply_async(...).get()`).

A worker continues a plan inline (execution/README.md): a chain's first step comes through the
broker, the next ones are claimed by the transaction that records the step before them. `inline`
and `brokered` split the samples by that (STEP_STARTED's `inline` flag); `ratio` is over all steps.

It builds a throw-away database `<DATABASE_URL name>_bench_dispatch` (migrated here, dropped at
the end), loads and approves the real manifest, starts one worker process (prefork, 2) on it, and
runs chains of sequential `workPermit.read` steps.

    DATABASE_URL=postgres://… REDIS_URL=redis://… .venv/bin/python bench/step_dispatch.py
"""

from __future__ import annotations

import time

from _common import emit, ratio, run_on_throwaway_database, summarize

NAME = "step_dispatch"
CHAINS, STEPS_PER_CHAIN, BASELINE_N, WARMUP = 20, 10, 200, 20


def main() -> None:
    emit(NAME, run_on_throwaway_database("bench_dispatch", "a real worker", measure, worker=True))


def measure() -> dict:
    from django.contrib.auth import get_user_model

    from execution.models import StepRun, TimelineEntry
    from execution.services import execution_start
    from execution.tasks import ping_task
    from planning.services import plan_from_steps
    from policy.services import decision_record
    from sst import services as sst
    from tenancy.models import Role
    from tenancy.services import membership_grant, tenant_create
    from tests.execution.helpers import facts_for, wait_settled
    from tests.registry_fixtures import activate_manifest

    activate_manifest()
    tenant = tenant_create(slug="bench-dispatch", name="Bench")
    user = get_user_model().objects.create_user(username="bench-operator", password="x" * 12)
    membership_grant(user=user, tenant=tenant, role=Role.OPERATOR)
    permit = sst.permit_create(tenant=tenant, company=sst.company_create(tenant=tenant, name="Alfa"), validity_days=9)

    def chain() -> list:
        steps = [{"id": f"r{i}", "capability": "workPermit.read", "input": {"permit_id": permit.pk},
                  "depends_on": [f"r{i - 1}"] if i else []} for i in range(STEPS_PER_CHAIN)]
        plan = plan_from_steps(tenant=tenant, actor=user, steps=steps, template="bench.chain")
        _, receipt = decision_record(actor=user, tenant=tenant, plan_id=plan.pk, plan_hash=plan.canonical_hash,
                                     steps=[s.as_policy_step() for s in plan.steps.all_tenants()],
                                     facts=facts_for(plan, tenant))
        execution = wait_settled(execution_start(plan=plan, receipt_id=receipt.pk, actor=user, tenant=tenant), 60)
        assert execution.status == "completed", execution.error
        inline = set(TimelineEntry.objects.for_tenant(tenant).filter(
            execution=execution, type="STEP_STARTED", data__inline=True).values_list("step_id", flat=True))
        return [(run, run.step_id in inline) for run in StepRun.objects.for_tenant(tenant).filter(execution=execution)]

    for _ in range(2):  # warm-up: imports, connections, snapshot, token
        chain()
    overhead, wall, calls, hop = [], [], [], []
    by_path: dict[bool, list[float]] = {True: [], False: []}
    started = time.perf_counter()
    for _ in range(CHAINS):
        for run, inline in chain():
            total_ms = (run.finished_at - run.dispatched_at).total_seconds() * 1000
            wall.append(total_ms)
            calls.append(run.call_ms)
            overhead.append(total_ms - run.call_ms)
            by_path[inline].append(total_ms - run.call_ms)
            hop.append((run.started_at - run.dispatched_at).total_seconds() * 1000)
    elapsed = time.perf_counter() - started
    for i in range(WARMUP):
        ping_task.apply_async((i,)).get(timeout=10)
    baseline = []
    for i in range(BASELINE_N):
        t0 = time.perf_counter_ns()
        ping_task.apply_async((i,)).get(timeout=10)
        baseline.append((time.perf_counter_ns() - t0) / 1e6)
    ours, base = summarize(overhead), summarize(baseline)
    return {**ours, "baseline": base, "ratio": ratio(ours, base), "overhead_p50_ms": ours["p50_ms"],
            "step_wall": summarize(wall), "sst_call": summarize(calls), "dispatch_to_claim": summarize(hop),
            "inline": summarize(by_path[True]) if by_path[True] else {"n": 0},
            "brokered": summarize(by_path[False]) if by_path[False] else {"n": 0},
            "steps_per_second": round(len(overhead) / elapsed, 2)}


if __name__ == "__main__":
    main()
