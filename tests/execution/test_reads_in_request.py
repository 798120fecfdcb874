"""Read-only plans run in the thread that started them, after its commit (execution/inline.py).

No worker runs here and the broker's messages are captured instead of sent: a read plan that
still needed the broker would stay DISPATCHED. A write plan asked to run inline still goes to the
broker. The step keeps every record a worker's run makes (claim, policy check, call, receipt).
"""

from __future__ import annotations

import pytest
from django.db import OperationalError, transaction

from execution import engine, publish
from execution.models import Execution, ExecutionStatus, StepRun, StepStatus, TimelineEntry
from execution.services import execution_start
from planning.services import plan_from_steps
from policy.models import ReceiptCheck
from sst import services as sst

from .helpers import approve

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("registry")]


@pytest.fixture
def sent(monkeypatch):
    queue: list[tuple[tuple, float | None]] = []
    monkeypatch.setattr(publish, "send_soon", lambda task, args, countdown=None: queue.append((args, countdown)))
    return queue


@pytest.fixture
def permit(tenant):
    return sst.permit_create(tenant=tenant, company=sst.company_create(tenant=tenant, name="Beta"), validity_days=9)


def _start(tenant, actor, steps, *, inline=True) -> Execution:
    plan = plan_from_steps(tenant=tenant, actor=actor, steps=steps, template="test.inline_read")
    receipt = approve(plan, actor=actor, tenant=tenant)
    with transaction.atomic():
        execution = execution_start(plan=plan, receipt_id=receipt.pk, actor=actor, tenant=tenant, inline=inline)
        # Nothing runs before the commit: the steps are only DISPATCHED rows so far.
        assert StepRun.objects.for_tenant(tenant).filter(execution=execution).exclude(
            status__in=[StepStatus.PENDING, StepStatus.DISPATCHED]).count() == 0
    execution.refresh_from_db()
    return execution


def _reads(permit, n: int) -> list[dict]:
    return [{"id": f"r{i}", "capability": "workPermit.read", "input": {"permit_id": permit.pk},
             "depends_on": [f"r{i - 1}"] if i else []} for i in range(n)]


def _types(execution) -> list[str]:
    return list(TimelineEntry.objects.for_tenant(execution.tenant_id).filter(execution=execution)
                .order_by("id").values_list("type", flat=True))


def test_a_read_plan_completes_in_the_request_without_the_broker(tenant, operator, permit, sent):
    execution = _start(tenant, operator, _reads(permit, 2))

    assert execution.status == ExecutionStatus.COMPLETED
    assert sent == []
    runs = StepRun.objects.for_tenant(tenant).filter(execution=execution).order_by("position")
    assert [r.status for r in runs] == [StepStatus.COMPLETED, StepStatus.COMPLETED]
    assert runs[0].result["number"] == permit.number
    types = _types(execution)
    # The same records a worker's run leaves: each step started, checked against policy, finished.
    assert types.count("STEP_STARTED") == 2 and types.count("STEP_COMPLETED") == 2
    checks = ReceiptCheck.objects.for_tenant(tenant).filter(execution_id=str(execution.pk))
    assert sorted(checks.values_list("step_id", "ok")) == [("r0", True), ("r1", True)]


def test_a_write_plan_is_never_run_in_the_request(tenant, operator, permit, sent):
    steps = [{"id": "w", "capability": "workPermit.updateValidity",
              "input": {"permit_id": permit.pk, "validity_days": 12, "expected_revision": permit.revision}}]
    execution = _start(tenant, operator, steps)

    assert execution.status == ExecutionStatus.RUNNING
    assert [args for args, _ in sent] == [(str(execution.pk), "w")]
    assert StepRun.objects.for_tenant(tenant).get(execution=execution).status == StepStatus.DISPATCHED
    permit.refresh_from_db()
    assert permit.validity_days == 9


def test_without_inline_a_read_plan_goes_to_the_broker(tenant, operator, permit, sent):
    execution = _start(tenant, operator, _reads(permit, 1), inline=False)

    assert execution.status == ExecutionStatus.RUNNING
    assert [args for args, _ in sent] == [(str(execution.pk), "r0")]


def test_past_the_budget_the_rest_goes_to_a_worker(tenant, operator, permit, sent, settings):
    settings.EXECUTION_INLINE_READ_MS = 0
    execution = _start(tenant, operator, _reads(permit, 2))

    assert execution.status == ExecutionStatus.RUNNING
    assert [args for args, _ in sent] == [(str(execution.pk), "r0")]
    assert StepRun.objects.for_tenant(tenant).get(execution=execution, step_id="r0").status == StepStatus.DISPATCHED


def test_a_step_that_breaks_in_the_request_is_handed_to_a_worker(tenant, operator, permit, sent, monkeypatch):
    def lost(*args, **kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(engine, "claim_step", lost)
    execution = _start(tenant, operator, _reads(permit, 1))  # the commit itself does not raise

    assert execution.status == ExecutionStatus.RUNNING
    assert [args for args, _ in sent] == [(str(execution.pk), "r0")]
