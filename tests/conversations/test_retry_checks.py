""""Tente novamente" (issue 19 point 2): within the operation's TTL only, never over a step whose outcome
is unknown and unreviewed, never on another screen's target, and never repeating what completed — a
partly done copy is finished, not made twice."""

from __future__ import annotations

import pytest

from execution.models import Execution, StepRun, StepStatus
from sst import services as sst
from sst.faults import fault_add
from sst.models import WorkPermit

from .conftest import selection

executes = pytest.mark.django_db(transaction=True)


def _failed_validity(world, client, start, talk, ui=None):
    conversation = start(client)
    fault = fault_add(tenant=world.tenant, route="sst:permit-validity", status=503)
    talk(client, conversation, "estende a permissão 802 para 44 dias" if ui is None else "muda a validade pra 44 dias",
         ui=ui)
    failed = talk(client, conversation, "confirmo")
    assert failed["state"]["status"] == "FAILED", failed["state"]
    fault.delete()
    return conversation


@executes
def test_an_operation_past_its_ttl_is_not_tried_again(world, operator_client, start, talk, settings, moved_clock):
    settings.SST_FAULT_INJECTION = True
    conversation = _failed_validity(world, operator_client, start, talk)
    moved_clock.advance(int(settings.AGENT_OPERATION_CONTEXT_TTL_SECONDS) + 60)
    turn = talk(operator_client, conversation, "tenta de novo")
    assert turn["response"]["error"]["code"] == "OPERATION_EXPIRED" and turn["response"]["confirmation"] is None
    world.p802.refresh_from_db()
    assert world.p802.validity_days == 20


@executes
def test_a_step_of_unknown_outcome_awaiting_review_is_not_repeated(world, operator_client, start, talk, settings):
    settings.SST_FAULT_INJECTION = True
    conversation = _failed_validity(world, operator_client, start, talk)
    # What the engine records when a call's outcome cannot be known (a timeout after sending the write).
    execution = Execution.objects.for_tenant(world.tenant).latest("started_at")
    StepRun.objects.for_tenant(world.tenant).filter(execution=execution).update(status=StepStatus.UNKNOWN)
    Execution.objects.for_tenant(world.tenant).filter(pk=execution.pk).update(needs_review=True)
    turn = talk(operator_client, conversation, "try again")
    assert turn["response"]["error"]["code"] == "NEEDS_REVIEW"
    world.p802.refresh_from_db()
    assert world.p802.validity_days == 20


@executes
def test_a_target_from_another_screen_is_not_retried_silently(world, operator_client, start, talk, settings):
    settings.SST_FAULT_INJECTION = True
    conversation = _failed_validity(world, operator_client, start, talk, ui=selection(world.p802))
    turn = talk(operator_client, conversation, "tenta de novo", ui=selection(world.p771))
    assert turn["response"]["error"]["code"] == "UI_CONTEXT_CHANGED"
    back = talk(operator_client, conversation, "tenta de novo", ui=selection(world.p802))
    assert back["state"]["status"] == "SUCCESS", back["state"]
    world.p802.refresh_from_db()
    assert world.p802.validity_days == 44


@executes
def test_a_partly_done_copy_is_finished_not_made_twice(world, operator_client, start, talk, settings):
    settings.SST_FAULT_INJECTION = True
    sst.permit_component_add(tenant=world.tenant, permit_id=world.p802.pk, component_type=world.weld)
    permits = WorkPermit.objects.for_tenant(world.tenant)
    before = set(permits.values_list("pk", flat=True))
    conversation = start(operator_client)
    fault = fault_add(tenant=world.tenant, route="sst:permit-components", method="POST", status=422)
    talk(operator_client, conversation, "crie uma permissão igual a esta", ui=selection(world.p802))
    failed = talk(operator_client, conversation, "sim")
    assert failed["state"]["status"] in ("FAILED", "PARTIAL_SUCCESS"), failed["state"]
    made = set(permits.values_list("pk", flat=True)) - before
    fault.delete()
    again = talk(operator_client, conversation, "tenta de novo")
    if again["status"] == "CONFIRMATION_REQUIRED":
        again = talk(operator_client, conversation, "sim")
    assert again["state"]["status"] == "SUCCESS", (again["response"], again["state"].get("last_response"))
    now = set(permits.values_list("pk", flat=True)) - before
    assert made and now == made  # the copy made before the failure is the one finished
    copy = permits.get(pk=next(iter(now)))
    assert set(copy.components.values_list("component_type__key", flat=True)) == {"welding"}
