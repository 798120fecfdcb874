"""Batch evaluation under the runtime controller, in-process (the embedded default's eager mode)."""

from __future__ import annotations

import pytest
from django.db import DatabaseError

from execution.models import BatchItem, RuntimeAdaptation, RuntimeCheckpoint, RuntimeExecution
from execution.services import execution_start
from sst.models import PermitEvaluation

from .batch_helpers import batch_plan, duplicate_effects, lanes, make_batch_world, start_inline  # noqa: F401

pytestmark = pytest.mark.usefixtures("registry", "eager", "lanes")


def _start(django_capture_on_commit_callbacks, *, tenant, actor, ids):
    plan, receipt = batch_plan(tenant=tenant, actor=actor, ids=ids)
    return start_inline(django_capture_on_commit_callbacks, plan, receipt, tenant=tenant, actor=actor)


def test_a_batch_checks_every_permit_then_approves_or_flags_each_once(
        tenant, operator, django_capture_on_commit_callbacks):
    ids = make_batch_world(tenant, 12)
    execution = _start(django_capture_on_commit_callbacks, tenant=tenant, actor=operator, ids=ids)
    assert execution.status == "completed", execution.error
    evaluations = {e.permit_id: e for e in PermitEvaluation.objects.for_tenant(tenant)}
    assert set(evaluations) == set(ids) and duplicate_effects(tenant) == 0
    flagged = {pid for pid, e in evaluations.items() if e.outcome == "FLAG"}
    assert flagged == {ids[i] for i in range(0, 12, 5)}
    assert all(evaluations[pid].reasons == ["TRAINING_MISSING"] for pid in flagged)
    items = BatchItem.objects.for_tenant(tenant).filter(execution=execution)
    assert items.count() == 48 and set(items.values_list("status", flat=True)) == {"completed"}
    runtime = RuntimeExecution.objects.for_tenant(tenant).get(execution=execution)
    assert runtime.status == "COMPLETED" and runtime.steps == 48
    assert RuntimeCheckpoint.objects.for_tenant(tenant).filter(execution=execution).exists()


def test_another_tenants_permits_are_facts_of_nothing_so_policy_refuses_them(tenant, other_tenant, operator):
    from execution.services import plan_facts
    from planning.intents import StructuredIntent
    from planning.services import plan_from_intent

    theirs = make_batch_world(other_tenant, 3)
    plan = plan_from_intent(tenant=tenant, actor=operator, intent=StructuredIntent(
        name="workPermit.evaluateBatch", slots={"permit_ids": theirs}))
    facts = plan_facts(plan=plan, actor=operator, tenant=tenant)  # one readMany call, tenant-scoped
    assert facts and all(f["exists"] is False for f in facts.values())


def test_adaptations_are_recorded_with_reason_metrics_and_both_languages(
        tenant, operator, django_capture_on_commit_callbacks):
    ids = make_batch_world(tenant, 6)
    execution = _start(django_capture_on_commit_callbacks, tenant=tenant, actor=operator, ids=ids)
    rows = list(RuntimeAdaptation.objects.for_tenant(tenant).filter(execution=execution))
    assert rows, "the lanes' health at least changes from UNKNOWN"
    assert all(r.reason and set(r.message) == {"pt-BR", "en"} for r in rows)
    with pytest.raises(DatabaseError):  # append-only (trigger)
        RuntimeAdaptation.objects.for_tenant(tenant).filter(pk=rows[0].pk).update(reason="forged")


def test_a_hundred_failing_items_spend_at_most_the_retry_budget_then_wait_and_ask_for_review(
        tenant, operator, settings, django_capture_on_commit_callbacks):
    from planning.services import plan_from_steps
    from sst.faults import fault_add
    from sst.models import FaultRule

    from .helpers import approve

    settings.SST_FAULT_INJECTION = True
    settings.RUNTIME_MAX_WAIT_SECONDS = 0.3
    ids = make_batch_world(tenant, 100)
    counter = fault_add(tenant=tenant, route="sst:permit-training", status=503, times=10_000)
    plan = plan_from_steps(tenant=tenant, actor=operator, template="test.trainingBatch", steps=[
        {"id": "training", "capability": "workPermit.checkTraining", "input": {"permit_id": "${item.id}"},
         "for_each": "${targets}", "targets": [{"type": "workPermit", "id": i} for i in ids]}], allow_partial=True)
    receipt = approve(plan, actor=operator, tenant=tenant)
    with django_capture_on_commit_callbacks(execute=True):
        execution = execution_start(plan=plan, receipt_id=receipt.pk, actor=operator, tenant=tenant)
    execution.refresh_from_db()
    calls = 10_000 - FaultRule.objects.for_tenant(tenant).get(pk=counter.pk).times
    budget = settings.EXECUTION_RETRY_BUDGET
    assert execution.retry_budget >= 0 and calls <= 100 + budget  # never 100 × 3 attempts
    assert calls < 30  # the breaker opened after a handful; no fallback is registered for training
    run = execution.step_runs.get()
    assert (execution.status, execution.needs_review, run.error["code"]) == ("failed", True, "RESOURCE_UNAVAILABLE")
    runtime = RuntimeExecution.objects.for_tenant(tenant).get(execution=execution)
    assert runtime.status == "FAILED"
    assert RuntimeAdaptation.objects.for_tenant(tenant).filter(execution=execution, new="WAITING").exists()
