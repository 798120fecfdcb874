"""Replanning has three triggers (issue 19 point 3.2; execution/replan_triggers.py): the route is
unavailable, the route is rate limited beyond the retry budget, and the capability's contract
changed between plan and execution. For each: what the execution records (a RuntimeReplan row with
its trigger, the REPLAN_* timeline), and what the user gets — a replacement plan that policy
evaluated anew and that waits for a new confirmation (nothing of it runs), or a clear failure that
a person reviews."""

from __future__ import annotations

import itertools
import uuid

import pytest
from django.contrib.auth import get_user_model

from execution.models import Execution, RuntimeReplan, TimelineEntry
from planning.services import plan_from_steps
from policy.models import PolicyReceipt
from registry.models import ApprovalKind, CapabilityApproval, CapabilityStatus, CapabilityVersion
from registry.selectors import snapshot_clear
from sst.faults import fault_add
from sst.models import PermitEvaluation

from .batch_helpers import batch_steps, lanes, make_batch_world, start_inline  # noqa: F401 - fixture

pytestmark = pytest.mark.usefixtures("registry", "eager", "lanes")
TRAINING = "workPermit.checkTraining"  # no fallback registered
_people = itertools.count()


@pytest.fixture
def faults(settings):
    settings.SST_FAULT_INJECTION = True
    settings.RUNTIME_MAX_WAIT_SECONDS = 5


def _plan(tenant, actor, ids, *, conversation=True):
    return plan_from_steps(tenant=tenant, actor=actor, template="test.twoChecks",
                           steps=batch_steps(ids, "training", "risk"), allow_partial=False,
                           conversation_id=uuid.uuid4() if conversation else None)


def _requested(execution) -> list[dict]:
    return list(TimelineEntry.objects.for_tenant(execution.tenant_id)
                .filter(execution=execution, type="REPLAN_REQUESTED").values_list("data", flat=True))


def _told(execution, replan, language: str) -> str:
    """What the conversation says when it asks about the replacement plan (conversations.batch)."""
    from types import SimpleNamespace

    from conversations.batch import _replan_lead

    ids = sorted({t["id"] for s in execution.plan.steps.all() for t in s.targets})
    left = {t["id"] for s in replan.plan.steps.all() for t in s.targets}
    return _replan_lead(SimpleNamespace(language=language), execution, replan, {"batch": {"ids": ids}}, len(left))


def _asks_a_new_confirmation(replan, old_plan) -> None:
    """Material: a new plan, its own policy decision; confirmed by the user before anything of it runs."""
    new = replan.plan
    assert (replan.outcome, replan.impact["requires_reapproval"]) == ("REAPPROVAL_REQUIRED", True)
    assert (new.template, new.conversation_id) == (f"{old_plan.template}.replan", old_plan.conversation_id)
    decision = PolicyReceipt.objects.for_tenant(new.tenant_id).get(pk=replan.decision["receipt_id"])
    assert (decision.plan_id, decision.plan_hash, decision.stage) == (new.pk, new.canonical_hash, "PLANNING")
    assert replan.decision["level"] == "soft"
    assert not Execution.objects.for_tenant(new.tenant_id).filter(plan=new).exists()


# --- route unavailable / rate limited ------------------------------------------------------------


def test_a_resource_that_answers_503_replans_as_unavailable_after_the_wait(
        tenant, operator, faults, settings, django_capture_on_commit_callbacks):
    settings.RUNTIME_REPLAN_AFTER_SECONDS = 0
    ids = make_batch_world(tenant, 6)
    fault_add(tenant=tenant, route="sst:permit-training", status=503)
    plan = _plan(tenant, operator, ids)
    execution = start_inline(django_capture_on_commit_callbacks, plan, tenant=tenant, actor=operator)
    (replan,) = RuntimeReplan.objects.for_tenant(tenant).filter(execution=execution)
    assert (replan.trigger, replan.resource) == ("RESOURCE_UNAVAILABLE", "sst-api")
    assert [d["trigger"] for d in _requested(execution)] == ["RESOURCE_UNAVAILABLE"]
    _asks_a_new_confirmation(replan, plan)
    assert execution.step_runs.get(step_id="training").error["code"] == "REPLANNED"
    assert "became unavailable" in _told(execution, replan, "en")


def test_429s_beyond_the_retry_budget_replan_at_once_as_rate_limited(
        tenant, operator, faults, settings, django_capture_on_commit_callbacks):
    # The wait before a replan is long: only the spent retry budget can make it due now.
    settings.RUNTIME_REPLAN_AFTER_SECONDS = 60
    settings.RUNTIME_MAX_WAIT_SECONDS = 60
    settings.EXECUTION_RETRY_BUDGET = 2
    ids = make_batch_world(tenant, 8)
    fault_add(tenant=tenant, route="sst:permit-training", status=429)
    plan = _plan(tenant, operator, ids)
    execution = start_inline(django_capture_on_commit_callbacks, plan, tenant=tenant, actor=operator)
    assert execution.retry_budget == 0
    (replan,) = RuntimeReplan.objects.for_tenant(tenant).filter(execution=execution)
    assert replan.trigger == "RATE_LIMITED"
    decided = TimelineEntry.objects.for_tenant(tenant).get(execution=execution, type="REPLAN_DECIDED")
    assert (decided.data["trigger"], decided.data["outcome"]) == ("RATE_LIMITED", "REAPPROVAL_REQUIRED")
    _asks_a_new_confirmation(replan, plan)
    assert [s.step_id for s in replan.plan.steps.all()] == ["risk"]  # without the rate-limited step
    assert "rate limit" in _told(execution, replan, "en")
    assert "limite de requisições" in _told(execution, replan, "pt-BR")
    assert execution.step_runs.get(step_id="training").error["code"] == "REPLANNED"


