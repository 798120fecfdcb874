"""A single step calls its resource under the capability's adaptive envelope, the same function a
batch item uses (execution/envelope.py, issue 19 point 3): the lane's AIMD concurrency limit, its
breaker, the execution's deadline. Hedging needs a worker: tests/execution/test_step_envelope_worker.py."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import pytest

from execution.control import BREAKER_OPEN_S, CLOSED, OPEN, Envelope, Lane
from execution.models import StepRun
from planning.services import plan_from_steps
from registry.selectors import registry_snapshot
from sst.faults import fault_add
from sst.models import FaultRule

from .batch_helpers import lanes, make_batch_world, start_inline  # noqa: F401 - fixture

pytestmark = pytest.mark.usefixtures("registry", "eager", "lanes")
CAPABILITY = "workPermit.checkTraining"  # timeout 1000 ms (max 4000), retry 3 attempts, hedgeable read


def _lane(tenant, capability: str = CAPABILITY) -> Lane:
    spec = registry_snapshot().get(capability)
    return Lane(tenant.pk, capability, spec.resource.key, Envelope.of(spec))


def _counter(tenant, route: str = "sst:permit-training"):
    """A fault rule that only counts: every call that reaches the route takes one of its `times`."""
    return fault_add(tenant=tenant, route=route, latency_ms=1, times=1000)


def _calls(counter) -> int:
    return 1000 - FaultRule.objects.for_tenant(counter.tenant_id).get(pk=counter.pk).times


@pytest.fixture
def counted(tenant, settings):
    """A permit, the route's counting rule and the capability's lane, with fault injection on."""
    settings.SST_FAULT_INJECTION = True
    permit_id, = make_batch_world(tenant, 1)
    return permit_id, _counter(tenant), _lane(tenant)


def _run_single(capture, *, tenant, actor, permit_id: int) -> StepRun:
    plan = plan_from_steps(tenant=tenant, actor=actor, template="test.single", steps=[
        {"id": "training", "capability": CAPABILITY, "input": {"permit_id": permit_id}}])
    execution = start_inline(capture, plan, tenant=tenant, actor=actor)
    return StepRun.objects.for_tenant(tenant).get(execution=execution)


def test_a_single_step_waits_for_a_slot_under_its_resources_concurrency_limit(
        tenant, operator, counted, django_capture_on_commit_callbacks):
    permit_id, counter, lane = counted
    limit = lane.state().limit
    held = [lane.acquire(lease_s=30) for _ in range(limit)]  # other calls fill the lane's limit
    assert all(held) and lane.acquire(lease_s=30) is None
    threading.Timer(0.4, lane.release, [held[0]]).start()
    started = time.monotonic()
    run = _run_single(django_capture_on_commit_callbacks, tenant=tenant, actor=operator, permit_id=permit_id)
    assert run.status == "completed", run.error
    assert time.monotonic() - started >= 0.35  # it waited for the slot to come free
    assert _calls(counter) == 1 and lane.peak() == limit  # never above the lane's limit
    for token in held[1:]:
        lane.release(token)


def _open(lane: Lane) -> None:
    for _ in range(5):  # earlier calls of the lane (a batch's, another step's) failed
        lane.observe("server_error", 10.0)
    assert lane.state().breaker == OPEN


def test_a_single_step_waits_out_an_open_breaker_and_is_its_probe(
        tenant, operator, counted, django_capture_on_commit_callbacks):
    permit_id, counter, lane = counted
    _open(lane)
    started = time.monotonic()
    run = _run_single(django_capture_on_commit_callbacks, tenant=tenant, actor=operator, permit_id=permit_id)
    assert run.status == "completed", run.error
    assert time.monotonic() - started >= BREAKER_OPEN_S * 0.9  # nothing was sent while it was open
    assert _calls(counter) == 1 and lane.state().breaker == CLOSED  # the probe succeeded: closed again


def test_a_breaker_that_stays_open_stops_a_single_steps_calls(
        tenant, operator, settings, django_capture_on_commit_callbacks):
    settings.SST_FAULT_INJECTION = True
    permit_id, = make_batch_world(tenant, 1)
    failing = fault_add(tenant=tenant, route="sst:permit-training", status=503, times=1000)
    lane = _lane(tenant)
    _open(lane)
    run = _run_single(django_capture_on_commit_callbacks, tenant=tenant, actor=operator, permit_id=permit_id)
    assert (run.status, run.error["class"]) == ("failed", "TEMPORARY_UNAVAILABLE"), run.error
    assert run.attempts == 3  # refused and failed probes are retried as any temporary failure, within the policy
    assert _calls(failing) <= run.attempts  # at most one probe per attempt reached the API, never a stream


def test_a_single_step_past_the_executions_deadline_is_not_called_and_fails_as_a_timeout(
        tenant, operator, settings, django_capture_on_commit_callbacks):
    settings.SST_FAULT_INJECTION = True
    settings.RUNTIME_BUDGET = {"max_duration_s": 0}  # the execution's time is spent as it starts
    permit_id, = make_batch_world(tenant, 1)
    counter = _counter(tenant)
    run = _run_single(django_capture_on_commit_callbacks, tenant=tenant, actor=operator, permit_id=permit_id)
    assert (run.status, run.error["code"], run.error["class"]) == ("failed", "DEADLINE_EXCEEDED", "TIMEOUT")
    assert run.attempts == 1  # a retry would meet the same deadline
    assert _calls(counter) == 0


def test_a_single_steps_call_slower_than_its_lanes_timeout_is_counted_as_a_timeout(
        tenant, operator, settings, django_capture_on_commit_callbacks):
    settings.SST_FAULT_INJECTION = True
    permit_id, = make_batch_world(tenant, 1)
    fault_add(tenant=tenant, route="sst:permit-training", latency_ms=1100, times=1)  # the timeout is 1000 ms
    run = _run_single(django_capture_on_commit_callbacks, tenant=tenant, actor=operator, permit_id=permit_id)
    assert run.status == "completed", run.error  # an in-process answer cannot be cut: it is kept
    assert [kind for kind, _ in _lane(tenant).state().window] == ["timeout"]


def test_a_write_is_never_hedged_whatever_its_manifest_says():
    spec = registry_snapshot().get("workPermit.recordDecision")
    marked = replace(spec, adaptation={**spec.adaptation, "hedgeable": True})
    assert Envelope.of(marked).hedgeable is False
