"""The task metrics of PRD-010 §51 on /metrics — task completion, turns per task, stale-context events,
intent replacement and failure recovery — each driven by real turns through the REST API and read as
the delta between two scrapes (the registry is process-global, other tests move it too)."""

from __future__ import annotations

import pytest

from conversations.models import Conversation
from sst import services as sst
from sst.faults import fault_add
from tests.observability.test_prd_metrics import Delta

from .conftest import selection

executes = pytest.mark.django_db(transaction=True)

TASKS, TURNS = "sst_agent_tasks_total", "sst_agent_turns_per_task"
STALE, REPLACED, RECOVERED = ("sst_agent_stale_context_events_total", "sst_agent_intent_replacements_total",
                              "sst_agent_failure_recoveries_total")


def _turns(delta: Delta, **labels: str) -> tuple[float, float]:
    """(tasks observed, their turns) in the turns-per-task histogram."""
    return delta(f"{TURNS}_count", **labels), delta(f"{TURNS}_sum", **labels)


def _failed_validity(world, client, start, talk) -> str:
    """A change the API refuses with a 503 (fault injection): a failed task of two turns."""
    conversation = start(client)
    fault = fault_add(tenant=world.tenant, route="sst:permit-validity", status=503)
    talk(client, conversation, "estende a permissão 802 para 44 dias")
    failed = talk(client, conversation, "confirmo")
    assert failed["state"]["status"] == "FAILED", failed["state"]
    fault.delete()  # the resource is back: the retry waits out the breaker its 503s opened, and is the probe
    return conversation


# --- task completion and turns per task ----------------------------------------------------------


@executes
def test_a_confirmed_change_is_one_successful_writing_task_of_two_turns(settings, world, operator_client, start,
                                                                        talk):
    delta = Delta(settings)
    conversation = start(operator_client)
    asked = talk(operator_client, conversation, "altera a validade para 29 dias", ui=selection(world.p802))
    assert asked["response"]["type"] == "confirmation"
    assert delta(TASKS) == 0  # still open: nothing settled yet
    done = talk(operator_client, conversation, "sim")
    assert done["state"]["status"] == "SUCCESS", done["state"]
    assert delta(TASKS, outcome="success", execution="write") == 1 and delta(TASKS) == 1
    assert _turns(delta, outcome="success") == (1, 2)


@executes
def test_a_question_asked_back_counts_among_the_turns_of_its_task(settings, world, operator_client, start, talk):
    delta = Delta(settings)
    conversation = start(operator_client)
    asked = talk(operator_client, conversation, "altera a validade da permissão 771 para 30 dias")
    assert asked["response"]["type"] == "clarification"  # two permits 771: which one?
    picked = talk(operator_client, conversation, "1")
    assert picked["response"]["type"] == "confirmation", picked["response"]
    done = talk(operator_client, conversation, "sim")
    assert done["state"]["status"] == "SUCCESS", done["state"]
    assert delta(TASKS, outcome="success") == 1
    assert _turns(delta) == (1, 3)


@executes
def test_a_read_is_a_task_of_one_turn_settled_by_a_read_only_execution(settings, world, operator_client, start,
                                                                        talk):
    delta = Delta(settings)
    conversation = start(operator_client)
    turn = talk(operator_client, conversation, "quantos funcionários existem?")
    assert turn["response"]["type"] == "answer" and turn["state"]["status"] == "SUCCESS", turn["response"]
    assert delta(TASKS, outcome="success", execution="read") == 1
    assert _turns(delta) == (1, 1)
    # A courtesy afterwards opens no task and settles none.
    talk(operator_client, conversation, "obrigado")
    assert delta(TASKS) == 1 and _turns(delta) == (1, 1)


@executes
def test_a_policy_deny_is_a_failed_task_settled_in_its_own_turn(settings, world, viewer_client, start, talk):
    delta = Delta(settings)
    conversation = start(viewer_client)
    turn = talk(viewer_client, conversation, "delete permit 802")
    assert turn["response"]["error"]["code"] == "POLICY_DENIED"
    assert delta(TASKS, outcome="failed", execution="none") == 1
    assert _turns(delta, outcome="failed") == (1, 1)


@executes
def test_a_declined_confirmation_is_a_cancelled_task(settings, world, operator_client, start, talk):
    delta = Delta(settings)
    conversation = start(operator_client)
    talk(operator_client, conversation, "altera a validade para 29 dias", ui=selection(world.p802))
    talk(operator_client, conversation, "não")
    assert delta(TASKS, outcome="cancelled", execution="none") == 1
    assert _turns(delta, outcome="cancelled") == (1, 2)


@executes
def test_a_failed_write_is_a_failed_task_settled_by_its_execution(settings, world, operator_client, start, talk):
    settings.SST_FAULT_INJECTION = True
    delta = Delta(settings)
    _failed_validity(world, operator_client, start, talk)
    assert delta(TASKS, outcome="failed", execution="write") == 1
    assert _turns(delta, outcome="failed") == (1, 2)


