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


def _hold_open(tenant, capability: str, seconds: float) -> None:
    """The capability's breaker open, its probe not due for `seconds` (as after failures in a row)."""
    import time
    from dataclasses import replace

    from execution.control import BREAKER_OPEN_S, OPEN, Envelope, Lane
    from registry.selectors import registry_snapshot

    spec = registry_snapshot().get(capability)
    lane = Lane(tenant.pk, spec.id, spec.resource.key, Envelope.of(spec))
    lane.update(lambda s: (replace(s, breaker=OPEN, probing=False,
                                   opened_at=time.time() + seconds - BREAKER_OPEN_S), None))


@executes
@pytest.mark.parametrize("again, says", [
    ("tenta de novo", r"indisponível no momento .* tente novamente em cerca de \d+ segundo\(s\)"),
    ("try again", r"unavailable right now .* try again in about \d+ second\(s\)"),
])
def test_a_retry_refused_by_an_open_breaker_says_the_service_is_unavailable_and_when_to_try(
        world, operator_client, start, talk, settings, monkeypatch, again, says):
    import re

    from execution import envelope
    from execution.control import lanes_clear

    settings.SST_FAULT_INJECTION = True
    lanes_clear(world.tenant.pk)
    conversation = _failed_validity(world, operator_client, start, talk)
    _hold_open(world.tenant, "workPermit.updateValidity", seconds=40)
    monkeypatch.setattr(envelope, "BREAKER_OPEN_S", 0.05)  # a step waits out one window for its probe: not here
    try:
        turn = talk(operator_client, conversation, again)
    finally:
        lanes_clear(world.tenant.pk)
    state = turn["state"]
    assert state["status"] == "FAILED", state
    run = StepRun.objects.for_tenant(world.tenant).filter(execution_id=state["last_result"]["execution_id"]).get()
    assert run.error["code"] == "CIRCUIT_OPEN"  # refused without a call: the service never saw it
    assert re.search(says, state["last_result"]["message"]), state["last_result"]["message"]
    world.p802.refresh_from_db()
    assert world.p802.validity_days == 20


@executes
def test_a_retry_whose_target_cannot_be_read_for_now_says_unavailable_not_missing(world, operator_client, start,
                                                                                  talk, settings):
    settings.SST_FAULT_INJECTION = True
    conversation = _failed_validity(world, operator_client, start, talk)
    fault_add(tenant=world.tenant, route="sst:permit-detail", method="GET", status=503)
    turn = talk(operator_client, conversation, "tenta de novo")["response"]
    assert turn["error"]["code"] == "SERVICE_UNAVAILABLE" and turn["confirmation"] is None, turn
    assert "indisponível" in turn["message"] and "Tente novamente em" in turn["message"], turn["message"]
    assert "Não encontrei" not in turn["message"]
    world.p802.refresh_from_db()
    assert world.p802.validity_days == 20
