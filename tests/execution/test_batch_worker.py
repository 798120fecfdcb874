"""The 100-permit batch's runtime behaviour on real Celery worker processes and Redis (PRD-034 §105-§109).

Faults come from the SST fault injector (shared by every process through the database)."""

from __future__ import annotations

import time
import uuid

import pytest
from django.contrib.auth.models import Permission

from execution.control import lanes_clear
from execution.models import BatchItem, RuntimeAdaptation, RuntimeExecution, TimelineEntry
from execution.services import execution_start
from execution.watchdog import runtime_watchdog
from policy.services import kill_switch_set
from sst.faults import fault_add
from sst.models import FaultRule, PermitEvaluation

from .batch_helpers import batch_plan, duplicate_effects, make_batch_world
from .helpers import wait_settled

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _lanes(registry, tenant):
    lanes_clear(tenant.pk)
    yield
    lanes_clear(tenant.pk)


def _start(tenant, operator, n):
    ids = make_batch_world(tenant, n)
    plan, receipt = batch_plan(tenant=tenant, actor=operator, ids=ids)
    return ids, execution_start(plan=plan, receipt_id=receipt.pk, actor=operator, tenant=tenant)


def _adaptations(execution, **filters):
    return list(RuntimeAdaptation.objects.for_tenant(execution.tenant_id).filter(execution=execution, **filters)
                .order_by("id"))


