"""The orchestrator on real Celery worker processes and Redis (marked `worker`)."""

from __future__ import annotations

import time

import pytest
from django.contrib.auth.models import Permission

from execution.models import StepRun, TimelineEntry
from execution.services import execution_start
from planning.intents import StructuredIntent
from planning.services import plan_from_steps
from policy.services import kill_switch_set
from sst.faults import fault_add
from sst.models import WorkPermit

from .helpers import approve, make_world, permit_target, plan_and_approve, wait_settled

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def world(registry, tenant):
    return make_world(tenant)


def _runs(execution):
    return {r.step_id: r for r in StepRun.objects.for_tenant(execution.tenant_id).filter(execution=execution)}


def _entries(execution):
    return list(TimelineEntry.objects.for_tenant(execution.tenant_id).filter(execution=execution).order_by("id"))


def _at(entries, type_, step_id):
    return next(e.at for e in entries if e.type == type_ and e.step_id == step_id)


def _wait_for(execution, type_, step_id, timeout_s=15.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if TimelineEntry.objects.for_tenant(execution.tenant_id).filter(execution=execution, type=type_,
                                                                        step_id=step_id).exists():
            return
        time.sleep(0.02)
    raise AssertionError(f"no {type_} for {step_id}")


def test_clone_with_changes_reads_and_resolves_concurrently_then_runs_in_dependency_order(
        worker, world, tenant, operator):
    # Both independent steps spend 400 ms inside the SST API: if they ran one after the other, no overlap.
    fault_add(tenant=tenant, route="sst:permit-detail", method="GET", latency_ms=400, times=1)
    fault_add(tenant=tenant, route="sst:employee-detail", latency_ms=400, times=1)
    intent = StructuredIntent(name="workPermit.cloneWithChanges", targets={"permit": permit_target(world.permit)},
                              slots={"responsible": world.joao.pk, "validity_days": 30})
    plan, receipt = plan_and_approve(tenant=tenant, actor=operator, intent=intent)
    execution = wait_settled(execution_start(plan=plan, receipt_id=receipt.pk, actor=operator, tenant=tenant))
    assert execution.status == "completed", execution.error
    entries = _entries(execution)
    started, completed = (lambda s: _at(entries, "STEP_STARTED", s)), (lambda s: _at(entries, "STEP_COMPLETED", s))
    assert started("read") < completed("resolve") and started("resolve") < completed("read")  # overlap
    chain = ["create", "copy", "update_responsible", "update_validity", "verify"]
    assert started("create") > max(completed("read"), completed("resolve"))
    for before, after in zip(chain, chain[1:], strict=False):
        assert started(after) > completed(before)
    created = WorkPermit.objects.for_tenant(tenant).exclude(pk=world.permit.pk).get()
    assert (created.responsible_id, created.validity_days, created.components.count()) == (world.joao.pk, 30, 2)


def test_two_503s_then_success_is_one_effect_and_a_500_is_never_retried(worker, world, tenant, operator):
    fault_add(tenant=tenant, route="sst:permit-validity", status=503, times=2)
    intent = StructuredIntent(name="workPermit.updateValidity", slots={"validity_days": 40},
                              targets={"permit": permit_target(world.permit)})
    revision = world.permit.revision
    plan, receipt = plan_and_approve(tenant=tenant, actor=operator, intent=intent)
    execution = wait_settled(execution_start(plan=plan, receipt_id=receipt.pk, actor=operator, tenant=tenant))
    world.permit.refresh_from_db()
    assert (execution.status, _runs(execution)["s1"].attempts) == ("completed", 3)
    assert (world.permit.validity_days, world.permit.revision) == (40, revision + 1)

    fault_add(tenant=tenant, route="sst:permit-validity", status=500, times=1)
    intent = StructuredIntent(name="workPermit.updateValidity", slots={"validity_days": 50},
                              targets={"permit": permit_target(world.permit)})
    plan, receipt = plan_and_approve(tenant=tenant, actor=operator, intent=intent)
    execution = wait_settled(execution_start(plan=plan, receipt_id=receipt.pk, actor=operator, tenant=tenant))
    assert (execution.status, _runs(execution)["s1"].attempts) == ("failed", 1)
    assert not any(e.type == "RETRY_SCHEDULED" for e in _entries(execution))


def test_failure_after_create_is_compensated_and_one_422_of_n_is_partial(worker, world, tenant, supervisor):
    fault_add(tenant=tenant, route="sst:permit-validity", status=500, times=1)
    intent = StructuredIntent(name="workPermit.cloneWithChanges", targets={"permit": permit_target(world.permit)},
                              slots={"responsible": world.joao.pk, "validity_days": 30})
    plan, receipt = plan_and_approve(tenant=tenant, actor=supervisor, intent=intent)
    execution = wait_settled(execution_start(plan=plan, receipt_id=receipt.pk, actor=supervisor, tenant=tenant))
    assert execution.status == "compensated"
    assert list(WorkPermit.objects.for_tenant(tenant).values_list("pk", flat=True)) == [world.permit.pk]

    fault_add(tenant=tenant, route="sst:permit-components", status=422, match={"component": "electricity"})
    intent = StructuredIntent(name="workPermit.components.addMany", targets={"permit": permit_target(world.permit)},
                              slots={"components": ["confinedSpace", "electricity", "excavation"]})
    plan, receipt = plan_and_approve(tenant=tenant, actor=supervisor, intent=intent)
    execution = wait_settled(execution_start(plan=plan, receipt_id=receipt.pk, actor=supervisor, tenant=tenant))
    assert execution.status == "partially_completed"
    assert world.permit.components.count() == 4


def _wait_until(predicate, timeout_s=15.0):
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _chain(world, keys):
    steps = []
    for index, key in enumerate(keys):
        steps.append({"id": f"add{index + 1}", "capability": "workPermit.components.add",
                      "input": {"permit_id": world.permit.pk, "component": key},
                      "depends_on": [f"add{index}"] if index else []})
    return steps


def test_a_worker_killed_mid_plan_is_resumed_by_another_with_exactly_one_effect_per_step(
        worker, world, tenant, operator):
    from sst import services as sst

    sst.component_type_create(tenant=tenant, key="scaffolding", name="Andaime")
    keys = ["confinedSpace", "electricity", "excavation", "loadLifting", "scaffolding"]
    revision = world.permit.revision
    # Step 3 is slow inside the API (before the API claims the idempotency key): the kill lands mid-call.
    fault_add(tenant=tenant, route="sst:permit-components", latency_ms=2500, times=1, match={"component": "excavation"})
    plan = plan_from_steps(tenant=tenant, actor=operator, steps=_chain(world, keys), template="test.chain")
    receipt = approve(plan, actor=operator, tenant=tenant)
    execution = execution_start(plan=plan, receipt_id=receipt.pk, actor=operator, tenant=tenant)
    _wait_for(execution, "STEP_COMPLETED", "add2")
    _wait_for(execution, "STEP_STARTED", "add3")
    time.sleep(0.3)
    worker.restart()  # SIGKILL to the whole worker, then a new worker process
    execution = wait_settled(execution, timeout_s=30)
    runs = _runs(execution)
    world.permit.refresh_from_db()
    assert execution.status == "completed", execution.error
    assert [runs[f"add{i}"].attempts for i in range(1, 6)] == [1, 1, 2, 1, 1]
    # Counted on the SST side: every component once, and exactly five writes on the permit.
    assert sorted(world.permit.components.values_list("component_type__key", flat=True)) == sorted(
        ["workingAtHeight", "hotWork", *keys])
    assert world.permit.revision == revision + 5


def test_a_worker_killed_in_a_step_it_continued_inline_leaves_it_to_the_redelivered_task_one_effect_each(
        worker, world, tenant, operator):
    keys = ["confinedSpace", "electricity", "excavation", "loadLifting"]
    revision = world.permit.revision
    # add2 follows add1 in the same task (no message of its own) and is slow inside the API: the kill lands there.
    fault_add(tenant=tenant, route="sst:permit-components", latency_ms=2500, times=1,
              match={"component": "electricity"})
    plan = plan_from_steps(tenant=tenant, actor=operator, steps=_chain(world, keys), template="test.chain")
    execution = execution_start(plan=plan, receipt_id=approve(plan, actor=operator, tenant=tenant).pk, actor=operator,
                                tenant=tenant)
    _wait_for(execution, "STEP_STARTED", "add2")
    started = TimelineEntry.objects.for_tenant(tenant).get(execution=execution, type="STEP_STARTED", step_id="add2")
    assert started.data == {"attempt": 1, "inline": True}, "add2 must be the inline continuation of add1"
    time.sleep(0.3)
    worker.restart()  # SIGKILL: add1's message, never acknowledged, comes back to the new worker
    execution = wait_settled(execution, timeout_s=30)
    runs = _runs(execution)
    world.permit.refresh_from_db()
    assert execution.status == "completed", execution.error
    assert [runs[f"add{i}"].attempts for i in range(1, 5)] == [1, 2, 1, 1]
    assert [e.data for e in _entries(execution) if e.type == "STEP_STARTED" and e.step_id == "add2"] == [
        {"attempt": 1, "inline": True}, {"attempt": 2}]
    # Counted on the SST side: every component once, and exactly four writes on the permit.
    assert sorted(world.permit.components.values_list("component_type__key", flat=True)) == sorted(
        ["workingAtHeight", "hotWork", *keys])
    assert world.permit.revision == revision + 4


def test_a_kill_switch_raised_mid_plan_stops_before_the_next_step(worker, world, tenant, operator, admin_user):
    admin_user.user_permissions.add(Permission.objects.get(codename="runtime_admin", content_type__app_label="policy"))
    admin = type(admin_user).objects.get(pk=admin_user.pk)
    fault = fault_add(tenant=tenant, route="sst:permit-components", latency_ms=800, times=1,
                      match={"component": "electricity"})
    plan = plan_from_steps(tenant=tenant, actor=operator, template="test.chain",
                           steps=_chain(world, ["electricity", "excavation", "loadLifting"]))
    receipt = approve(plan, actor=operator, tenant=tenant)
    execution = execution_start(plan=plan, receipt_id=receipt.pk, actor=operator, tenant=tenant)
    _wait_until(lambda: type(fault).objects.for_tenant(tenant).get(pk=fault.pk).times == 0)  # add1 is in its call
    kill_switch_set(actor=admin, scope="TENANT", tenant=tenant, reason="incident")
    execution = wait_settled(execution)
    runs = _runs(execution)
    assert (runs["add1"].status, runs["add2"].status, runs["add2"].error["code"], runs["add3"].status) == (
        "completed", "failed", "KILL_SWITCH", "skipped")
    assert runs["add2"].calls == 1  # the facts read; the write itself was never called
    assert set(world.permit.components.values_list("component_type__key", flat=True)) == {
        "workingAtHeight", "hotWork", "electricity"}