@executes
def test_a_confirmation_nobody_answers_is_an_expired_task_once_the_sweep_runs(settings, world, operator_client,
                                                                              start, talk, moved_clock):
    from conversations.tasks import expire_pending_task

    delta = Delta(settings)
    conversation = start(operator_client)
    talk(operator_client, conversation, "altera a validade para 29 dias", ui=selection(world.p802))
    moved_clock.advance(301)
    assert expire_pending_task() == 1
    assert delta(TASKS, outcome="expired", execution="none") == 1
    assert _turns(delta, outcome="expired") == (1, 1)


@executes
def test_a_new_request_after_the_confirmation_expired_ends_the_old_task_as_expired(settings, world, operator_client,
                                                                                    start, talk, moved_clock):
    delta = Delta(settings)
    conversation = start(operator_client)
    talk(operator_client, conversation, "altera a validade para 29 dias", ui=selection(world.p802))
    moved_clock.advance(301)
    count = talk(operator_client, conversation, "quantos funcionários existem?")
    assert count["state"]["status"] == "SUCCESS", count["state"]
    assert delta(TASKS, outcome="expired") == 1 and delta(REPLACED) == 0  # nothing was on screen any more
    assert _turns(delta, outcome="expired") == (1, 1) and _turns(delta, outcome="success") == (1, 1)


@executes
def test_the_turn_count_lives_on_the_conversation_row_not_in_the_process(settings, world, operator_client, start,
                                                                         talk, tenant):
    conversation = start(operator_client)
    talk(operator_client, conversation, "altera a validade para 29 dias", ui=selection(world.p802))
    talk(operator_client, conversation, "obrigado")
    task = Conversation.objects.for_tenant(tenant).get(pk=conversation).context["task"]
    assert (task["open"], task["turns"]) == (True, 2)
    delta = Delta(settings)
    talk(operator_client, conversation, "sim")
    assert _turns(delta, outcome="success") == (1, 3)
    assert not Conversation.objects.for_tenant(tenant).get(pk=conversation).context["task"].get("open")


# --- intent replacement ------------------------------------------------------------------------


@executes
def test_a_new_request_over_a_pending_confirmation_is_an_intent_replacement(settings, world, operator_client, start,
                                                                            talk):
    delta = Delta(settings)
    conversation = start(operator_client)
    talk(operator_client, conversation, "altera a validade da permissão 802 para 29 dias")
    question = talk(operator_client, conversation, "adiciona um componente na permissão 771")
    assert "aguardava confirmação" in question["response"]["message"]
    assert delta(REPLACED, pending="confirmation") == 1 and delta(REPLACED) == 1
    assert delta(TASKS, outcome="replaced", execution="none") == 1
    assert _turns(delta, outcome="replaced") == (1, 1)  # the replacing turn opens the next task


@executes
def test_a_new_request_over_a_pending_clarification_is_an_intent_replacement(settings, world, operator_client, start,
                                                                             talk):
    delta = Delta(settings)
    conversation = start(operator_client)
    talk(operator_client, conversation, "altera a validade", ui=selection(world.p802))
    opened = talk(operator_client, conversation, "abre a permissão 802")
    assert opened["response"]["type"] == "navigation", opened["response"]
    assert delta(REPLACED, pending="clarification") == 1
    assert delta(TASKS, outcome="replaced") == 1 and delta(TASKS) == 1  # opening a page is no task


@executes
def test_a_correction_and_a_message_not_understood_replace_nothing(settings, world, operator_client, start, talk):
    delta = Delta(settings)
    conversation = start(operator_client)
    talk(operator_client, conversation, "coloca montagem de andaime", ui=selection(world.p802))
    talk(operator_client, conversation, "nao, na verdade quero ruido continuo")
    talk(operator_client, conversation, "xyzzy plugh")
    assert delta(REPLACED) == 0 and delta(TASKS) == 0
    talk(operator_client, conversation, "sim")
    assert _turns(delta, outcome="success") == (1, 4)


# --- stale context -----------------------------------------------------------------------------


@executes
def test_a_moved_selection_at_confirmation_is_a_stale_context_event(settings, world, operator_client, start, talk):
    delta = Delta(settings)
    conversation = start(operator_client)
    talk(operator_client, conversation, "set the validity to 12 days", ui=selection(world.p802))
    warned = talk(operator_client, conversation, "yes", ui=selection(world.p771))
    assert warned["response"]["error"]["code"] == "STALE_CONTEXT"
    assert delta(STALE, reason="selection_changed", at="confirm") == 1
    talk(operator_client, conversation, "yes", ui=selection(world.p771))  # warned once: the second yes goes on
    assert delta(STALE) == 1
    assert _turns(delta, outcome="success") == (1, 3)


