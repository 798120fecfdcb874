"""The batch plan template (PRD-034 §110-§111): N permits pinned as targets, checks then decision."""

from __future__ import annotations

import pytest

from planning.exceptions import PlanInvalid
from planning.intents import StructuredIntent
from planning.selectors import plan_steps
from planning.services import plan_from_intent, plan_from_steps


def _batch(tenant, actor, ids):
    return plan_from_intent(tenant=tenant, actor=actor,
                            intent=StructuredIntent(name="workPermit.evaluateBatch", slots={"permit_ids": ids}))


def test_a_batch_evaluation_pins_every_permit_as_a_target_of_each_step(registry, tenant, operator):
    plan = _batch(tenant, operator, list(range(40, 0, -1)))
    steps = {s.step_id: s for s in plan_steps(plan=plan)}
    assert list(steps) == ["training", "risk", "compliance", "decision"]
    assert steps["decision"].depends_on == ["training", "risk", "compliance"]
    assert all(s.for_each == "${targets}" for s in steps.values())
    assert [t["id"] for t in steps["training"].targets] == list(range(1, 41))
    assert steps["decision"].input["risk_level"] == "${item.results.risk.level}"
    # 40 permits: policy's batch rule raises the decision's risk, so a confirmation is always needed.
    assert (plan.allow_partial, plan.requires_confirmation, plan.risk) == (True, True, "medium")


def test_the_scope_of_a_batch_is_part_of_its_hash(registry, tenant, operator):
    assert _batch(tenant, operator, [1, 2, 3]).canonical_hash != _batch(tenant, operator, [1, 2, 4]).canonical_hash


@pytest.mark.parametrize("ids, code", [([], "SLOT_MISSING"), (["1"], "SLOT_INVALID")])
def test_a_batch_without_a_proper_scope_is_refused(registry, tenant, operator, ids, code):
    with pytest.raises(PlanInvalid) as caught:
        _batch(tenant, operator, ids)
    assert caught.value.reasons[0]["code"] == code


def test_a_batch_step_needs_between_one_and_two_hundred_targets(registry, tenant, operator):
    with pytest.raises(PlanInvalid) as caught:
        plan_from_steps(tenant=tenant, actor=operator, template="x", steps=[
            {"id": "a", "capability": "workPermit.checkTraining", "input": {"permit_id": "${item.id}"},
             "for_each": "${targets}", "targets": []}])
    assert "BATCH_EMPTY" in [r["code"] for r in caught.value.reasons]
    too_many = [{"type": "workPermit", "id": i} for i in range(1, 202)]
    with pytest.raises(PlanInvalid) as caught:
        plan_from_steps(tenant=tenant, actor=operator, template="x", steps=[
            {"id": "a", "capability": "workPermit.checkTraining", "input": {"permit_id": "${item.id}"},
             "for_each": "${targets}", "targets": too_many}])
    assert "BATCH_TOO_LARGE" in [r["code"] for r in caught.value.reasons]


# --- a target's own args (planning.batch): what a batch undo needs besides the target's id ------------


def _removal(targets):
    return [{"id": "undo", "capability": "workPermit.evaluations.remove", "for_each": "${targets}",
             "input": {"permit_id": "${item.id}", "evaluation_id": "${item.args.evaluation_id}"},
             "targets": targets}]


def test_a_targets_args_are_pinned_with_it_and_part_of_the_hash(registry, tenant, operator):
    def plan(second):
        return plan_from_steps(tenant=tenant, actor=operator, template="undo", allow_partial=True, steps=_removal([
            {"type": "workPermit", "id": 7, "args": {"evaluation_id": 70}},
            {"type": "workPermit", "id": 8, "args": {"evaluation_id": second}}]))
    first = plan(80)
    [step] = plan_steps(plan=first)
    assert step.targets == [{"type": "workPermit", "id": 7, "args": {"evaluation_id": 70}},
                            {"type": "workPermit", "id": 8, "args": {"evaluation_id": 80}}]
    assert first.canonical_hash != plan(81).canonical_hash  # another row removed: another plan to approve


@pytest.mark.parametrize("targets, code", [
    ([{"type": "workPermit", "id": 7}], "INPUT_INVALID"),  # the row to remove is not named
    ([{"type": "workPermit", "id": 7, "args": {"evaluation_id": "x"}}], "INPUT_INVALID"),
    ([{"type": "workPermit", "id": 7, "args": {"evaluation_id": 1}},
      {"type": "workPermit", "id": 8, "args": {"evaluation_id": 0}}], "INPUT_INVALID"),  # each target checked
    ([{"type": "workPermit", "id": 7, "args": [70]}], "BATCH_TARGET_ARGS_INVALID"),
])
def test_each_targets_call_is_validated_with_its_own_args(registry, tenant, operator, targets, code):
    with pytest.raises(PlanInvalid) as caught:
        plan_from_steps(tenant=tenant, actor=operator, template="undo", steps=_removal(targets))
    assert code in [r["code"] for r in caught.value.reasons], caught.value.reasons