# --- contract changed ------------------------------------------------------------------------------


def _next_version(key: str) -> CapabilityVersion:
    """Version n+1 of `key`, approved by two people and ACTIVE (the previous one RETIRED): the
    contract moved on. Its definition differs only by its hash (what a reload of a changed manifest does)."""
    users = get_user_model().objects
    n = next(_people)
    author, tech, biz = (users.create_user(username=f"{r}-contract-{n}") for r in ("author", "tech", "biz"))
    current = CapabilityVersion.objects.get(capability__key=key, status=CapabilityStatus.ACTIVE)
    new = CapabilityVersion.objects.get(pk=current.pk)
    new.pk, new.version, new.status, new.author = None, current.version + 1, CapabilityStatus.DRAFT, author
    new.definition_hash = "f" * 64
    new.save()
    for status in (CapabilityStatus.PENDING_APPROVAL,):
        CapabilityVersion.objects.filter(pk=new.pk).update(status=status)
    CapabilityApproval.objects.create(capability_version=new, kind=ApprovalKind.TECHNICAL, approver=tech, reason="ok")
    CapabilityApproval.objects.create(capability_version=new, kind=ApprovalKind.BUSINESS, approver=biz, reason="ok")
    CapabilityVersion.objects.filter(pk=current.pk).update(status=CapabilityStatus.RETIRED)
    CapabilityVersion.objects.filter(pk=new.pk).update(status=CapabilityStatus.ACTIVE)
    snapshot_clear()
    return new


def test_a_contract_changed_before_the_batch_step_starts_asks_to_confirm_the_new_version(
        tenant, operator, faults, django_capture_on_commit_callbacks):
    from .helpers import approve

    ids = make_batch_world(tenant, 4)
    plan = _plan(tenant, operator, ids)
    receipt = approve(plan, actor=operator, tenant=tenant)
    pinned = plan.steps.get(step_id="training").capability_version
    new = _next_version(TRAINING)  # between the confirmation and the execution
    execution = start_inline(django_capture_on_commit_callbacks, plan, receipt, tenant=tenant, actor=operator)
    (replan,) = RuntimeReplan.objects.for_tenant(tenant).filter(execution=execution)
    assert (replan.trigger, replan.strategy, replan.step_id) == ("CONTRACT_CHANGED", "UPGRADE", "training")
    assert replan.impact["changed_steps"] == ["training"]
    _asks_a_new_confirmation(replan, plan)
    versions = dict(replan.plan.steps.values_list("step_id", "capability_version"))
    assert versions["training"] == new.version != pinned
    training = execution.step_runs.get(step_id="training")
    assert (training.error["code"], training.error["trigger"], training.calls) == ("REPLANNED", "CONTRACT_CHANGED", 0)
    assert not PermitEvaluation.objects.for_tenant(tenant).exists()
    assert "changed version" in _told(execution, replan, "en")
    assert "mudou de versão" in _told(execution, replan, "pt-BR")


def test_a_contract_changed_mid_batch_replans_the_rest_on_the_new_version(
        tenant, operator, faults, monkeypatch, django_capture_on_commit_callbacks):
    from execution import batch

    ids = make_batch_world(tenant, 6)
    plan = plan_from_steps(tenant=tenant, actor=operator, template="test.training",
                           steps=batch_steps(ids, "training"), allow_partial=False, conversation_id=uuid.uuid4())
    run_item, seen = batch.run_item, []

    def run_then_move_on(ctx, item, *args):
        run_item(ctx, item, *args)
        seen.append(item.pk)
        if len(seen) == 2:
            _next_version(TRAINING)  # the registry moves on while the batch runs
    monkeypatch.setattr(batch, "run_item", run_then_move_on)
    execution = start_inline(django_capture_on_commit_callbacks, plan, tenant=tenant, actor=operator)
    (replan,) = RuntimeReplan.objects.for_tenant(tenant).filter(execution=execution)
    assert (replan.trigger, replan.strategy) == ("CONTRACT_CHANGED", "UPGRADE")
    _asks_a_new_confirmation(replan, plan)
    left = {t["id"] for t in replan.plan.steps.get().targets}
    assert len(left) == 4 and left <= set(ids)  # the two items done under the old contract stay done
    assert execution.step_runs.get().error["code"] == "REPLANNED"


def test_a_contract_change_nobody_can_confirm_fails_clearly_for_a_person_to_review(
        tenant, operator, faults, django_capture_on_commit_callbacks):
    from .helpers import approve

    ids = make_batch_world(tenant, 3)
    plan = _plan(tenant, operator, ids, conversation=False)
    receipt = approve(plan, actor=operator, tenant=tenant)
    _next_version(TRAINING)
    execution = start_inline(django_capture_on_commit_callbacks, plan, receipt, tenant=tenant, actor=operator)
    (replan,) = RuntimeReplan.objects.for_tenant(tenant).filter(execution=execution)
    assert (replan.trigger, replan.outcome, replan.code) == ("CONTRACT_CHANGED", "REFUSED", "NO_CONFIRMATION_CHANNEL")
    training = execution.step_runs.get(step_id="training")
    assert (training.error["code"], training.error["replan_outcome"]) == ("CAPABILITY_CHANGED", "REFUSED")
    assert (execution.status, execution.needs_review) == ("failed", True)
