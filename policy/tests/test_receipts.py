"""Receipt lifecycle and every fail-closed path of revalidate."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.contrib.auth.models import Permission
from django.utils import timezone

from conftest import make_user
from policy.models import Outcome, PolicyReceipt, ReceiptCheck, Scope, Stage
from policy.services import Approval, decision_record, kill_switch_set, receipt_issue, revalidate
from tenancy.models import Membership, Role

from .factories import activate_next_version, facts_for, plan_hash, step, suspend

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
INPUT = {"id": 1, "validity_days": 10}


def _approval(actor, plan_id, level="soft", hash_text="plan", **extra):
    return Approval(confirmation_id=uuid.uuid4(), plan_id=plan_id, plan_hash=plan_hash(hash_text), level=level,
                    approved_by=actor.pk, approved_at=timezone.now(), **extra)


def _issue(actor, tenant, plan_id, cap, *, level="soft", facts=None):
    return receipt_issue(actor=actor, tenant=tenant, plan_id=plan_id, plan_hash=plan_hash(), steps=[step(cap)],
                         facts=facts or facts_for(tenant, ("workPermit", 1)), approval=_approval(actor, plan_id, level))


def _revalidate(receipt, actor, tenant, plan_id, cap, **overrides):
    kwargs = {"receipt_id": receipt.pk, "actor": actor, "tenant": tenant, "plan_id": plan_id, "step_id": "s1",
              "capability": f"{cap.capability.key}@{cap.version}", "input": INPUT,
              "facts": facts_for(tenant, ("workPermit", 1)), "execution_started_at": timezone.now()}
    kwargs.update(overrides)
    return revalidate(**kwargs)


@pytest.fixture
def issued(operator, tenant, caps, plan_id):
    with time_machine.travel(T0, tick=False):
        return _issue(operator, tenant, plan_id, caps["validity"])


# --- issuing -------------------------------------------------------------------------------------


def test_planning_records_every_decision(operator, viewer, tenant, caps, plan_id):
    decision, receipt = decision_record(actor=operator, tenant=tenant, plan_id=plan_id, plan_hash=plan_hash(),
                                        steps=[step(caps["validity"])], facts=facts_for(tenant, ("workPermit", 1)))
    assert (receipt.stage, receipt.decision, receipt.level) == (Stage.PLANNING, Outcome.REQUIRE_CONFIRMATION, "soft")
    assert receipt.expires_at is None
    _, denied = decision_record(actor=viewer, tenant=tenant, plan_id=plan_id, plan_hash=plan_hash(),
                                steps=[step(caps["validity"])], facts=facts_for(tenant, ("workPermit", 1)))
    assert denied.decision == Outcome.DENY and denied.reasons[0]["code"] == "PERMISSION_MISSING"


def test_confirming_issues_an_allow_receipt_bound_to_everything(issued, operator, tenant, plan_id, caps):
    assert issued.decision == Outcome.ALLOW and issued.stage == Stage.CONFIRMATION
    assert (issued.tenant_id, issued.actor_id, issued.plan_id) == (tenant.pk, operator.pk, plan_id)
    binding = issued.steps["s1"]
    assert (binding["capability"], binding["version"]) == ("workPermit.updateValidity", caps["validity"].version)
    assert len(binding["input_hash"]) == 64 and len(issued.approval_hash) == 64
    assert issued.expires_at - issued.issued_at == timedelta(minutes=5)


def test_the_ttl_is_configurable(settings, operator, tenant, caps, plan_id):
    settings.POLICY_RECEIPT_TTL_SECONDS = 30
    receipt = _issue(operator, tenant, plan_id, caps["validity"])
    assert receipt.expires_at - receipt.issued_at == timedelta(seconds=30)


def test_a_soft_approval_cannot_release_a_strong_plan(supervisor, tenant, caps, plan_id):
    receipt = _issue(supervisor, tenant, plan_id, caps["delete"], level="soft")
    assert receipt.decision == Outcome.DENY
    assert receipt.reasons[-1]["code"] == "CONFIRMATION_LEVEL_INSUFFICIENT"


def test_an_approval_given_by_someone_else_or_for_another_plan_is_refused(operator, supervisor, tenant, caps, plan_id):
    foreign = _approval(supervisor, plan_id)
    receipt = receipt_issue(actor=operator, tenant=tenant, plan_id=plan_id, plan_hash=plan_hash(),
                            steps=[step(caps["validity"])], facts=facts_for(tenant, ("workPermit", 1)),
                            approval=foreign)
    assert receipt.decision == Outcome.DENY and receipt.reasons[-1]["code"] == "APPROVAL_NOT_BY_ACTOR"
    other_plan = _approval(operator, plan_id, hash_text="another plan")
    receipt = receipt_issue(actor=operator, tenant=tenant, plan_id=plan_id, plan_hash=plan_hash(),
                            steps=[step(caps["validity"])], facts=facts_for(tenant, ("workPermit", 1)),
                            approval=other_plan)
    assert receipt.reasons[-1]["code"] == "APPROVAL_PLAN_MISMATCH"


def test_confirmation_re_evaluates_on_the_facts_read_now(operator, tenant, caps, plan_id):
    approved_meanwhile = facts_for(tenant, ("workPermit", 1), status="APPROVED")
    receipt = _issue(operator, tenant, plan_id, caps["validity"], facts=approved_meanwhile)
    assert receipt.decision == Outcome.DENY and receipt.reasons[0]["code"] == "PERMIT_APPROVED"


# --- revalidate: the happy path and time -----------------------------------------------------------


def test_a_matching_receipt_passes_and_the_check_is_recorded(issued, operator, tenant, plan_id, caps):
    with time_machine.travel(T0 + timedelta(seconds=10), tick=False):
        result = _revalidate(issued, operator, tenant, plan_id, caps["validity"])
    assert (result.ok, result.code) == (True, "OK")
    check = ReceiptCheck.objects.for_tenant(tenant).get(pk=result.check_id)
    assert (check.receipt_id, check.ok, check.step_id) == (issued.pk, True, "s1")


def test_the_same_input_with_keys_reordered_or_nfd_strings_still_matches(operator, tenant, caps, plan_id):
    with time_machine.travel(T0, tick=False):
        receipt = receipt_issue(actor=operator, tenant=tenant, plan_id=plan_id, plan_hash=plan_hash(),
                                steps=[step(caps["validity"], input={"id": 1, "note": "Açaí"})],
                                facts=facts_for(tenant, ("workPermit", 1)), approval=_approval(operator, plan_id))
        raw = '{"note": "Ac\u0327ai\u0301", "id": 1.0}'.encode()
        result = _revalidate(receipt, operator, tenant, plan_id, caps["validity"], input=raw)
    assert result.ok, result


def test_one_byte_of_input_changed_after_approval_is_refused(issued, operator, tenant, plan_id, caps):
    with time_machine.travel(T0, tick=False):
        result = _revalidate(issued, operator, tenant, plan_id, caps["validity"],
                             input=b'{"id": 1, "validity_days": 19}')
    assert (result.ok, result.code) == (False, "RECEIPT_INPUT_MISMATCH")


def test_a_raw_input_with_duplicate_keys_is_refused(issued, operator, tenant, plan_id, caps):
    with time_machine.travel(T0, tick=False):
        result = _revalidate(issued, operator, tenant, plan_id, caps["validity"],
                             input=b'{"id": 1, "validity_days": 99, "validity_days": 10}')
    assert (result.ok, result.code) == (False, "INPUT_NOT_CANONICAL")
    assert ReceiptCheck.objects.for_tenant(tenant).get(pk=result.check_id).ok is False


def test_an_execution_started_one_second_after_expiry_is_refused(issued, operator, tenant, plan_id, caps):
    started = issued.expires_at + timedelta(seconds=1)
    with time_machine.travel(started + timedelta(seconds=1), tick=False):
        result = _revalidate(issued, operator, tenant, plan_id, caps["validity"], execution_started_at=started)
    assert (result.ok, result.code) == (False, "RECEIPT_EXPIRED")


def test_a_long_execution_started_in_time_keeps_running_past_the_expiry(issued, operator, tenant, plan_id, caps):
    started = issued.expires_at - timedelta(seconds=1)
    for elapsed in (timedelta(seconds=0), timedelta(minutes=10), timedelta(hours=2)):
        with time_machine.travel(started + elapsed, tick=False):
            result = _revalidate(issued, operator, tenant, plan_id, caps["validity"], execution_started_at=started)
        assert result.ok, (elapsed, result)


def test_a_long_execution_still_stops_when_a_live_check_fails(issued, operator, tenant, plan_id, caps):
    started = issued.issued_at + timedelta(seconds=5)
    with time_machine.travel(started + timedelta(hours=1), tick=False):
        suspend(caps["validity"])
        result = _revalidate(issued, operator, tenant, plan_id, caps["validity"], execution_started_at=started)
    assert (result.ok, result.code) == (False, "CAPABILITY_NOT_ACTIVE")


@pytest.mark.parametrize("shift", [timedelta(seconds=-1), timedelta(minutes=1)])
def test_a_start_time_before_issue_or_in_the_future_is_refused(issued, operator, tenant, plan_id, caps, shift):
    with time_machine.travel(T0, tick=False):
        result = _revalidate(issued, operator, tenant, plan_id, caps["validity"], execution_started_at=T0 + shift)
    assert (result.ok, result.code) == (False, "EXECUTION_START_INVALID")


# --- revalidate: bindings ----------------------------------------------------------------------------


def test_a_receipt_of_another_tenant_is_not_found(issued, tenant, other_tenant, other_user, plan_id, caps):
    with time_machine.travel(T0, tick=False):
        result = _revalidate(issued, other_user, other_tenant, plan_id, caps["validity"],
                             facts=facts_for(other_tenant, ("workPermit", 1)))
    assert (result.ok, result.code) == (False, "RECEIPT_NOT_FOUND")
    check = ReceiptCheck.objects.for_tenant(other_tenant).get(pk=result.check_id)
    assert check.receipt_id is None and check.receipt_ref == str(issued.pk)


def test_a_receipt_of_another_actor_is_refused(issued, tenant, plan_id, caps):
    colleague = make_user(tenant, Role.OPERATOR)
    with time_machine.travel(T0, tick=False):
        result = _revalidate(issued, colleague, tenant, plan_id, caps["validity"])
    assert (result.ok, result.code) == (False, "RECEIPT_ACTOR_MISMATCH")


def test_a_receipt_of_another_plan_or_step_is_refused(issued, operator, tenant, plan_id, caps):
    with time_machine.travel(T0, tick=False):
        other_plan = _revalidate(issued, operator, tenant, uuid.uuid4(), caps["validity"])
        other_step = _revalidate(issued, operator, tenant, plan_id, caps["validity"], step_id="s2")
    assert other_plan.code == "RECEIPT_PLAN_MISMATCH"
    assert other_step.code == "RECEIPT_STEP_MISMATCH"


def test_a_receipt_for_another_capability_is_refused(issued, operator, tenant, plan_id, caps):
    with time_machine.travel(T0, tick=False):
        result = _revalidate(issued, operator, tenant, plan_id, caps["delete"],
                             capability=("workPermit.delete", caps["delete"].version))
    assert result.code == "RECEIPT_CAPABILITY_MISMATCH"


def test_a_receipt_for_v1_is_refused_when_v2_is_active(issued, operator, tenant, plan_id, caps):
    with time_machine.travel(T0, tick=False):
        activate_next_version(caps["validity"])
        result = _revalidate(issued, operator, tenant, plan_id, caps["validity"])
    assert (result.ok, result.code) == (False, "CAPABILITY_VERSION_STALE")


@pytest.mark.parametrize("forged", [uuid.uuid4(), "not-a-uuid", None, "' OR 1=1 --"])
def test_a_forged_receipt_reference_is_refused_and_recorded(operator, tenant, plan_id, caps, forged):
    result = _revalidate(PolicyReceipt(pk=forged), operator, tenant, plan_id, caps["validity"], receipt_id=forged)
    assert result.code in {"RECEIPT_NOT_FOUND", "RECEIPT_MALFORMED"} and not result.ok
    assert ReceiptCheck.objects.for_tenant(tenant).filter(pk=result.check_id, ok=False).exists()


def test_a_planning_receipt_that_asked_for_confirmation_authorises_nothing(operator, tenant, caps, plan_id):
    _, receipt = decision_record(actor=operator, tenant=tenant, plan_id=plan_id, plan_hash=plan_hash(),
                                 steps=[step(caps["validity"])], facts=facts_for(tenant, ("workPermit", 1)))
    result = _revalidate(receipt, operator, tenant, plan_id, caps["validity"])
    assert result.code == "RECEIPT_NOT_ALLOW"


def test_a_read_plan_runs_on_its_planning_allow_receipt(operator, tenant, caps, plan_id):
    read = step(caps["get"], input=INPUT)
    _, receipt = decision_record(actor=operator, tenant=tenant, plan_id=plan_id, plan_hash=plan_hash(),
                                 steps=[read], facts=facts_for(tenant, ("workPermit", 1)))
    assert receipt.decision == Outcome.ALLOW
    assert _revalidate(receipt, operator, tenant, plan_id, caps["get"]).ok


# --- revalidate: live checks between decision and execution ---------------------------------------------


def test_a_permission_revoked_between_decision_and_execution_fails_closed(issued, operator, tenant, plan_id, caps):
    Membership.objects.filter(user=operator, tenant=tenant).update(role=Role.VIEWER)
    with time_machine.travel(T0, tick=False):
        result = _revalidate(issued, operator, tenant, plan_id, caps["validity"])
    assert (result.ok, result.code) == (False, "PERMISSION_MISSING")


def test_a_membership_removed_between_decision_and_execution_fails_closed(issued, operator, tenant, plan_id, caps):
    Membership.objects.filter(user=operator, tenant=tenant).delete()
    with time_machine.travel(T0, tick=False):
        assert _revalidate(issued, operator, tenant, plan_id, caps["validity"]).code == "NOT_A_MEMBER"


def test_a_capability_suspended_between_decision_and_execution_fails_closed(issued, operator, tenant, plan_id, caps):
    suspend(caps["validity"])
    with time_machine.travel(T0, tick=False):
        assert _revalidate(issued, operator, tenant, plan_id, caps["validity"]).code == "CAPABILITY_NOT_ACTIVE"


@pytest.mark.parametrize(("scope", "target"), [
    (Scope.GLOBAL, ""), (Scope.TENANT, ""), (Scope.CAPABILITY, "workPermit.updateValidity"),
    (Scope.RESOURCE, "sst-api"), (Scope.EXECUTION, "EXECUTION_ID"), (Scope.AGENT, "AGENT_VERSION"),
])
def test_a_kill_switch_raised_between_decision_and_execution_fails_closed(
        issued, operator, tenant, plan_id, caps, settings, scope, target):
    admin = make_user(tenant, Role.ADMIN)
    admin.user_permissions.add(Permission.objects.get(codename="runtime_admin"))
    execution_id = uuid.uuid4()
    target = {"EXECUTION_ID": str(execution_id), "AGENT_VERSION": settings.AGENT_VERSION}.get(target, target)
    kill_switch_set(actor=admin, scope=scope, reason="incident", target=target,
                    tenant=tenant if scope == Scope.TENANT else None)
    with time_machine.travel(T0, tick=False):
        result = revalidate(receipt_id=issued.pk, actor=operator, tenant=tenant, plan_id=plan_id, step_id="s1",
                            capability=("workPermit.updateValidity", caps["validity"].version), input=INPUT,
                            facts=facts_for(tenant, ("workPermit", 1)), execution_started_at=T0,
                            execution_id=execution_id)
    assert (result.ok, result.code) == (False, "KILL_SWITCH")


def test_a_pinned_target_that_moved_or_changed_fails_closed(operator, tenant, other_tenant, caps, plan_id):
    with time_machine.travel(T0, tick=False):
        receipt = receipt_issue(actor=operator, tenant=tenant, plan_id=plan_id, plan_hash=plan_hash(),
                                steps=[step(caps["validity"], revision=3)], facts=facts_for(tenant, ("workPermit", 1)),
                                approval=_approval(operator, plan_id))
        changed = _revalidate(receipt, operator, tenant, plan_id, caps["validity"],
                              facts=facts_for(tenant, ("workPermit", 1), revision=4))
        moved = _revalidate(receipt, operator, tenant, plan_id, caps["validity"],
                            facts=facts_for(other_tenant, ("workPermit", 1), revision=3))
        approved = _revalidate(receipt, operator, tenant, plan_id, caps["validity"],
                               facts=facts_for(tenant, ("workPermit", 1), status="APPROVED", revision=3))
        swapped = _revalidate(receipt, operator, tenant, plan_id, caps["validity"],
                              facts=facts_for(tenant, ("workPermit", 2), revision=3))
        same = _revalidate(receipt, operator, tenant, plan_id, caps["validity"])
    assert receipt.steps["s1"]["targets"] == [{"type": "workPermit", "id": "1", "revision": 3}]
    assert [changed.code, moved.code, approved.code, swapped.code, same.code] == [
        "TARGET_CHANGED", "TARGET_TENANT_MISMATCH", "PERMIT_APPROVED", "TARGET_FACTS_MISSING", "OK"]
