from __future__ import annotations

import uuid

import pytest
from django.contrib.auth.models import Permission
from django.db import transaction
from django.utils import timezone

from conftest import make_user
from policy.models import AuditEvent, KillSwitch, Outcome, ReviewStatus, Scope
from policy.services import (
    Approval,
    PolicyError,
    evaluate,
    kill_switch_lift,
    kill_switch_set,
    receipt_issue,
    register_review_hook,
    review_request_approve,
    review_request_open,
    review_request_reject,
)
from tenancy.models import Role

from .factories import facts_for, plan_hash, step

pytestmark = pytest.mark.django_db


def _grant(user, codename: str):
    # Scoped to this app: `conversations` declares a `review_conversation` of its own.
    user.user_permissions.add(Permission.objects.get(content_type__app_label="policy", codename=codename))
    return type(user).objects.get(pk=user.pk)  # a fresh instance: permissions are cached per instance


@pytest.fixture
def runtime_admin(tenant):
    return _grant(make_user(tenant, Role.ADMIN), "runtime_admin")


@pytest.fixture
def reviewer(tenant):
    return _grant(make_user(tenant, Role.SUPERVISOR), "review_conversation")


# --- kill switches -----------------------------------------------------------------------------------


def test_only_a_runtime_admin_raises_or_lifts_a_kill_switch(tenant, supervisor, runtime_admin):
    plain_admin = make_user(tenant, Role.ADMIN)
    for user in (supervisor, plain_admin):
        with pytest.raises(PolicyError) as error:
            kill_switch_set(actor=user, scope=Scope.GLOBAL, reason="panic")
        assert error.value.code == "NOT_RUNTIME_ADMIN"
    switch = kill_switch_set(actor=runtime_admin, scope=Scope.GLOBAL, reason="incident 42")
    with pytest.raises(PolicyError):
        kill_switch_lift(actor=supervisor, switch_id=switch.pk, reason="done")
    assert KillSwitch.objects.get(pk=switch.pk).active


def test_a_raised_switch_denies_and_lifting_it_allows_again(operator, tenant, caps, runtime_admin):
    steps, facts = [step(caps["add"])], facts_for(tenant, ("workPermit", 1))
    switch = kill_switch_set(actor=runtime_admin, scope=Scope.CAPABILITY, target="workPermit.components.add",
                             reason="bad deploy")
    decision = evaluate(actor=operator, tenant=tenant, steps=steps, facts=facts)
    assert decision.codes == ["KILL_SWITCH"] and decision.reasons[0].data["scope"] == Scope.CAPABILITY
    kill_switch_lift(actor=runtime_admin, switch_id=switch.pk, reason="fixed")
    assert evaluate(actor=operator, tenant=tenant, steps=steps, facts=facts).outcome == Outcome.REQUIRE_CONFIRMATION


def test_a_tenant_switch_stops_only_that_tenant(operator, tenant, other_tenant, other_user, caps, runtime_admin):
    kill_switch_set(actor=runtime_admin, scope=Scope.TENANT, tenant=other_tenant, reason="customer request")
    read = [step(caps["get"], input={"id": 1})]
    assert evaluate(actor=operator, tenant=tenant, steps=read, facts=facts_for(tenant, ("workPermit", 1))).allowed
    denied = evaluate(actor=other_user, tenant=other_tenant, steps=read,
                      facts=facts_for(other_tenant, ("workPermit", 1)))
    assert denied.codes == ["KILL_SWITCH"]


def test_kill_switch_changes_are_audited_with_old_and_new_values(tenant, runtime_admin):
    switch = kill_switch_set(actor=runtime_admin, scope=Scope.TENANT, tenant=tenant, reason="incident")
    kill_switch_lift(actor=runtime_admin, switch_id=switch.pk, reason="resolved")
    events = list(AuditEvent.objects.for_tenant(tenant).filter(target_type="kill_switch"))
    assert [e.event_type for e in events] == ["policy.kill_switch.raised", "policy.kill_switch.lifted"]
    assert events[1].data["old"] == {"active": True} and events[1].data["new"]["active"] is False
    assert all(e.actor_id == runtime_admin.pk for e in events)


def test_a_switch_cannot_be_raised_twice_or_lifted_twice(tenant, runtime_admin):
    switch = kill_switch_set(actor=runtime_admin, scope=Scope.AGENT, target="0.1.0", reason="x")
    with pytest.raises(PolicyError) as error:
        kill_switch_set(actor=runtime_admin, scope=Scope.AGENT, target="0.1.0", reason="again")
    assert error.value.code == "KILL_SWITCH_ALREADY_RAISED"
    kill_switch_lift(actor=runtime_admin, switch_id=switch.pk, reason="ok")
    with pytest.raises(PolicyError):
        kill_switch_lift(actor=runtime_admin, switch_id=switch.pk, reason="ok")


