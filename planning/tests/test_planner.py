from __future__ import annotations

import pytest

from planning.exceptions import PlanInvalid
from planning.intents import StructuredIntent, TargetRef
from planning.models import PlanStatus
from planning.selectors import plan_steps
from planning.services import plan_from_intent, plan_from_steps

PERMIT = TargetRef(type="workPermit", id=12, revision=4, label="77")


def _steps(plan):
    return {s.step_id: s for s in plan_steps(plan=plan)}


def test_one_capability_becomes_a_single_step_plan_pinned_to_the_target_revision(registry, tenant, operator):
    intent = StructuredIntent(name="workPermit.updateValidity", slots={"validity_days": 30}, targets={"permit": PERMIT})
    plan = plan_from_intent(tenant=tenant, actor=operator, intent=intent)
    (only,) = plan_steps(plan=plan)
    assert (only.capability_id, only.input) == ("workPermit.updateValidity",
                                               {"validity_days": 30, "permit_id": 12, "expected_revision": 4})
    assert only.targets == [{"type": "workPermit", "id": 12, "revision": 4}]
    assert (plan.risk, plan.requires_confirmation, plan.status) == ("medium", True, PlanStatus.AWAITING_CONFIRMATION)


def test_a_read_plan_needs_no_confirmation(registry, tenant, viewer):
    plan = plan_from_intent(tenant=tenant, actor=viewer,
                            intent=StructuredIntent(name="workPermit.open", targets={"permit": PERMIT}))
    steps = _steps(plan)
    assert [s.capability_id for s in steps.values()] == ["workPermit.read", "navigation.workPermit.open"]
    assert (plan.risk, plan.requires_confirmation, plan.status) == ("read", False, PlanStatus.APPROVED)


def test_clone_with_changes_reads_and_resolves_in_parallel_then_chains_revisions(registry, tenant, operator):
    intent = StructuredIntent(name="workPermit.cloneWithChanges", slots={"responsible": 5, "validity_days": 30},
                              targets={"permit": PERMIT})
    steps = _steps(plan_from_intent(tenant=tenant, actor=operator, intent=intent))
    assert list(steps) == ["read", "resolve", "create", "copy", "update_responsible", "update_validity", "verify"]
    assert steps["read"].depends_on == [] and steps["resolve"].depends_on == []
    assert steps["create"].depends_on == ["read", "resolve"]
    assert steps["copy"].for_each == "${steps.read.result.components}"
    assert steps["update_validity"].input["expected_revision"] == "${steps.update_responsible.result.revision}"
    assert steps["create"].compensation["capability"] == "workPermit.delete"


def test_n_components_are_n_independent_steps_that_may_partially_succeed(registry, tenant, operator):
    intent = StructuredIntent(name="workPermit.components.addMany", targets={"permit": PERMIT},
                              slots={"components": ["hotWork", "electricity", "excavation"]})
    plan = plan_from_intent(tenant=tenant, actor=operator, intent=intent)
    steps = _steps(plan)
    assert plan.allow_partial is True and len(steps) == 3
    assert all(s.depends_on == [] and "expected_revision" not in s.input for s in steps.values())
    # sub-resource additions cannot conflict: no revision pinned for policy either
    assert all(s.targets == [{"type": "workPermit", "id": 12}] for s in steps.values())


def test_the_same_intent_twice_has_the_same_hash_and_another_value_another(registry, tenant, operator):
    def plan(days):
        intent = StructuredIntent(name="workPermit.updateValidity", slots={"validity_days": days},
                                  targets={"permit": PERMIT})
        return plan_from_intent(tenant=tenant, actor=operator, intent=intent)

    first, second, other = plan(30), plan(30), plan(31)
    assert first.pk != second.pk and first.canonical_hash == second.canonical_hash != other.canonical_hash


def _invalid(tenant, actor, steps):
    with pytest.raises(PlanInvalid) as caught:
        plan_from_steps(tenant=tenant, actor=actor, steps=steps, template="test")
    return [r["code"] for r in caught.value.reasons]


def test_a_cycle_is_plan_invalid(registry, tenant, operator):
    codes = _invalid(tenant, operator, [
        {"id": "a", "capability": "workPermit.read", "input": {"permit_id": 1}, "depends_on": ["b"]},
        {"id": "b", "capability": "workPermit.read", "input": {"permit_id": 1}, "depends_on": ["a"]}])
    assert codes == ["DEPENDENCY_CYCLE"]


