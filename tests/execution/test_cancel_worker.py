"""Cancelling a running execution on real Celery worker processes (issue 19 point 2, marked `worker`).

The plan keeps the session worker's two processes busy inside the SST API (latency faults), so a
cancel finds each kind of step at once:

    a0 (fast) → a1 (slow, continued inline after a0)     a2 (slow)     a3 (sent, not claimed)
                └→ a4 (pending: waits for a1)

a0 is done before the cancel; a1 and a2 are calling; a3's message waits in the broker because no
worker process is free; a4 waits for a1. The cancel skips a3 and a4 at once; a1 and a2 end as the
tenant's cancel rule says (policy/cancel.py); the worker that later gets a3's message runs nothing.
"""

from __future__ import annotations

import time

import pytest

from execution.models import StepRun, TimelineEntry
from execution.services import ExecutionError, execution_cancel, execution_start
from planning.services import plan_from_steps
from sst import services as sst
from sst.faults import fault_add

from .helpers import approve, make_world, wait_settled

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

SLOW_MS = 2000
KEYS = {"a0": "confinedSpace", "a1": "electricity", "a2": "excavation", "a3": "loadLifting", "a4": "scaffolding"}
DEPENDS = {"a1": ["a0"], "a4": ["a1"]}
COMPENSATION = {"capability": "workPermit.components.remove",
                "input": {"permit_id": "${input.permit_id}", "component_id": "${result.id}"}}


@pytest.fixture
def world(registry, tenant):
    world = make_world(tenant)
    sst.component_type_create(tenant=tenant, key="scaffolding", name="Andaime")
    # a2 writes another permit: the two calling writes never race on one record's revision.
    world.other = sst.permit_create(tenant=tenant, company=world.company, number="124", validity_days=15)
    return world


def _plan(world, operator):
    steps = [{"id": sid, "capability": "workPermit.components.add", "compensation": COMPENSATION,
              "input": {"permit_id": (world.other if sid == "a2" else world.permit).pk, "component": key},
              "depends_on": DEPENDS.get(sid, [])}
             for sid, key in KEYS.items()]
    return plan_from_steps(tenant=world.tenant, actor=operator, steps=steps, template="test.cancel")


def _runs(execution):
    return {r.step_id: r for r in StepRun.objects.for_tenant(execution.tenant_id).filter(execution=execution)}


def _started(execution) -> set[str]:
    return set(TimelineEntry.objects.for_tenant(execution.tenant_id).filter(
        execution=execution, type="STEP_STARTED").values_list("step_id", flat=True))


def _components(world) -> set[str]:
    """What the plan added, on either permit."""
    return (set(world.permit.components.values_list("component_type__key", flat=True))
            | set(world.other.components.values_list("component_type__key", flat=True))) - {"workingAtHeight",
                                                                                           "hotWork"}


