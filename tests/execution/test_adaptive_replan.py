"""Runtime replanning (PRD-034 §55-§60, §115-§116): the planner's alternatives, the material-change
classification, and what each outcome does to a running batch — in place (same receipt), a new plan
that needs a new policy decision and confirmation, or waiting and then human review.

Resources go down through the SST fault injector; the batch runs inline (eager) on PostgreSQL with
the lanes in Redis."""

from __future__ import annotations

import json
import uuid

import pytest

from execution.models import (
    BatchItem,
    Execution,
    RuntimeAdaptation,
    RuntimeExecution,
    RuntimeReplan,
    TimelineEntry,
)
from execution.replan import plan_change_impact
from planning.models import ExecutionPlan
from planning.replan import Progress, deferral, remaining_targets, standalone
from planning.services import plan_from_steps
from policy.models import PolicyReceipt
from sst.faults import fault_add
from sst.models import PermitEvaluation, WorkPermit

from .batch_helpers import (  # noqa: F401 - fixtures
    batch_plan,
    batch_steps,
    duplicate_effects,
    lanes,
    make_batch_world,
    start_inline,
)

pytestmark = pytest.mark.usefixtures("registry", "eager", "lanes")


# --- the planner's alternatives and the classification (pure) ---------------------------------


def _targets(*ids):
    return [{"type": "workPermit", "id": i} for i in ids]


EVALUATE = batch_steps(range(1, 7), "training", "risk", "compliance", decision=True)
ALL = frozenset(range(1, 7))


def test_in_place_deferral_keeps_what_can_still_reach_the_decision_and_defers_the_rest():
    progress = Progress(completed={"training": ALL, "risk": ALL, "compliance": frozenset({1, 2})},
                        remaining={"training": frozenset(), "risk": frozenset(), "compliance": frozenset({3, 4, 5, 6}),
                                   "decision": ALL})
    alternative = deferral(EVALUATE, {"compliance"}, progress)
    assert [(s["id"], [t["id"] for t in s["targets"]]) for s in alternative.steps] == [("decision", [1, 2])]
    assert alternative.deferred == {"compliance": [3, 4, 5, 6], "decision": [3, 4, 5, 6]}
    assert remaining_targets(EVALUATE, progress) == [1, 2, 3, 4, 5, 6]
    # A new plan could not use this execution's compliance results: nothing reaches the decision.
    assert standalone(EVALUATE, {"compliance"}, progress) is None


def test_no_alternative_when_no_item_can_reach_the_end_of_the_plan():
    progress = Progress(completed={"training": ALL, "risk": ALL}, remaining={
        "training": frozenset(), "risk": frozenset(), "compliance": ALL, "decision": ALL})
    assert deferral(EVALUATE, {"compliance"}, progress) is None
    single = batch_steps(range(1, 7), "training")
    assert deferral(single, {"training"}, Progress({}, {"training": ALL})) is None


def test_a_standalone_alternative_keeps_only_the_steps_independent_of_the_blocked_one():
    steps = batch_steps([1, 2, 3], "training", "risk")
    alternative = standalone(steps, {"training"}, Progress({"risk": frozenset({1})}, {
        "training": frozenset({1, 2, 3}), "risk": frozenset({2, 3})}))
    assert [(s["id"], [t["id"] for t in s["targets"]]) for s in alternative.steps] == [("risk", [2, 3])]
    assert alternative.deferred == {"training": [1, 2, 3]}


def _resource(step):
    return {"workPermit.checkCompliance": "compliance-api"}.get(step["capability"], "sst-api")


def test_deferring_part_of_the_approved_work_is_material_only_where_partial_success_was_not_approved():
    todo = [{**s, "targets": _targets(3, 4)} for s in EVALUATE if s["id"] in ("compliance", "decision")]
    kept = [{**EVALUATE[3], "targets": _targets(3)}]
    impact = plan_change_impact(todo, kept, old_risk=1, new_risk=1, resources_of=_resource)
    assert (impact.changed_steps, impact.deferred_steps, impact.scope_delta) == ((), ("compliance", "decision"), -1)
    assert not impact.requires_reapproval
    strict = plan_change_impact(todo, kept, old_risk=1, new_risk=1, resources_of=_resource, allow_partial=False)
    assert strict.partial_not_allowed and strict.requires_reapproval


