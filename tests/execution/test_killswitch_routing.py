"""A RESOURCE kill switch is checked on the resource a call actually goes to (issue 19 point 3.1),
for batch items and single steps alike (execution/routing.py): a stopped fallback is never called,
even while the primary's breaker is open; a stopped primary is routed around to a healthy registered
fallback (an automatic adaptation, PRD-034 §89), and only when every resource of the route is
stopped is the step refused (KILL_SWITCH)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission

from conftest import make_user
from execution.control import OPEN, Envelope, Lane
from execution.models import BatchItem, RuntimeAdaptation, StepRun
from planning.services import plan_from_steps
from policy.models import ReceiptCheck, Scope
from policy.services import kill_switch_set
from registry.selectors import registry_snapshot
from sst.faults import fault_add
from sst.models import FaultRule
from tenancy.models import Role

from .batch_helpers import batch_steps, lanes, make_batch_world, start_inline  # noqa: F401 - fixture

pytestmark = pytest.mark.usefixtures("registry", "eager", "lanes")
CAPABILITY = "workPermit.checkCompliance"  # compliance-api, registered fallback compliance-api-secondary
PRIMARY, FALLBACK = "compliance-api", "compliance-api-secondary"
ROUTES = {PRIMARY: "sst:permit-compliance", FALLBACK: "sst:permit-compliance-secondary"}


@pytest.fixture
def faults(settings):
    settings.SST_FAULT_INJECTION = True
    settings.RUNTIME_MAX_WAIT_SECONDS = 0.3  # a batch with no usable resource gives up quickly


def _stop(tenant, resource: str) -> None:
    admin = make_user(tenant, Role.ADMIN)
    admin.user_permissions.add(Permission.objects.get(codename="runtime_admin"))
    kill_switch_set(actor=admin, scope=Scope.RESOURCE, target=resource, reason="incident")


def _counters(tenant) -> dict[str, FaultRule]:
    """Rules that only count: every call reaching a resource's route takes one of its `times`."""
    return {r: fault_add(tenant=tenant, route=route, latency_ms=1, times=1000) for r, route in ROUTES.items()}


def _calls(rule) -> int:
    return 1000 - FaultRule.objects.for_tenant(rule.tenant_id).get(pk=rule.pk).times


def _break_primary(tenant) -> None:
    spec = registry_snapshot().get(CAPABILITY)
    lane = Lane(tenant.pk, CAPABILITY, PRIMARY, Envelope.of(spec))
    for _ in range(5):  # earlier calls of the lane failed: its breaker is open
        lane.observe("server_error", 10.0)
    assert lane.state().breaker == OPEN


def _batch(capture, *, tenant, actor, ids, stop=()):
    plan = plan_from_steps(tenant=tenant, actor=actor, template="test.complianceBatch",
                           steps=batch_steps(ids, "compliance"), allow_partial=True)
    from .helpers import approve

    receipt = approve(plan, actor=actor, tenant=tenant)
    for resource in stop:  # raised after the confirmation, while the execution runs
        _stop(tenant, resource)
    return start_inline(capture, plan, receipt, tenant=tenant, actor=actor)


def _single(capture, *, tenant, actor, permit_id, stop=()):
    plan = plan_from_steps(tenant=tenant, actor=actor, template="test.single", steps=[
        {"id": "compliance", "capability": CAPABILITY, "input": {"permit_id": permit_id}}])
    from .helpers import approve

    receipt = approve(plan, actor=actor, tenant=tenant)
    for resource in stop:
        _stop(tenant, resource)
    execution = start_inline(capture, plan, receipt, tenant=tenant, actor=actor)
    return StepRun.objects.for_tenant(tenant).get(execution=execution)


def test_a_stopped_fallback_is_not_called_by_a_batch_while_the_primary_is_broken(
        tenant, operator, faults, django_capture_on_commit_callbacks):
    ids = make_batch_world(tenant, 4)
    counters = _counters(tenant)
    _break_primary(tenant)
    execution = _batch(django_capture_on_commit_callbacks, tenant=tenant, actor=operator, ids=ids, stop=[FALLBACK])
    assert _calls(counters[FALLBACK]) == 0 and _calls(counters[PRIMARY]) == 0
    assert not BatchItem.objects.for_tenant(tenant).filter(execution=execution, status="completed").exists()
    # The fallback is unavailable like any down resource: the runtime waited, then asked for review.
    assert RuntimeAdaptation.objects.for_tenant(tenant).filter(execution=execution, new="WAITING").exists()
    assert (execution.status, execution.needs_review) == ("failed", True)


