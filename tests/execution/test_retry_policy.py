"""One retry policy (execution/retry.py, issue 19 point 4): a single step and a batch item of the
same capability get the same attempts, backoff and retryable classes, from the capability's
`retry` block, and the registry's default when it declares none."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest

from execution.models import BatchItem, StepRun
from execution.retry import (
    DEFAULT_MAX_ATTEMPTS,
    IN_PROGRESS_MAX_WAITS,
    TRANSIENT,
    RetryPolicy,
    backoff_s,
    in_progress_wait,
)
from planning.services import plan_from_steps
from registry.selectors import RegistrySnapshot
from sst.faults import fault_add
from sst.models import FaultRule

from .batch_helpers import lanes, make_batch_world, start_inline  # noqa: F401 - fixture

pytestmark = pytest.mark.usefixtures("registry", "eager", "lanes")
CAPABILITY = "workPermit.checkTraining"  # retry: max_attempts 3, backoff 100 ms → 2 s, full jitter


def _spec(retry: dict | None):
    return SimpleNamespace(retry_policy=retry)


def test_a_capability_without_a_retry_block_gets_the_registrys_one_attempt():
    assert DEFAULT_MAX_ATTEMPTS == 1
    for spec in (_spec({}), _spec(None), None):
        assert RetryPolicy.of(spec).max_attempts == 1
        assert not RetryPolicy.of(spec).allows(attempts=1, error_class="TIMEOUT")


def test_the_declared_block_is_the_policy_and_only_transient_classes_ever_retry():
    policy = RetryPolicy.of(_spec({"max_attempts": 3, "backoff": {"initial_ms": 100, "max_ms": 400},
                                   "jitter": "none", "retryable": ["TIMEOUT", "VALIDATION"]}))
    assert (policy.max_attempts, policy.retryable) == (3, frozenset({"TIMEOUT"}))  # a manifest cannot widen it
    assert policy.allows(attempts=2, error_class="TIMEOUT") and not policy.allows(attempts=3, error_class="TIMEOUT")
    for never in ("VALIDATION", "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT", "BUSINESS_RULE", None):
        assert not policy.allows(attempts=1, error_class=never)
    assert [policy.delay_s(n) for n in (1, 2, 3, 4)] == [0.1, 0.2, 0.4, 0.4]  # exponential, capped
    assert RetryPolicy.of(_spec({"max_attempts": 2})).retryable == TRANSIENT


@pytest.mark.parametrize(("jitter", "low", "high"), [("none", 0.8, 0.8), ("full", 0.0, 0.8), ("equal", 0.4, 0.8)])
def test_jitter_spreads_the_backoff_as_declared(jitter, low, high):
    for _ in range(50):
        assert low <= backoff_s(4, initial_ms=100, multiplier=2, max_ms=5000, jitter=jitter) <= high


def test_an_in_progress_key_is_waited_out_a_bounded_number_of_times_without_counting_as_a_failure():
    error, waited = {"code": "IDEMPOTENCY_IN_PROGRESS"}, None
    for n in range(1, IN_PROGRESS_MAX_WAITS + 1):
        waited = in_progress_wait(waited, error)
        assert waited == {**error, "in_progress_waits": n}
    assert in_progress_wait(waited, error) is None


@pytest.fixture(params=["declared", "none declared"])
def attempts(request, monkeypatch) -> int:
    """The attempts the capability should get: its declared 3, or — its `retry` block taken away
    (where the engine used to default to 3 and the batch to 1) — the registry's default 1."""
    if request.param == "declared":
        return 3
    get = RegistrySnapshot.get

    def without_retry(self, capability_id, **kwargs):
        spec = get(self, capability_id, **kwargs)
        return replace(spec, retry_policy={}) if spec is not None and spec.id == CAPABILITY else spec

    monkeypatch.setattr(RegistrySnapshot, "get", without_retry)
    return DEFAULT_MAX_ATTEMPTS


def test_a_single_step_and_a_batch_item_of_one_capability_get_the_same_attempts(
        tenant, operator, settings, attempts, django_capture_on_commit_callbacks):
    settings.SST_FAULT_INJECTION = True
    single, batch = make_batch_world(tenant, 2)
    fault = fault_add(tenant=tenant, route="sst:permit-training", status=503, times=100)

    plan = plan_from_steps(tenant=tenant, actor=operator, template="test.single", steps=[
        {"id": "training", "capability": CAPABILITY, "input": {"permit_id": single}}])
    step_execution = start_inline(django_capture_on_commit_callbacks, plan, tenant=tenant, actor=operator)
    run = StepRun.objects.for_tenant(tenant).get(execution=step_execution)
    calls_for_step = 100 - FaultRule.objects.for_tenant(tenant).get(pk=fault.pk).times

    plan = plan_from_steps(tenant=tenant, actor=operator, template="test.batch", allow_partial=True, steps=[
        {"id": "training", "capability": CAPABILITY, "input": {"permit_id": "${item.id}"}, "for_each": "${targets}",
         "targets": [{"type": "workPermit", "id": batch}]}])
    batch_execution = start_inline(django_capture_on_commit_callbacks, plan, tenant=tenant, actor=operator)
    item = BatchItem.objects.for_tenant(tenant).get(execution=batch_execution)
    calls_for_item = 100 - FaultRule.objects.for_tenant(tenant).get(pk=fault.pk).times - calls_for_step

    assert (run.status, run.attempts, calls_for_step) == ("failed", attempts, attempts)
    assert (item.status, item.attempts, calls_for_item) == ("failed", attempts, attempts)
    assert run.error["class"] == item.error["class"] == "TEMPORARY_UNAVAILABLE"