def test_a_reference_to_an_unknown_step_is_plan_invalid(registry, tenant, operator):
    codes = _invalid(tenant, operator, [
        {"id": "a", "capability": "navigation.workPermit.open", "input": {"permit_id": "${steps.ghost.result.id}"}}])
    assert codes == ["REFERENCE_UNKNOWN_STEP"]


def test_a_reference_to_a_step_that_does_not_run_earlier_is_plan_invalid(registry, tenant, operator):
    codes = _invalid(tenant, operator, [
        {"id": "a", "capability": "workPermit.read", "input": {"permit_id": 1}},
        {"id": "b", "capability": "navigation.workPermit.open", "input": {"permit_id": "${steps.a.result.id}"}}])
    assert codes == ["REFERENCE_NOT_EARLIER"]


def test_a_reference_to_an_undeclared_output_is_plan_invalid(registry, tenant, operator):
    codes = _invalid(tenant, operator, [
        {"id": "a", "capability": "workPermit.read", "input": {"permit_id": 1}},
        {"id": "b", "capability": "navigation.workPermit.open", "input": {"permit_id": "${steps.a.result.secret}"},
         "depends_on": ["a"]}])
    assert codes == ["REFERENCE_UNDECLARED_OUTPUT"]


def test_a_reference_of_the_wrong_type_fails_the_input_schema(registry, tenant, operator):
    codes = _invalid(tenant, operator, [
        {"id": "a", "capability": "workPermit.read", "input": {"permit_id": 1}},
        {"id": "b", "capability": "navigation.workPermit.open", "input": {"permit_id": "${steps.a.result.number}"},
         "depends_on": ["a"]}])
    assert codes == ["INPUT_INVALID"]


def test_unknown_capabilities_bad_input_and_a_chosen_tenant_are_all_reported(registry, tenant, operator):
    codes = _invalid(tenant, operator, [
        {"id": "a", "capability": "workPermit.launchMissiles", "input": {}},
        {"id": "b", "capability": "workPermit.updateValidity", "input": {"permit_id": 1, "validity_days": 0}},
        {"id": "c", "capability": "workPermit.read", "input": {"permit_id": 1, "tenant": "other"}},
        {"id": "d", "capability": "workPermit.read", "input": {"permit_id": 1}, "depends_on": ["zz"]}])
    assert sorted(codes) == sorted(["CAPABILITY_UNAVAILABLE", "INPUT_INVALID", "FORBIDDEN_OPERATION",
                                    "INPUT_INVALID", "DEPENDENCY_UNKNOWN"])


def test_a_suspended_capability_cannot_be_planned(registry, tenant, operator):
    from registry.models import CapabilityStatus, CapabilityVersion
    from registry.selectors import snapshot_clear

    CapabilityVersion.objects.filter(capability__key="workPermit.updateValidity").update(
        status=CapabilityStatus.SUSPENDED)
    snapshot_clear()
    intent = StructuredIntent(name="workPermit.renewIfExpired", slots={"validity_days": 30}, targets={"permit": PERMIT})
    with pytest.raises(PlanInvalid) as caught:
        plan_from_intent(tenant=tenant, actor=operator, intent=intent)
    assert [r["code"] for r in caught.value.reasons] == ["CAPABILITY_UNAVAILABLE"]


def test_create_and_open_ends_with_the_navigation_capability(registry, tenant, operator):
    intent = StructuredIntent(name="workPermit.createAndOpen", slots={"company": 3, "validity_days": 10})
    steps = _steps(plan_from_intent(tenant=tenant, actor=operator, intent=intent))
    assert steps["open"].capability_id == "navigation.workPermit.open"
    assert steps["open"].input == {"permit_id": "${steps.create.result.id}"}


def test_an_intent_without_a_template_and_without_an_llm_is_plan_invalid(registry, tenant, operator, settings):
    settings.LLM_BASE_URL = None
    with pytest.raises(PlanInvalid) as caught:
        plan_from_intent(tenant=tenant, actor=operator, intent=StructuredIntent(name="adaptForMaintenance"))
    assert caught.value.reasons[0]["code"] == "NO_PLAN_FOR_INTENT"
