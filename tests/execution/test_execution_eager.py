"""The orchestrator in eager mode (the embedded default): plans run in-process, step by step."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from execution.composer import compose, execution_result
from execution.hooks import register_completion_hook, unregister_completion_hook
from execution.models import StepRun, TimelineEntry
from execution.services import ExecutionError, execution_start
from planning.intents import StructuredIntent
from sst.faults import fault_add
from sst.models import WorkPermit

from .helpers import make_world, permit_target, plan_and_approve

pytestmark = pytest.mark.usefixtures("registry", "eager")



@pytest.fixture
def world(tenant):
    return make_world(tenant)


@pytest.fixture
def run(django_capture_on_commit_callbacks):
    def _run(*, tenant, actor, intent, conversation_id=None):
        plan, receipt = plan_and_approve(tenant=tenant, actor=actor, intent=intent, conversation_id=conversation_id)
        with django_capture_on_commit_callbacks(execute=True):
            execution = execution_start(plan=plan, receipt_id=receipt.pk, actor=actor, tenant=tenant)
        execution.refresh_from_db()
        return execution
    return _run


def _runs(execution):
    return {r.step_id: r for r in StepRun.objects.for_tenant(execution.tenant_id).filter(execution=execution)}


def _timeline(execution, type_=None):
    entries = TimelineEntry.objects.for_tenant(execution.tenant_id).filter(execution=execution).order_by("id")
    return [(e.type, e.step_id) for e in entries if type_ is None or e.type == type_]


def _clone_intent(world, language="pt-BR"):
    return StructuredIntent(name="workPermit.cloneWithChanges", targets={"permit": permit_target(world.permit)},
                            slots={"responsible": world.joao.pk, "validity_days": 30}, language=language)


def test_clone_with_changes_creates_one_permit_with_copied_components_and_a_reply(run, world, tenant, operator):
    before = WorkPermit.objects.for_tenant(tenant).count()
    execution = run(tenant=tenant, actor=operator, intent=_clone_intent(world))
    assert execution.status == "completed", execution.error
    created = WorkPermit.objects.for_tenant(tenant).exclude(pk=world.permit.pk).get()
    assert WorkPermit.objects.for_tenant(tenant).count() == before + 1
    assert (created.responsible_id, created.validity_days) == (world.joao.pk, 30)
    assert sorted(created.components.values_list("component_type__key", flat=True)) == ["hotWork", "workingAtHeight"]
    reply = compose(execution, "pt-BR")
    assert reply == (f"Permissão {created.number} criada. Responsável: João Silva. Validade: 30 dias. "
                     "2 componentes copiados.")
    assert compose(execution, "en").startswith(f"Permit {created.number} created. Responsible: João Silva.")
    types = [t for t, _ in _timeline(execution)]
    assert types[:4] == ["PLAN_CREATED", "PLAN_VALIDATED", "CONFIRMATION_RECEIVED", "EXECUTION_STARTED"]
    assert types[-1] == "EXECUTION_COMPLETED" and "VERIFICATION_COMPLETED" in types


def test_two_503s_then_success_is_retried_and_applied_once(run, world, tenant, operator, settings):
    settings.SST_FAULT_INJECTION = True
    fault_add(tenant=tenant, route="sst:permit-validity", status=503, times=2)
    intent = StructuredIntent(name="workPermit.updateValidity", slots={"validity_days": 40},
                              targets={"permit": permit_target(world.permit)})
    revision = world.permit.revision
    execution = run(tenant=tenant, actor=operator, intent=intent)
    world.permit.refresh_from_db()
    assert execution.status == "completed"
    assert (world.permit.validity_days, world.permit.revision) == (40, revision + 1)  # one effect
    assert _runs(execution)["s1"].attempts == 3
    assert len(_timeline(execution, "RETRY_SCHEDULED")) == 2


def test_a_500_is_not_retried(run, world, tenant, operator, settings):
    settings.SST_FAULT_INJECTION = True
    fault_add(tenant=tenant, route="sst:permit-validity", status=500, times=1)
    intent = StructuredIntent(name="workPermit.updateValidity", slots={"validity_days": 40},
                              targets={"permit": permit_target(world.permit)})
    execution = run(tenant=tenant, actor=operator, intent=intent)
    step = _runs(execution)["s1"]
    assert (execution.status, step.status, step.attempts, step.calls) == ("failed", "failed", 1, 2)  # facts + call
    assert _timeline(execution, "RETRY_SCHEDULED") == []


def test_a_409_is_a_conflict_that_says_what_changed_and_is_never_retried(run, world, tenant, operator, settings):
    settings.SST_FAULT_INJECTION = True
    fault_add(tenant=tenant, route="sst:permit-validity", status=409, times=1)
    intent = StructuredIntent(name="workPermit.updateValidity", slots={"validity_days": 40},
                              targets={"permit": permit_target(world.permit)})
    execution = run(tenant=tenant, actor=operator, intent=intent)
    error = _runs(execution)["s1"].error
    assert (execution.status, error["code"], error["current_revision"]) == ("failed", "CONFLICT",
                                                                          world.permit.revision)
    assert "nada foi sobrescrito" in compose(execution, "pt-BR")


def test_a_target_changed_since_planning_stops_before_the_call(world, tenant, operator,
                                                               django_capture_on_commit_callbacks):
    from sst import services as sst

    intent = StructuredIntent(name="workPermit.updateValidity", slots={"validity_days": 40},
                              targets={"permit": permit_target(world.permit)})
    plan, receipt = plan_and_approve(tenant=tenant, actor=operator, intent=intent)
    sst.permit_update(tenant=tenant, permit_id=world.permit.pk, number="999")  # someone else edits it
    with django_capture_on_commit_callbacks(execute=True):
        execution = execution_start(plan=plan, receipt_id=receipt.pk, actor=operator, tenant=tenant)
    execution.refresh_from_db()
    step = _runs(execution)["s1"]
    assert (execution.status, step.error["code"], step.calls) == ("failed", "TARGET_CHANGED", 1)


def test_failure_after_create_compensates_the_created_permit_under_policy(run, world, tenant, supervisor, settings):
    settings.SST_FAULT_INJECTION = True
    fault_add(tenant=tenant, route="sst:permit-validity", status=500, times=1)
    before = set(WorkPermit.objects.for_tenant(tenant).values_list("pk", flat=True))
    execution = run(tenant=tenant, actor=supervisor, intent=_clone_intent(world))
    runs = _runs(execution)
    assert execution.status == "compensated"
    assert set(WorkPermit.objects.for_tenant(tenant).values_list("pk", flat=True)) == before
    assert (runs["create"].status, runs["update_validity"].status, runs["verify"].status) == (
        "compensated", "failed", "skipped")
    compensations = _timeline(execution, "COMPENSATION_COMPLETED")
    assert [s for _, s in compensations] == ["copy", "create"]  # reverse order


def test_a_compensation_policy_refuses_is_not_run_and_awaits_review(run, world, tenant, operator, settings):
    settings.SST_FAULT_INJECTION = True
    fault_add(tenant=tenant, route="sst:permit-validity", status=500, times=1)
    execution = run(tenant=tenant, actor=operator, intent=_clone_intent(world))  # operators may not delete
    assert (execution.status, execution.needs_review) == ("failed", True)
    assert WorkPermit.objects.for_tenant(tenant).count() == 2
    failed = TimelineEntry.objects.for_tenant(tenant).get(execution=execution, type="COMPENSATION_FAILED")
    assert failed.data["outcomes"][0]["code"] == "PERMISSION_MISSING"


def test_n_components_with_one_422_is_partially_completed(run, world, tenant, operator, settings):
    settings.SST_FAULT_INJECTION = True
    fault_add(tenant=tenant, route="sst:permit-components", status=422, match={"component": "electricity"})
    intent = StructuredIntent(name="workPermit.components.addMany", targets={"permit": permit_target(world.permit)},
                              slots={"components": ["confinedSpace", "electricity", "excavation"]})
    execution = run(tenant=tenant, actor=operator, intent=intent)
    keys = set(world.permit.components.values_list("component_type__key", flat=True))
    assert execution.status == "partially_completed"
    assert keys == {"workingAtHeight", "hotWork", "confinedSpace", "excavation"}
    assert compose(execution, "pt-BR") == "2 componente(s) adicionado(s). Não adicionado(s): electricity."


def test_the_conditional_plan_skips_the_renewal_of_a_permit_that_is_not_expired(run, world, tenant, operator):
    intent = StructuredIntent(name="workPermit.renewIfExpired", slots={"validity_days": 30},
                              targets={"permit": permit_target(world.permit)})
    execution = run(tenant=tenant, actor=operator, intent=intent)
    world.permit.refresh_from_db()
    assert (execution.status, _runs(execution)["renew"].status, world.permit.validity_days) == (
        "completed", "skipped", 15)
    assert "não foi executada" in compose(execution, "pt-BR")


def test_the_conditional_plan_renews_an_expired_permit(run, world, tenant, operator):
    WorkPermit.objects.for_tenant(tenant).filter(pk=world.permit.pk).update(
        created_at=timezone.now() - timedelta(days=20))
    intent = StructuredIntent(name="workPermit.renewIfExpired", slots={"validity_days": 30},
                              targets={"permit": permit_target(world.permit)})
    execution = run(tenant=tenant, actor=operator, intent=intent)
    world.permit.refresh_from_db()
    assert (execution.status, _runs(execution)["renew"].status, world.permit.validity_days) == (
        "completed", "completed", 30)


def test_create_and_open_ends_with_a_navigation_instruction_to_the_created_permit(run, world, tenant, operator):
    intent = StructuredIntent(name="workPermit.createAndOpen",
                              slots={"company": world.company.pk, "validity_days": 10})
    execution = run(tenant=tenant, actor=operator, intent=intent)
    created = WorkPermit.objects.for_tenant(tenant).exclude(pk=world.permit.pk).get()
    navigation = execution_result(execution)["navigation"]
    assert execution.status == "completed"
    assert navigation == {"route": f"/work-permits/{created.pk}",
                          "entity": {"type": "workPermit", "id": str(created.pk), "label": created.number},
                          "tab": None}
    assert compose(execution, "pt-BR").endswith(f"Abrindo {created.number}.")


def test_a_raised_kill_switch_stops_before_the_step(run, world, tenant, operator, admin_user):
    from django.contrib.auth.models import Permission

    from policy.services import kill_switch_set

    admin_user.user_permissions.add(Permission.objects.get(codename="runtime_admin", content_type__app_label="policy"))
    intent = StructuredIntent(name="workPermit.updateValidity", slots={"validity_days": 40},
                              targets={"permit": permit_target(world.permit)})
    plan, receipt = plan_and_approve(tenant=tenant, actor=operator, intent=intent)
    kill_switch_set(actor=type(admin_user).objects.get(pk=admin_user.pk), scope="TENANT", tenant=tenant,
                    reason="incident")
    execution = execution_start(plan=plan, receipt_id=receipt.pk, actor=operator, tenant=tenant)
    from execution.engine import run_step

    run_step(execution.pk, "s1")
    execution.refresh_from_db()
    world.permit.refresh_from_db()
    assert (execution.status, _runs(execution)["s1"].error["code"], world.permit.validity_days) == (
        "failed", "KILL_SWITCH", 15)


def test_a_kill_switch_between_steps_of_a_partial_plan_fails_it_instead_of_partially_completing(
        world, tenant, operator, admin_user):
    # CI (2026-12-05): a batch whose first check had finished before the switch settled partially_completed.
    from django.contrib.auth.models import Permission

    from execution.engine import run_step
    from policy.services import kill_switch_set

    admin_user.user_permissions.add(Permission.objects.get(codename="runtime_admin", content_type__app_label="policy"))
    intent = StructuredIntent(name="workPermit.components.addMany", targets={"permit": permit_target(world.permit)},
                              slots={"components": ["confinedSpace", "electricity", "excavation"]})
    plan, receipt = plan_and_approve(tenant=tenant, actor=operator, intent=intent)
    assert plan.allow_partial
    execution = execution_start(plan=plan, receipt_id=receipt.pk, actor=operator, tenant=tenant)
    first, *rest = sorted(_runs(execution))
    run_step(execution.pk, first)
    kill_switch_set(actor=type(admin_user).objects.get(pk=admin_user.pk), scope="TENANT", tenant=tenant,
                    reason="incident")
    for step_id in rest:  # all three were dispatched at the start (independent steps)
        run_step(execution.pk, step_id)
    execution.refresh_from_db()
    runs = _runs(execution)
    assert runs[first].status == "completed"
    assert {runs[s].error["code"] for s in rest} == {"KILL_SWITCH"}
    assert execution.status == "failed", execution.status


def test_a_forged_receipt_starts_nothing(world, tenant, operator, other_tenant):
    intent = StructuredIntent(name="workPermit.updateValidity", slots={"validity_days": 40},
                              targets={"permit": permit_target(world.permit)})
    plan, receipt = plan_and_approve(tenant=tenant, actor=operator, intent=intent)
    other_plan, other_receipt = plan_and_approve(tenant=tenant, actor=operator, intent=StructuredIntent(
        name="workPermit.updateValidity", slots={"validity_days": 41}, targets={"permit": permit_target(world.permit)}))
    for forged in (uuid.uuid4(), other_receipt.pk, "not-a-uuid"):
        with pytest.raises(ExecutionError) as caught:
            execution_start(plan=plan, receipt_id=forged, actor=operator, tenant=tenant)
        assert caught.value.code == "RECEIPT_INVALID"


def test_completion_hooks_are_called_once_with_the_settled_execution_and_progress_reaches_the_conversation(
        run, world, tenant, operator):
    from events.models import ConversationEvent

    seen = []

    def hook(execution):
        seen.append((execution.pk, execution.status))

    register_completion_hook(hook)
    try:
        conversation = uuid.uuid4()
        intent = StructuredIntent(name="workPermit.components.add", slots={"component": "excavation"},
                                  targets={"permit": permit_target(world.permit)})
        execution = run(tenant=tenant, actor=operator, intent=intent, conversation_id=conversation)
    finally:
        unregister_completion_hook(hook)
    assert seen == [(execution.pk, "completed")]
    events = ConversationEvent.objects.for_tenant(tenant).filter(conversation_id=conversation).order_by("seq")
    assert [e.type for e in events] == ["EXECUTION_STARTED", "EXECUTION_PROGRESS", "EXECUTION_COMPLETED"]
    progress = events[1].payload
    assert (progress["label"]["pt-BR"], progress["status"], progress["done"], progress["total"]) == (
        "Adicionando componente…", "completed", 1, 1)



def test_plan_facts_reads_the_targets_through_the_read_capability(world, tenant, operator):
    from execution.services import plan_facts
    from planning.services import plan_from_intent

    intent = StructuredIntent(name="workPermit.updateValidity", slots={"validity_days": 40},
                              targets={"permit": permit_target(world.permit)})
    plan = plan_from_intent(tenant=tenant, actor=operator, intent=intent)
    assert plan_facts(plan=plan, actor=operator, tenant=tenant) == {f"workPermit:{world.permit.pk}": {
        "tenant": str(tenant.pk), "exists": True, "status": "DRAFT", "revision": world.permit.revision}}