@pytest.mark.parametrize("change, flag", [
    (lambda s: {**s, "input": {**s["input"], "trained": False}}, "changed_steps"),
    (lambda s: {**s, "targets": _targets(3, 4, 99)}, "scope_delta"),
    (lambda s: {**s, "capability": "workPermit.checkCompliance"}, "changed_resources"),
])
def test_a_changed_input_a_wider_scope_or_a_new_resource_is_material(change, flag):
    todo = [{**EVALUATE[3], "targets": _targets(3, 4)}]
    impact = plan_change_impact(todo, [change(todo[0])], old_risk=1, new_risk=1, resources_of=_resource)
    assert impact.requires_reapproval and getattr(impact, flag)


# --- what a replan does to a running batch ----------------------------------------------------


@pytest.fixture
def faults(settings):
    settings.SST_FAULT_INJECTION = True
    settings.RUNTIME_REPLAN_AFTER_SECONDS = 0
    settings.RUNTIME_MAX_WAIT_SECONDS = 1


def _down(tenant, route, permits=None):
    """The route answers 503 — for the named permits only, or for every call."""
    for number in permits or [None]:
        fault_add(tenant=tenant, route=route, status=503, match={"permit": number} if number else None)


def test_a_non_material_replan_continues_under_the_same_receipt_and_defers_what_needs_the_lost_resource(
        tenant, operator, faults, django_capture_on_commit_callbacks):
    ids = make_batch_world(tenant, 30)
    numbers = list(WorkPermit.objects.for_tenant(tenant).filter(pk__in=ids[10:]).values_list("number", flat=True))
    for route in ("sst:permit-compliance", "sst:permit-compliance-secondary"):
        _down(tenant, route, numbers)  # both compliance sources fail for the last 20 permits
    plan, receipt = batch_plan(tenant=tenant, actor=operator, ids=ids, conversation_id=uuid.uuid4())
    execution = start_inline(django_capture_on_commit_callbacks, plan, receipt, tenant=tenant, actor=operator)

    assert (execution.status, execution.needs_review) == ("partially_completed", False), execution.error
    assert set(PermitEvaluation.objects.for_tenant(tenant).values_list("permit_id", flat=True)) == set(ids[:10])
    assert duplicate_effects(tenant) == 0
    (replan,) = RuntimeReplan.objects.for_tenant(tenant).filter(execution=execution)
    assert (replan.outcome, replan.strategy, replan.plan_id) == ("CONTINUED", "DEFER", None)
    assert replan.impact["requires_reapproval"] is False and replan.impact["changed_steps"] == []
    deferred = set(replan.deferred["compliance"])
    assert deferred and deferred <= set(ids[10:])
    codes = {(i.error or {}).get("code") for i in BatchItem.objects.for_tenant(tenant).filter(
        execution=execution, step_id="compliance", target_id__in=deferred)}
    assert codes == {"DEFERRED"}
    assert ExecutionPlan.objects.for_tenant(tenant).count() == 1  # no new plan, the same receipt
    types = list(TimelineEntry.objects.for_tenant(tenant).filter(execution=execution).values_list("type", flat=True))
    assert types.index("REPLAN_REQUESTED") < types.index("REPLAN_DECIDED")


def test_a_material_replan_stores_a_new_plan_with_a_new_policy_decision_and_runs_none_of_it(
        tenant, operator, faults, django_capture_on_commit_callbacks):
    ids = make_batch_world(tenant, 8)
    _down(tenant, "sst:permit-training")  # no fallback is registered for training
    plan = plan_from_steps(tenant=tenant, actor=operator, template="test.twoChecks",
                           steps=batch_steps(ids, "training", "risk"), allow_partial=False,
                           conversation_id=uuid.uuid4())
    execution = start_inline(django_capture_on_commit_callbacks, plan, tenant=tenant, actor=operator)

    (replan,) = RuntimeReplan.objects.for_tenant(tenant).filter(execution=execution)
    assert (replan.outcome, replan.strategy, replan.depth) == ("REAPPROVAL_REQUIRED", "DEFER", 1)
    assert replan.impact["partial_not_allowed"] and replan.impact["deferred_steps"] == ["training"]
    new = replan.plan
    assert (new.template, new.conversation_id, new.status) == ("test.twoChecks.replan", plan.conversation_id,
                                                               "approved")
    steps = list(new.steps.values_list("step_id", "capability_id"))
    assert steps == [("risk", "workPermit.assessRisk")]
    assert {t["id"] for t in new.steps.get().targets} <= set(ids)
    # A new policy evaluation of the new plan, recorded as a PLANNING decision; material → confirm anyway.
    decision = PolicyReceipt.objects.for_tenant(tenant).get(pk=replan.decision["receipt_id"])
    assert (decision.plan_id, decision.plan_hash) == (new.pk, new.canonical_hash)
    assert replan.decision["level"] == "soft"
    assert not Execution.objects.for_tenant(tenant).filter(plan=new).exists()
    training = execution.step_runs.get(step_id="training")
    assert training.error["code"] == "REPLANNED"
    assert execution.needs_review is False  # the user is asked instead