def _wait_until(predicate, timeout_s: float = 15.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _broker_holds(execution) -> bool:
    """A message of this execution still in the broker: queued, or taken by the worker and not acknowledged."""
    from config.celery import app

    with app.connection_for_write() as conn:
        client = conn.default_channel.client
        raw = [*client.lrange("execution", 0, -1), *client.lrange("execution_high", 0, -1),
               *client.hvals("unacked")]
    return any(str(execution.pk).encode() in item or _decoded(item, str(execution.pk)) for item in raw)


def _decoded(item: bytes, needle: str) -> bool:
    import base64
    import json

    try:
        message = json.loads(item)
        message = message[0] if isinstance(message, list) else message
        return needle in base64.b64decode(message.get("body", "")).decode(errors="ignore")
    except (ValueError, TypeError, AttributeError):
        return False


def _start_and_cancel_mid_flight(world, operator):
    """Start the plan, wait until a1 and a2 are inside their API calls, cancel; the execution as then."""
    for sid in ("a1", "a2"):
        fault_add(tenant=world.tenant, route="sst:permit-components", method="POST", latency_ms=SLOW_MS, times=1,
                  match={"component": KEYS[sid]})
    plan = _plan(world, operator)
    execution = execution_start(plan=plan, receipt_id=approve(plan, actor=operator, tenant=world.tenant).pk,
                                actor=operator, tenant=world.tenant)
    _wait_until(lambda: {"a1", "a2"} <= _started(execution))
    time.sleep(0.2)  # both are in their (slow) calls now
    runs = _runs(execution)
    assert (runs["a0"].status, runs["a1"].status, runs["a2"].status) == ("completed", "running", "running")
    assert (runs["a3"].status, runs["a4"].status) == ("dispatched", "pending"), "a3 sent, not claimed; a4 waits"
    return execution_cancel(execution_id=execution.pk, tenant=world.tenant, actor=operator, reason="user")


def test_cancel_skips_pending_and_unclaimed_steps_and_lets_the_calling_ones_finish(worker, world, operator,
                                                                                 settings):
    settings.AGENT_CANCEL_IN_FLIGHT = "finish"
    execution = _start_and_cancel_mid_flight(world, operator)
    runs = _runs(execution)
    assert execution.status == "running" and execution.error["code"] == "CANCEL_REQUESTED"
    assert (execution.error["cancelled"], sorted(execution.error["in_flight"])) == (["a3", "a4"], ["a1", "a2"])
    assert (runs["a3"].status, runs["a4"].status) == ("skipped", "skipped")
    assert _broker_holds(execution), "a3's message (and the calling steps') still in the broker"

    execution = wait_settled(execution)
    _wait_until(lambda: not _broker_holds(execution))  # a3's message was delivered and acknowledged
    runs = _runs(execution)
    assert execution.status == "cancelled", execution.error
    assert {sid: r.status for sid, r in runs.items()} == {
        "a0": "completed", "a1": "completed", "a2": "completed", "a3": "skipped", "a4": "skipped"}, {
        sid: r.error for sid, r in runs.items()}
    assert (runs["a3"].attempts, runs["a3"].calls, runs["a3"].error) == (0, 0, {"code": "CANCELLED"})
    assert "a3" not in _started(execution) and "a4" not in _started(execution), "the worker ran nothing of them"
    assert execution.error["code"] == "CANCELLED" and execution.error["rule"] == "finish"
    assert _components(world) == {"confinedSpace", "electricity", "excavation"}


def test_cancel_with_the_compensate_rule_undoes_only_what_finished_after_it(worker, world, operator, settings):
    settings.AGENT_CANCEL_IN_FLIGHT = "finish"
    settings.AGENT_CANCEL_IN_FLIGHT_BY_TENANT = {world.tenant.slug: "compensate"}
    execution = _start_and_cancel_mid_flight(world, operator)
    assert execution.error["rule"] == "compensate"

    execution = wait_settled(execution, timeout_s=30)
    runs = _runs(execution)
    assert execution.status == "cancelled", execution.error
    assert {sid: r.status for sid, r in runs.items()} == {
        "a0": "completed", "a1": "compensated", "a2": "compensated", "a3": "skipped", "a4": "skipped"}
    entries = TimelineEntry.objects.for_tenant(world.tenant).filter(execution=execution)
    assert set(entries.filter(type="COMPENSATION_COMPLETED").values_list("step_id", flat=True)) == {"a1", "a2"}
    # a0 was done before the cancel: cancel is not undo (ARCHITECTURE.md invariant 7), it stays.
    assert _components(world) == {"confinedSpace"}


def test_another_user_or_tenant_cannot_cancel_it(worker, world, operator, supervisor, other_user,
                                                 other_tenant):
    fault_add(tenant=world.tenant, route="sst:permit-components", method="POST", latency_ms=SLOW_MS, times=1,
              match={"component": KEYS["a0"]})
    plan = _plan(world, operator)
    execution = execution_start(plan=plan, receipt_id=approve(plan, actor=operator, tenant=world.tenant).pk,
                                actor=operator, tenant=world.tenant)
    _wait_until(lambda: "a0" in _started(execution))
    for actor, tenant in ((supervisor, world.tenant), (other_user, other_tenant), (operator, other_tenant)):
        with pytest.raises(ExecutionError) as refused:
            execution_cancel(execution_id=execution.pk, tenant=tenant, actor=actor, reason="attack")
        assert refused.value.code == "NOT_FOUND"
    execution = wait_settled(execution)
    assert execution.status == "completed" and execution.error is None
    assert _components(world) == set(KEYS.values())