@executes
def test_confirming_a_replaced_confirmation_is_a_stale_context_event(settings, world, operator_client, start, talk):
    delta = Delta(settings)
    conversation = start(operator_client)
    first = talk(operator_client, conversation, "coloca montagem de andaime", ui=selection(world.p802))
    talk(operator_client, conversation, "nao, na verdade quero ruido continuo")
    stale = talk(operator_client, conversation, action="confirm",
                 body={"confirmation_id": first["response"]["confirmation"]["id"]})
    assert stale["response"]["error"]["code"] == "CONFIRMATION_STALE"
    assert delta(STALE, reason="confirmation_replaced", at="confirm") == 1 and delta(STALE) == 1


@executes
def test_a_target_edited_since_planning_is_a_stale_context_event_of_the_execution(settings, world, operator_client,
                                                                                   start, talk):
    delta = Delta(settings)
    conversation = start(operator_client)
    talk(operator_client, conversation, "altera a validade para 29 dias", ui=selection(world.p802))
    sst.permit_update(tenant=world.tenant, permit_id=world.p802.pk, number="803")  # someone else edits it
    failed = talk(operator_client, conversation, "sim")
    assert failed["state"]["status"] == "FAILED", failed["state"]
    assert delta(STALE, reason="target_changed", at="execution") == 1
    assert delta(TASKS, outcome="failed", execution="write") == 1


@executes
def test_a_retry_on_another_screen_is_a_stale_context_event(settings, world, operator_client, start, talk):
    settings.SST_FAULT_INJECTION = True
    conversation = start(operator_client)
    fault = fault_add(tenant=world.tenant, route="sst:permit-validity", status=503)
    talk(operator_client, conversation, "muda a validade pra 44 dias", ui=selection(world.p802))
    assert talk(operator_client, conversation, "confirmo")["state"]["status"] == "FAILED"
    fault.delete()
    delta = Delta(settings)
    turn = talk(operator_client, conversation, "tenta de novo", ui=selection(world.p771))
    assert turn["response"]["error"]["code"] == "UI_CONTEXT_CHANGED"
    assert delta(STALE, reason="selection_changed", at="retry") == 1
    assert delta(RECOVERED) == 0 and delta(TASKS) == 0  # refused before anything was planned


# --- failure recovery --------------------------------------------------------------------------


@executes
def test_a_retry_that_succeeds_recovers_the_failed_task(settings, world, operator_client, start, talk):
    settings.SST_FAULT_INJECTION = True
    conversation = _failed_validity(world, operator_client, start, talk)
    delta = Delta(settings)
    again = talk(operator_client, conversation, "tenta de novo")  # its soft confirmation is reused
    assert again["state"]["status"] == "SUCCESS", again["state"]
    assert delta(RECOVERED, via="retry") == 1 and delta(RECOVERED) == 1
    assert delta(TASKS, outcome="success", execution="write") == 1
    # The failure is recovered once: the next success recovers nothing more.
    talk(operator_client, conversation, "altera a validade para 50 dias")
    talk(operator_client, conversation, "sim")
    assert delta(RECOVERED) == 1


@executes
def test_a_new_request_that_writes_after_a_failure_recovers_it(settings, world, operator_client, start, talk):
    settings.SST_FAULT_INJECTION = True
    conversation = _failed_validity(world, operator_client, start, talk)
    delta = Delta(settings)
    talk(operator_client, conversation, "quantos funcionários existem?")
    # A read that succeeds makes nothing good.
    assert delta(TASKS, outcome="success", execution="read") == 1 and delta(RECOVERED) == 0
    talk(operator_client, conversation, "altera a validade da permissão 802 para 44 dias")
    done = talk(operator_client, conversation, "sim")
    assert done["state"]["status"] == "SUCCESS", done["state"]
    assert delta(RECOVERED, via="new_request") == 1 and delta(RECOVERED) == 1


@executes
def test_every_failure_of_a_streak_is_recovered_by_the_success_that_ends_it(settings, world, operator_client, start,
                                                                            talk):
    settings.SST_FAULT_INJECTION = True
    conversation = _failed_validity(world, operator_client, start, talk)
    fault = fault_add(tenant=world.tenant, route="sst:permit-validity", status=503)
    again = talk(operator_client, conversation, "tenta de novo")
    assert again["state"]["status"] == "FAILED", again["state"]
    fault.delete()
    delta = Delta(settings)
    asked = talk(operator_client, conversation, "tenta de novo")  # the retry's plan had no confirmation to reuse
    assert asked["state"]["status"] == "CONFIRMATION_REQUIRED", asked["state"]
    again = talk(operator_client, conversation, "sim")
    assert again["state"]["status"] == "SUCCESS", again["state"]
    assert delta(RECOVERED, via="retry") == 2  # recovery rate = recovered / failed tasks