def test_with_no_alternative_the_batch_waits_then_asks_for_human_review(
        tenant, operator, faults, django_capture_on_commit_callbacks):
    ids = make_batch_world(tenant, 6)
    _down(tenant, "sst:permit-training")
    plan = plan_from_steps(tenant=tenant, actor=operator, template="test.training",
                           steps=batch_steps(ids, "training"), allow_partial=True)
    execution = start_inline(django_capture_on_commit_callbacks, plan, tenant=tenant, actor=operator)
    (replan,) = RuntimeReplan.objects.for_tenant(tenant).filter(execution=execution)
    assert (replan.outcome, replan.code) == ("NO_ALTERNATIVE", "NO_ALTERNATIVE")
    assert (execution.status, execution.needs_review) == ("failed", True)
    assert execution.step_runs.get().error["code"] == "RESOURCE_UNAVAILABLE"


# --- the LLM planner on replanning, inside the execution's budget ------------------------------


def _llm_plan(step_ids=("risk", "compliance")):
    """What a model might propose without training: decide conservatively (trained = false)."""
    steps = [{"id": s, "capability": {"risk": "workPermit.assessRisk", "compliance": "workPermit.checkCompliance"}[s],
              "input": {"permit_id": "${item.id}"}, "for_each": "${targets}",
              "targets": [{"type": "workPermit", "id": 999999}]} for s in step_ids]
    steps.append({"id": "decision", "capability": "workPermit.recordDecision", "depends_on": list(step_ids),
                  "for_each": "${targets}", "input": {
                      "permit_id": "${item.id}", "trained": False, "risk_level": "${item.results.risk.level}",
                      "compliant": "${item.results.compliance.compliant}"}})
    return json.dumps({"steps": steps, "allow_partial": True})


def test_the_llm_planner_is_asked_only_when_nothing_deterministic_remains_and_its_call_is_counted(
        tenant, operator, faults, fake_llm, django_capture_on_commit_callbacks):
    ids = make_batch_world(tenant, 6)
    _down(tenant, "sst:permit-training")  # nothing can reach the decision without training
    fake_llm.content = _llm_plan()
    plan, receipt = batch_plan(tenant=tenant, actor=operator, ids=ids, conversation_id=uuid.uuid4())
    execution = start_inline(django_capture_on_commit_callbacks, plan, receipt, tenant=tenant, actor=operator)

    assert len(fake_llm.requests) == 1
    offered = {c["id"] for c in fake_llm.last_user_message["capabilities"]}
    assert "workPermit.checkTraining" not in offered and "workPermit.assessRisk" in offered
    runtime = RuntimeExecution.objects.for_tenant(tenant).get(execution=execution)
    assert runtime.llm_calls == 1 and runtime.replans == 1
    (replan,) = RuntimeReplan.objects.for_tenant(tenant).filter(execution=execution)
    assert (replan.outcome, replan.strategy) == ("REAPPROVAL_REQUIRED", "LLM")
    assert replan.impact["changed_steps"] == ["decision"]  # trained = false instead of the check's result
    new = replan.plan
    assert new.planner == "llm"
    # The scope is the runtime's: the remaining permits, never the model's 999999.
    assert {t["id"] for s in new.steps.all() for t in s.targets} == set(ids)
    assert not PermitEvaluation.objects.for_tenant(tenant).exists()  # nothing runs before a confirmation


def test_without_llm_budget_the_planner_is_not_called_and_a_person_reviews(
        tenant, operator, faults, fake_llm, settings, django_capture_on_commit_callbacks):
    settings.RUNTIME_BUDGET = {"max_llm_calls": 0}
    ids = make_batch_world(tenant, 6)
    _down(tenant, "sst:permit-training")
    fake_llm.content = _llm_plan()
    plan, receipt = batch_plan(tenant=tenant, actor=operator, ids=ids, conversation_id=uuid.uuid4())
    execution = start_inline(django_capture_on_commit_callbacks, plan, receipt, tenant=tenant, actor=operator)
    assert fake_llm.requests == []
    assert RuntimeAdaptation.objects.for_tenant(tenant).filter(execution=execution, kind="BUDGET",
                                                               reason="BUDGET_LLM_CALLS").exists()
    assert RuntimeReplan.objects.for_tenant(tenant).get(execution=execution).outcome == "NO_ALTERNATIVE"
    assert (execution.status, execution.needs_review) == ("failed", True)