def _wait(predicate, timeout_s=30.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("condition not reached")


def test_a_compliance_latency_spike_shrinks_the_lane_switches_to_the_registered_secondary_and_recovers(
        worker, tenant, operator):
    # 50 ms → 2 s on the primary compliance source for its next 10 calls, then back to normal.
    fault_add(tenant=tenant, route="sst:permit-compliance", latency_ms=2000, times=10)
    _, execution = _start(tenant, operator, 30)
    execution = wait_settled(execution, timeout_s=60)
    assert execution.status == "completed", execution.error
    lane = "workPermit.checkCompliance@compliance-api"
    cuts = _adaptations(execution, lane=lane, kind="CONCURRENCY")
    assert any(a.new < a.old and a.reason == "TIMEOUTS" for a in cuts)
    assert any(a.new < a.old for a in _adaptations(execution, lane=lane, kind="BATCH"))
    switched = _adaptations(execution, kind="RESOURCE")
    assert switched and switched[0].new == "compliance-api-secondary"  # registered fallback only
    sources = set(BatchItem.objects.for_tenant(tenant).filter(execution=execution, step_id="compliance")
                  .values_list("resource", flat=True))
    assert "compliance-api-secondary" in sources
    assert all(a.new <= 5 for a in cuts)  # the hard maximum of the envelope
    assert PermitEvaluation.objects.for_tenant(tenant).count() == 30 and duplicate_effects(tenant) == 0
    entries = set(TimelineEntry.objects.for_tenant(tenant).filter(execution=execution).values_list("type", flat=True))
    assert {"EXECUTION_THROTTLED", "RESOURCE_SWITCHED", "CIRCUIT_OPENED"} <= entries


def test_a_429_storm_opens_the_breaker_and_the_primary_gets_no_call_storm(worker, tenant, operator):
    fault_add(tenant=tenant, route="sst:permit-compliance", status=429, times=1000)
    _, execution = _start(tenant, operator, 30)
    execution = wait_settled(execution, timeout_s=60)
    calls_to_primary = 1000 - FaultRule.objects.for_tenant(tenant).get().times
    # The breaker opened after a handful of 429s; the rest went to the registered secondary.
    assert calls_to_primary < 15, calls_to_primary
    assert execution.status == "completed"
    assert _adaptations(execution, kind="BREAKER", new="OPEN")
    assert PermitEvaluation.objects.for_tenant(tenant).count() == 30


def test_a_worker_killed_mid_batch_is_resumed_by_another_without_duplicate_effects(worker, tenant, operator):
    # Every training check takes 150 ms and is counted by the fault rule (times goes down per call).
    counter = fault_add(tenant=tenant, route="sst:permit-training", latency_ms=150, times=10_000)
    _, execution = _start(tenant, operator, 30)
    _wait(lambda: BatchItem.objects.for_tenant(tenant).filter(execution=execution, step_id="training",
                                                              status="completed").count() >= 5)
    done_before = dict(BatchItem.objects.for_tenant(tenant).filter(execution=execution, status="completed")
                       .values_list("pk", "finished_at"))
    worker.restart()  # SIGKILL of the whole worker (pool included), then a fresh one
    # 120 s, not 60: on a loaded CI machine the fresh worker's boot plus the heartbeat timeout plus 30
    # items at 150 ms once took longer than a minute (CI, 2026-12-02).
    deadline = time.monotonic() + 120
    while execution.finished_at is None and time.monotonic() < deadline:
        runtime_watchdog()  # the beat's job: a runtime without heartbeat is STALLED and recovered
        time.sleep(0.2)
        execution.refresh_from_db()
    assert execution.status == "completed", _stuck(execution)
    assert PermitEvaluation.objects.for_tenant(tenant).count() == 30
    assert duplicate_effects(tenant) == 0
    assert (BatchItem.objects.for_tenant(tenant).filter(execution=execution, step_id="decision", status="completed")
            .count()) == 30
    # Items completed before the kill were not run again (same single attempt, same finish time).
    after = dict(BatchItem.objects.for_tenant(tenant).filter(pk__in=done_before).values_list("pk", "finished_at"))
    assert after == done_before
    attempts = BatchItem.objects.for_tenant(tenant).filter(pk__in=done_before).values_list("attempts", flat=True)
    assert set(attempts) == {1}
    assert 10_000 - FaultRule.objects.for_tenant(tenant).get(pk=counter.pk).times >= 30


def _stuck(execution):
    """What a stuck resume looked like, for the failure message."""
    from collections import Counter

    from execution.models import StepRun

    items = Counter(BatchItem.objects.for_tenant(execution.tenant_id).filter(execution=execution)
                    .values_list("step_id", "status"))
    steps = list(StepRun.objects.for_tenant(execution.tenant_id).filter(execution=execution)
                 .values_list("step_id", "status"))
    runtime = RuntimeExecution.objects.for_tenant(execution.tenant_id).filter(execution=execution).first()
    return {"error": execution.error, "items": dict(items), "steps": steps,
            "runtime": runtime and (runtime.status, str(runtime.last_heartbeat_at))}


def test_global_stop_mid_batch_terminates_and_starts_no_new_call(worker, tenant, operator, admin_user):
    admin_user.user_permissions.add(Permission.objects.get(codename="runtime_admin", content_type__app_label="policy"))
    fault_add(tenant=tenant, route="sst:permit-training", latency_ms=100)
    _, execution = _start(tenant, operator, 40)
    _wait(lambda: BatchItem.objects.for_tenant(tenant).filter(execution=execution, step_id="training",
                                                              status="completed").count() >= 5)
    from django.contrib.auth import get_user_model

    admin = get_user_model().objects.get(pk=admin_user.pk)
    switch = kill_switch_set(actor=admin, scope="GLOBAL", reason="incident drill")
    try:
        execution = wait_settled(execution, timeout_s=30)
        finished = BatchItem.objects.for_tenant(tenant).filter(execution=execution, finished_at__gt=switch.set_at)
        # Only calls already in flight when the switch was raised may finish; nothing new starts.
        assert finished.count() <= 20 + 10 + 5
        assert not BatchItem.objects.for_tenant(tenant).filter(execution=execution, step_id="decision",
                                                                status="completed").exists()
        runtime = RuntimeExecution.objects.for_tenant(tenant).get(execution=execution)
        assert runtime.status == "TERMINATED" and execution.status == "failed"
        before = list(BatchItem.objects.for_tenant(tenant).filter(execution=execution).values_list("status", "pk"))
        time.sleep(1.0)
        assert list(BatchItem.objects.for_tenant(tenant).filter(execution=execution)
                    .values_list("status", "pk")) == before
    finally:
        from policy.services import kill_switch_lift

        kill_switch_lift(actor=admin, switch_id=switch.pk, reason="drill over")


def _statuses(execution):
    return list(BatchItem.objects.for_tenant(execution.tenant_id).filter(execution=execution)
                .order_by("pk").values_list("pk", "status", "finished_at"))


def test_a_supervisor_pauses_mid_batch_nothing_new_starts_the_workers_are_freed_and_resume_finishes_it(
        worker, tenant, operator, supervisor):
    from execution.models import StepRun
    from execution.runtime_control import runtime_pause, runtime_resume
    from execution.tasks import ping_task

    fault_add(tenant=tenant, route="sst:permit-training", latency_ms=400, times=10_000)
    _, execution = _start(tenant, operator, 60)
    _wait(lambda: BatchItem.objects.for_tenant(tenant).filter(execution=execution, step_id="training",
                                                              status="completed").count() >= 5)
    runtime_pause(execution_id=execution.pk, tenant=tenant, actor=supervisor, reason="drill")
    steps = StepRun.objects.for_tenant(tenant).filter(execution=execution)
    _wait(lambda: not steps.filter(status="running").exists())  # in-flight items finish, then the steps park
    assert (steps.get(step_id="training").status, steps.get(step_id="training").error["code"]) == (
        "dispatched", "PAUSED")
    assert steps.get(step_id="decision").status == "pending"
    frozen = _statuses(execution)
    done_before = {pk: at for pk, status, at in frozen if status == "completed"}
    training_done = BatchItem.objects.for_tenant(tenant).filter(execution=execution, step_id="training",
                                                                status="completed").count()
    assert len(done_before) >= 5 and training_done < 60  # paused mid-batch
    # Parked steps hold no worker: a task sent now runs at once.
    assert ping_task.apply_async((11,), queue="execution").get(timeout=10) == 11
    time.sleep(1.5)
    assert _statuses(execution) == frozen  # no item started or finished while paused

    runtime_resume(execution_id=execution.pk, tenant=tenant, actor=supervisor)
    execution = wait_settled(execution, timeout_s=90)
    assert execution.status == "completed", execution.error
    assert PermitEvaluation.objects.for_tenant(tenant).count() == 60 and duplicate_effects(tenant) == 0
    after = dict(BatchItem.objects.for_tenant(tenant).filter(pk__in=done_before).values_list("pk", "finished_at"))
    assert after == done_before  # completed before the pause, never run again
    kinds = set(TimelineEntry.objects.for_tenant(tenant).filter(execution=execution).values_list("type", flat=True))
    assert {"EXECUTION_PAUSED", "EXECUTION_RESUMED"} <= kinds


def test_losing_both_compliance_sources_for_some_permits_replans_in_place_and_decides_the_rest(
        worker, tenant, operator):
    from execution.models import RuntimeReplan
    from sst.models import WorkPermit

    # 50 failing permits: more than the breakers' half-open probes can use up before the replan is due.
    ids = make_batch_world(tenant, 60)
    failing = WorkPermit.objects.for_tenant(tenant).filter(pk__in=ids[10:]).values_list("number", flat=True)
    for number in failing:
        for route in ("sst:permit-compliance", "sst:permit-compliance-secondary"):
            fault_add(tenant=tenant, route=route, status=503, match={"permit": number})
    plan, receipt = batch_plan(tenant=tenant, actor=operator, ids=ids, conversation_id=uuid.uuid4())
    execution = execution_start(plan=plan, receipt_id=receipt.pk, actor=operator, tenant=tenant)
    # RUNTIME_REPLAN_AFTER_SECONDS keeps its default (10 s) in the worker: the wait comes first (§57).
    execution = wait_settled(execution, timeout_s=120)
    assert (execution.status, execution.needs_review) == ("partially_completed", False), execution.error
    replan = RuntimeReplan.objects.for_tenant(tenant).get(execution=execution)
    assert (replan.outcome, replan.impact["requires_reapproval"]) == ("CONTINUED", False)
    evaluated = set(PermitEvaluation.objects.for_tenant(tenant).values_list("permit_id", flat=True))
    assert set(ids[:10]) <= evaluated and not evaluated & set(replan.deferred.get("compliance", []))
    assert duplicate_effects(tenant) == 0
