"""Execution budget and depth limits (PRD-034 §65-§69): LLM calls, replans, how far a replacement
plan may be from the user's own plan, and how many items one execution may hold. Past any of them
the batch stops and a person reviews — it never silently carries on. Inline (eager), PostgreSQL,
Redis, the SST fault injector."""

from __future__ import annotations

import uuid

import pytest
from django.utils import timezone

from execution.models import BatchItem, RuntimeAdaptation, RuntimeExecution, RuntimeReplan
from execution.services import execution_start
from planning.services import plan_from_steps
from sst.faults import fault_add
from sst.models import PermitEvaluation

from .batch_helpers import batch_plan, batch_steps, lanes, make_batch_world, start_inline  # noqa: F401

pytestmark = pytest.mark.usefixtures("registry", "eager", "lanes")


@pytest.fixture
def fast(settings):
    settings.SST_FAULT_INJECTION = True
    settings.RUNTIME_REPLAN_AFTER_SECONDS = 0
    settings.RUNTIME_MAX_WAIT_SECONDS = 1


def _two_checks(tenant, actor, ids, **extra):
    """training ∥ risk, all-or-nothing: losing training makes any alternative a material change."""
    return plan_from_steps(tenant=tenant, actor=actor, template="test.twoChecks", steps=batch_steps(ids, "training",
                                                                                                   "risk"),
                           allow_partial=False, conversation_id=uuid.uuid4(), **extra)


def test_past_max_replans_the_planner_is_not_asked_and_a_person_reviews(
        tenant, operator, fast, settings, django_capture_on_commit_callbacks):
    settings.RUNTIME_BUDGET = {"max_replans": 0}
    ids = make_batch_world(tenant, 6)
    fault_add(tenant=tenant, route="sst:permit-training", status=503)
    execution = start_inline(django_capture_on_commit_callbacks, _two_checks(tenant, operator, ids), tenant=tenant,
                     actor=operator)
    (replan,) = RuntimeReplan.objects.for_tenant(tenant).filter(execution=execution)
    assert (replan.outcome, replan.code, replan.strategy, replan.plan_id) == ("REFUSED", "BUDGET_REPLANS", "NONE",
                                                                             None)
    assert (execution.status, execution.needs_review) == ("failed", True)
    assert execution.step_runs.get(step_id="training").error["code"] == "BUDGET_REPLANS"


def test_a_replacement_plan_deeper_than_max_depth_is_refused_for_review(
        tenant, operator, fast, django_capture_on_commit_callbacks):
    ids = make_batch_world(tenant, 6)
    fault_add(tenant=tenant, route="sst:permit-training", status=503)
    plan = _two_checks(tenant, operator, ids)
    # This plan is already the second replacement of the user's own plan (max_depth = 2).
    earlier_plan, receipt = batch_plan(tenant=tenant, actor=operator, ids=ids)
    with django_capture_on_commit_callbacks(execute=False):
        earlier = execution_start(plan=earlier_plan, receipt_id=receipt.pk, actor=operator, tenant=tenant)
    RuntimeReplan.objects.create(tenant=tenant, execution=earlier, step_id="training", trigger="RESOURCE_UNAVAILABLE",
                                 strategy="DEFER", outcome="REAPPROVAL_REQUIRED", plan=plan, depth=2,
                                 created_at=timezone.now())
    execution = start_inline(django_capture_on_commit_callbacks, plan, tenant=tenant, actor=operator)
    replan = RuntimeReplan.objects.for_tenant(tenant).get(execution=execution)
    assert (replan.outcome, replan.code, replan.depth, replan.plan_id) == ("REFUSED", "DEPTH_LIMIT", 3, None)
    assert replan.impact["requires_reapproval"] is True  # it was a material alternative, and too deep
    assert (execution.status, execution.needs_review) == ("failed", True)


def test_a_plan_the_llm_made_spends_the_llm_budget_and_without_one_nothing_runs(
        tenant, operator, fast, settings, django_capture_on_commit_callbacks):
    settings.RUNTIME_BUDGET = {"max_llm_calls": 0}
    ids = make_batch_world(tenant, 4)
    plan = plan_from_steps(tenant=tenant, actor=operator, template="llm:test", steps=batch_steps(ids, "training"),
                           allow_partial=True, planner="llm")
    execution = start_inline(django_capture_on_commit_callbacks, plan, tenant=tenant, actor=operator)
    runtime = RuntimeExecution.objects.for_tenant(tenant).get(execution=execution)
    assert (runtime.llm_calls, runtime.status) == (1, "FAILED")
    assert (execution.status, execution.needs_review) == ("failed", True)
    assert execution.step_runs.get().error["code"] == "BUDGET_LLM_CALLS"
    assert not BatchItem.objects.for_tenant(tenant).filter(execution=execution).exclude(status="pending").exists()


def test_an_llm_planned_plan_within_budget_runs(tenant, operator, fast, django_capture_on_commit_callbacks):
    ids = make_batch_world(tenant, 4)
    plan = plan_from_steps(tenant=tenant, actor=operator, template="llm:test", steps=batch_steps(ids, "training"),
                           allow_partial=True, planner="llm")
    execution = start_inline(django_capture_on_commit_callbacks, plan, tenant=tenant, actor=operator)
    assert execution.status == "completed"
    assert RuntimeExecution.objects.for_tenant(tenant).get(execution=execution).llm_calls == 1


def test_more_batch_items_than_max_items_stop_the_batch_before_the_step_starts(
        tenant, operator, fast, settings, django_capture_on_commit_callbacks):
    settings.RUNTIME_BUDGET = {"max_items": 50}
    ids = make_batch_world(tenant, 20)  # 4 batch steps × 20 permits = 80 items
    plan, receipt = batch_plan(tenant=tenant, actor=operator, ids=ids)
    execution = start_inline(django_capture_on_commit_callbacks, plan, receipt, tenant=tenant, actor=operator)
    runs = {r.step_id: r for r in execution.step_runs.all()}
    assert (runs["training"].status, runs["risk"].status) == ("completed", "completed")
    assert (runs["compliance"].status, runs["compliance"].error["code"]) == ("failed", "BUDGET_ITEMS")
    assert not BatchItem.objects.for_tenant(tenant).filter(execution=execution, step_id="compliance").exists()
    assert runs["decision"].status == "skipped" and not PermitEvaluation.objects.for_tenant(tenant).exists()
    assert (execution.status, execution.needs_review) == ("partially_completed", True)
    assert RuntimeAdaptation.objects.for_tenant(tenant).filter(execution=execution, new="FAILED",
                                                               reason="BUDGET_ITEMS").exists()