def test_an_incoherent_switch_is_refused(runtime_admin):
    with pytest.raises(PolicyError):
        kill_switch_set(actor=runtime_admin, scope=Scope.CAPABILITY, reason="no target")


def test_an_audit_row_rolls_back_with_its_change(tenant, runtime_admin):
    with pytest.raises(RuntimeError), transaction.atomic():
        kill_switch_set(actor=runtime_admin, scope=Scope.TENANT, tenant=tenant, reason="x")
        raise RuntimeError("the change failed")
    assert not AuditEvent.objects.for_tenant(tenant).exists()
    assert not KillSwitch.objects.exists()


# --- human review ---------------------------------------------------------------------------------------


@pytest.fixture
def review(supervisor, tenant):
    return review_request_open(tenant=tenant, requester=supervisor, conversation_id=uuid.uuid4(),
                               plan_id=uuid.uuid4(), plan_hash=plan_hash(), summary="Excluir 19 permissões")


def test_the_requester_cannot_approve_their_own_review(review, supervisor, tenant):
    own = _grant(supervisor, "review_conversation")
    with pytest.raises(PolicyError) as error:
        review_request_approve(tenant=tenant, reviewer=own, request_id=review.pk)
    assert error.value.code == "REVIEW_OWN_REQUEST"
    assert review.status == ReviewStatus.PENDING


def test_a_member_without_review_permission_or_of_another_tenant_cannot_decide(review, tenant, other_tenant):
    plain = make_user(tenant, Role.ADMIN)
    stranger = _grant(make_user(other_tenant, Role.ADMIN), "review_conversation")
    for user in (plain, stranger):
        with pytest.raises(PolicyError) as error:
            review_request_approve(tenant=tenant, reviewer=user, request_id=review.pk)
        assert error.value.code == "REVIEW_NOT_ALLOWED"
    with pytest.raises(PolicyError) as error:
        review_request_approve(tenant=other_tenant, reviewer=stranger, request_id=review.pk)
    assert error.value.code == "NOT_FOUND"


def test_a_review_decides_once_is_audited_and_reaches_the_conversation(review, reviewer, tenant, monkeypatch,
                                                                        django_capture_on_commit_callbacks):
    monkeypatch.setattr("policy.reviews._hooks", [])
    told = []
    register_review_hook(told.append)
    with django_capture_on_commit_callbacks(execute=True):
        review_request_reject(tenant=tenant, reviewer=reviewer, request_id=review.pk, reason="too broad")
    with pytest.raises(PolicyError) as error:
        review_request_approve(tenant=tenant, reviewer=reviewer, request_id=review.pk)
    assert error.value.code == "REVIEW_ALREADY_DECIDED"
    assert [(t["status"], t["conversation_id"]) for t in told] == [("REJECTED", str(review.conversation_id))]
    audit = AuditEvent.objects.for_tenant(tenant).filter(target_type="review", target_id=str(review.pk))
    assert [e.event_type for e in audit] == ["policy.review.opened", "policy.review.rejected"]


def test_human_review_releases_a_critical_plan_only_with_an_approved_review(supervisor, reviewer, tenant, caps):
    plan_id = uuid.uuid4()
    review = review_request_open(tenant=tenant, requester=supervisor, conversation_id=uuid.uuid4(), plan_id=plan_id,
                                 plan_hash=plan_hash(), summary="purge")
    kwargs = {"actor": supervisor, "tenant": tenant, "plan_id": plan_id, "plan_hash": plan_hash(),
              "steps": [step(caps["purge"])], "facts": facts_for(tenant, ("workPermit", 1))}

    def approval(by):
        return Approval(confirmation_id=uuid.uuid4(), plan_id=plan_id, plan_hash=plan_hash(), level="human_review",
                        approved_by=by.pk, approved_at=timezone.now(), review_request_id=review.pk)

    assert receipt_issue(**kwargs, approval=approval(supervisor)).reasons[-1]["code"] == "REVIEW_NOT_APPROVED"
    assert receipt_issue(**kwargs, approval=approval(reviewer)).decision == Outcome.DENY  # still pending
    review_request_approve(tenant=tenant, reviewer=reviewer, request_id=review.pk)
    assert receipt_issue(**kwargs, approval=approval(supervisor)).decision == Outcome.DENY  # "sim" is not enough
    assert receipt_issue(**kwargs, approval=approval(reviewer)).decision == Outcome.ALLOW
