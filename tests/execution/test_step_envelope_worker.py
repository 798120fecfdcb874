"""Hedging of single steps on a real Celery worker (issue 19 point 3): a slow read gets a second
request and the first answer wins; a write is never sent twice. (Eager mode never hedges: the call
runs in the caller's connection and transaction, which a second thread cannot share.)"""

from __future__ import annotations

import pytest

from execution.control import lanes_clear
from execution.models import StepRun
from execution.services import execution_start
from planning.services import plan_from_steps
from sst.faults import fault_add
from sst.models import FaultRule, PermitEvaluation

from .batch_helpers import make_batch_world
from .helpers import approve, wait_settled

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
SLOW_MS = 1500


@pytest.fixture(autouse=True)
def _lanes(registry, tenant):
    lanes_clear(tenant.pk)
    yield
    lanes_clear(tenant.pk)


def _run(tenant, operator, step: dict) -> StepRun:
    plan = plan_from_steps(tenant=tenant, actor=operator, template="test.single", steps=[step])
    receipt = approve(plan, actor=operator, tenant=tenant)
    execution = wait_settled(execution_start(plan=plan, receipt_id=receipt.pk, actor=operator, tenant=tenant))
    assert execution.status == "completed", execution.error
    return StepRun.objects.for_tenant(tenant).get(execution=execution)


def test_a_slow_read_single_step_is_hedged_and_the_first_answer_wins(worker, tenant, operator):
    permit_id, = make_batch_world(tenant, 1)
    slow = fault_add(tenant=tenant, route="sst:permit-training", method="GET", latency_ms=SLOW_MS, times=1)
    run = _run(tenant, operator, {"id": "training", "capability": "workPermit.checkTraining",
                                  "input": {"permit_id": permit_id}})
    assert FaultRule.objects.for_tenant(tenant).get(pk=slow.pk).times == 0  # the first request was the slow one
    assert run.calls == 3  # the facts read, the slow request and its hedge
    assert run.call_ms < SLOW_MS  # the hedge answered; the step did not wait for the slow one


def test_a_slow_write_single_step_is_never_hedged(worker, tenant, operator):
    permit_id, = make_batch_world(tenant, 1)
    fault_add(tenant=tenant, route="sst:permit-evaluations", method="POST", latency_ms=SLOW_MS, times=1)
    run = _run(tenant, operator, {"id": "decision", "capability": "workPermit.recordDecision", "input": {
        "permit_id": permit_id, "trained": True, "risk_level": "low", "compliant": True}})
    assert run.call_ms >= SLOW_MS  # it waited for its one request
    assert PermitEvaluation.objects.for_tenant(tenant).filter(permit_id=permit_id).count() == 1
