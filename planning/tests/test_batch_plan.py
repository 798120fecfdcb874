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