def test_a_stopped_primary_is_routed_around_to_the_registered_fallback(
        tenant, operator, faults, django_capture_on_commit_callbacks):
    ids = make_batch_world(tenant, 4)
    counters = _counters(tenant)
    execution = _batch(django_capture_on_commit_callbacks, tenant=tenant, actor=operator, ids=ids, stop=[PRIMARY])
    assert execution.status == "completed", execution.error
    assert _calls(counters[PRIMARY]) == 0 and _calls(counters[FALLBACK]) == 4
    items = BatchItem.objects.for_tenant(tenant).filter(execution=execution)
    assert set(items.values_list("resource", flat=True)) == {FALLBACK}
    switched = RuntimeAdaptation.objects.for_tenant(tenant).get(execution=execution, kind="RESOURCE")
    assert (switched.old, switched.new, switched.reason) == (PRIMARY, FALLBACK, "KILL_SWITCH")
    checks = ReceiptCheck.objects.for_tenant(tenant).filter(execution_id=str(execution.pk), ok=True)
    assert checks.count() == 4 and all(c.reasons == [{"code": "RESOURCE_STOPPED", "step_id": "compliance",
                                                      "data": {"resource": PRIMARY}}] for c in checks)


def test_a_primary_stopped_before_the_confirmation_lets_policy_allow_and_the_fallback_serve(
        tenant, operator, faults, django_capture_on_commit_callbacks):
    ids = make_batch_world(tenant, 3)
    counters = _counters(tenant)
    _stop(tenant, PRIMARY)  # policy's own route (primary + registered fallbacks) is checked at confirmation too
    execution = _batch(django_capture_on_commit_callbacks, tenant=tenant, actor=operator, ids=ids)
    assert execution.status == "completed", execution.error
    assert _calls(counters[PRIMARY]) == 0 and _calls(counters[FALLBACK]) == 3


def test_a_batch_whose_every_resource_is_stopped_is_refused_without_a_call(
        tenant, operator, faults, django_capture_on_commit_callbacks):
    ids = make_batch_world(tenant, 3)
    counters = _counters(tenant)
    execution = _batch(django_capture_on_commit_callbacks, tenant=tenant, actor=operator, ids=ids,
                       stop=[PRIMARY, FALLBACK])
    assert _calls(counters[PRIMARY]) == 0 and _calls(counters[FALLBACK]) == 0
    assert execution.status == "failed"
    assert execution.step_runs.get().error["code"] == "KILL_SWITCH"


def test_a_single_step_never_calls_a_stopped_fallback_while_the_primary_is_broken(
        tenant, operator, faults, django_capture_on_commit_callbacks):
    permit_id, = make_batch_world(tenant, 1)
    # Still broken: each attempt's half-open probe (the step waits out the open window once) fails too.
    broken = fault_add(tenant=tenant, route=ROUTES[PRIMARY], status=503, times=1000)
    fallback = fault_add(tenant=tenant, route=ROUTES[FALLBACK], latency_ms=1, times=1000)
    _break_primary(tenant)
    run = _single(django_capture_on_commit_callbacks, tenant=tenant, actor=operator, permit_id=permit_id,
                  stop=[FALLBACK])
    assert run.status == "failed", run.error
    assert _calls(broken) <= run.attempts  # at most one probe per attempt reached the broken primary
    assert _calls(fallback) == 0  # the stopped fallback never


def test_a_single_step_with_its_primary_stopped_is_served_by_the_fallback(
        tenant, operator, faults, django_capture_on_commit_callbacks):
    permit_id, = make_batch_world(tenant, 1)
    counters = _counters(tenant)
    run = _single(django_capture_on_commit_callbacks, tenant=tenant, actor=operator, permit_id=permit_id,
                  stop=[PRIMARY])
    assert run.status == "completed", run.error
    assert _calls(counters[PRIMARY]) == 0 and _calls(counters[FALLBACK]) == 1
