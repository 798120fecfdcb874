"""Items 3-8 of the issue through the REST API, with names, numbers and phrasings of our own (pt-BR with
and without accents, informal forms, English) — none taken from the shared scenario files."""

from __future__ import annotations

import pytest

from conversations.models import Confirmation
from knowledge.services import knowledge_package_create
from sst.faults import fault_add
from sst.models import WorkPermit
from tenancy import clock

from .conftest import selection

# Executions run their steps as Celery tasks (inline here); a task starts with close_old_connections(),
# which closes a connection held inside a test's wrapping transaction — so tests that execute commit for real.
executes = pytest.mark.django_db(transaction=True)


def _permit(world, pk) -> WorkPermit:
    return WorkPermit.objects.for_tenant(world.tenant).get(pk=pk)


def _components(world, permit) -> set[str]:
    return set(_permit(world, permit.pk).components.values_list("component_type__name", flat=True))


def _types(turn) -> list[str]:
    return [e["type"] for e in turn["events"]]


# --- navigation and references -------------------------------------------------------------


def test_informal_unaccented_open_navigates_without_an_llm(world, operator_client, start, talk):
    conversation = start(operator_client)
    turn = talk(operator_client, conversation, "abre a PT 802")
    nav = turn["response"]["navigation"]
    assert (turn["response"]["type"], nav["entity"]["label"], nav["entity"]["company"]) == (
        "navigation", "802", "Delta Engenharia")
    assert turn["metrics"]["llm_calls"] == 0


def test_english_open_and_tab_answer_in_english(world, operator_client, start, talk):
    conversation = start(operator_client)
    talk(operator_client, conversation, "open permit 802")
    turn = talk(operator_client, conversation, "switch to the workers tab")
    assert turn["response"]["navigation"]["tab"] == "workers"
    assert turn["response"]["message"].startswith("Opening")


def test_a_tab_named_by_a_synonym_opens_on_the_active_permit(world, operator_client, start, talk):
    conversation = start(operator_client)
    talk(operator_client, conversation, "abra a permissão 802")
    turn = talk(operator_client, conversation, "me leva pros riscos")
    assert (turn["response"]["navigation"]["entity"]["label"], turn["response"]["navigation"]["tab"]) == (
        "802", "components")


def test_two_permits_with_one_number_are_never_chosen_silently(world, operator_client, start, talk):
    conversation = start(operator_client)
    turn = talk(operator_client, conversation, "abrir permissao 771")
    candidates = turn["response"]["clarification"]["candidates"]
    assert (turn["status"], len(candidates), turn["response"]["navigation"]) == ("CLARIFICATION_REQUIRED", 2, None)
    answer = talk(operator_client, conversation, "a da omega")
    assert answer["response"]["navigation"]["entity"]["company"] == "Omega Serviços"
    assert "CLARIFICATION_RESOLVED" in _types(answer)


def test_a_correction_moves_the_active_entity_to_the_other_company(world, operator_client, start, talk):
    conversation = start(operator_client)
    ui = {"applicationId": "sst", "filters": {"company": str(world.delta.pk)}}
    first = talk(operator_client, conversation, "abra a permissão 771", ui=ui)
    assert first["response"]["navigation"]["entity"]["company"] == "Delta Engenharia"
    fixed = talk(operator_client, conversation, "na verdade a da Omega Serviços")
    assert fixed["response"]["navigation"]["entity"]["id"] == str(world.p771_omega.pk)
    assert "CORRECTION_RECEIVED" in _types(fixed)
    assert fixed["state"]["active_entity"]["id"] == world.p771_omega.pk


def test_another_tenants_selection_is_ignored_and_never_echoed(world, operator_client, other_tenant, start, talk):
    from sst import services as sst

    foreign_company = sst.company_create(tenant=other_tenant, name="Zeta Segredos")
    foreign = sst.permit_create(tenant=other_tenant, company=foreign_company, number="909", validity_days=10)
    conversation = start(operator_client)
    turn = talk(operator_client, conversation, "altera a validade para 50 dias", ui=selection(foreign))
    assert turn["response"]["type"] == "clarification"
    assert "Zeta" not in str(turn) and "909" not in turn["response"]["message"]
    assert not Confirmation.objects.for_tenant(world.tenant).exists()


# --- operations, confirmation ----------------------------------------------------------------


@executes
def test_add_a_component_asks_then_pode_seguir_executes(world, operator_client, start, talk):
    conversation = start(operator_client)
    asked = talk(operator_client, conversation, "inclua solda eletrica", ui=selection(world.p802))
    assert asked["status"] == "CONFIRMATION_REQUIRED"
    assert "Solda Elétrica" in asked["response"]["message"] and "802" in asked["response"]["message"]
    assert _components(world, world.p802) == set()
    done = talk(operator_client, conversation, "pode seguir")
    assert (done["status"], done["metrics"]["llm_calls"]) == ("SUCCESS", 0)
    assert "CONFIRMATION_RECEIVED" in _types(done) and "EXECUTION_COMPLETED" in _types(done)
    assert _components(world, world.p802) == {"Solda Elétrica"}


def test_a_bare_nao_declines_the_pending_confirmation(world, operator_client, start, talk):
    conversation = start(operator_client)
    talk(operator_client, conversation, "coloca montagem de andaime", ui=selection(world.p802))
    turn = talk(operator_client, conversation, "Não")
    assert turn["status"] == "CANCELLED" and "EXECUTION_CANCELLED" in _types(turn)
    again = talk(operator_client, conversation, "confirmo")
    assert again["response"]["error"]["code"] == "NOTHING_PENDING"
    assert _components(world, world.p802) == set()


@pytest.mark.parametrize("phrase", ["deixa pra la", "esquece isso", "never mind", "Pare!"])
def test_cancel_phrasings_cancel_the_pending_step(world, operator_client, start, talk, phrase):
    conversation = start(operator_client)
    talk(operator_client, conversation, "mude a validade para 33 dias", ui=selection(world.p802))
    turn = talk(operator_client, conversation, phrase)
    assert (turn["status"], turn["metrics"]["llm_calls"]) == ("CANCELLED", 0)
    assert "EXECUTION_CANCELLED" in _types(turn)
    assert _permit(world, world.p802.pk).validity_days == 20


def test_a_cancel_verb_with_an_object_is_the_business_capability(world, supervisor_client, start, talk):
    conversation = start(supervisor_client)
    turn = talk(supervisor_client, conversation, "cancele a permissão 802")
    confirmation = turn["response"]["confirmation"]
    assert (turn["status"], confirmation["level"]) == ("CONFIRMATION_REQUIRED", "strong")
    assert "802" in turn["response"]["message"] and "Delta Engenharia" in turn["response"]["message"]


@executes
def test_a_strong_confirmation_names_the_resource_and_the_risk_and_the_button_confirms(world, supervisor_client,
                                                                                        start, talk):
    conversation = start(supervisor_client)
    asked = talk(supervisor_client, conversation, "apague a permissao 802")
    assert "802" in asked["response"]["message"] and "alto" in asked["response"]["message"]
    done = talk(supervisor_client, conversation, action="confirm",
                body={"confirmation_id": asked["response"]["confirmation"]["id"]})
    assert done["status"] == "SUCCESS"
    assert not WorkPermit.objects.for_tenant(world.tenant).filter(pk=world.p802.pk).exists()


@executes
def test_a_viewer_is_denied_by_policy_with_the_reason(world, viewer_client, start, talk):
    conversation = start(viewer_client)
    turn = talk(viewer_client, conversation, "delete permit 802")
    assert (turn["status"], turn["response"]["type"]) == ("FAILED", "error")
    assert turn["response"]["error"]["code"] == "POLICY_DENIED"


@executes
def test_changing_the_object_invalidates_the_earlier_confirmation(world, operator_client, start, talk):
    conversation = start(operator_client)
    first = talk(operator_client, conversation, "coloca montagem de andaime", ui=selection(world.p802))
    second = talk(operator_client, conversation, "nao, na verdade quero ruido continuo")
    assert "Ruído Contínuo" in second["response"]["message"] and second["status"] == "CONFIRMATION_REQUIRED"
    stale = talk(operator_client, conversation, action="confirm",
                 body={"confirmation_id": first["response"]["confirmation"]["id"]})
    assert stale["response"]["error"]["code"] == "CONFIRMATION_STALE"
    assert _components(world, world.p802) == set()
    talk(operator_client, conversation, action="confirm",
         body={"confirmation_id": second["response"]["confirmation"]["id"]})
    assert _components(world, world.p802) == {"Ruído Contínuo"}


@executes
def test_a_bare_number_in_a_correction_retargets_to_that_permit(world, operator_client, start, talk):
    conversation = start(operator_client)
    talk(operator_client, conversation, "prorroga para 40 dias", ui=selection(world.p771))
    fixed = talk(operator_client, conversation, "não, é a 802", ui=selection(world.p771))
    assert "802" in fixed["response"]["message"] and "40" in fixed["response"]["message"]
    talk(operator_client, conversation, "yes")
    assert (_permit(world, world.p802.pk).validity_days, _permit(world, world.p771.pk).validity_days) == (40, 20)


def test_yes_without_anything_pending_does_nothing(world, operator_client, start, talk):
    conversation = start(operator_client)
    turn = talk(operator_client, conversation, "yes")
    assert (turn["response"]["error"]["code"], turn["metrics"]["llm_calls"]) == ("NOTHING_PENDING", 0)


# --- clarification -----------------------------------------------------------------------------


def test_slot_filling_completes_the_pending_intent(world, operator_client, start, talk):
    conversation = start(operator_client)
    asked = talk(operator_client, conversation, "escala um funcionario", ui=selection(world.p802))
    assert asked["status"] == "CLARIFICATION_REQUIRED"
    answered = talk(operator_client, conversation, "Bruno Teixeira")
    assert answered["status"] == "CONFIRMATION_REQUIRED" and "Bruno Teixeira" in answered["response"]["message"]


def test_an_ambiguous_first_name_lists_the_candidates_and_a_surname_settles_it(world, operator_client, start, talk):
    conversation = start(operator_client)
    asked = talk(operator_client, conversation, "adiciona a Ana", ui=selection(world.p802))
    labels = {c["label"] for c in asked["response"]["clarification"]["candidates"]}
    assert labels == {"Ana Costa", "Ana Ribeiro"}
    answered = talk(operator_client, conversation, "a Ribeiro")
    assert "Ana Ribeiro" in answered["response"]["message"]


def test_an_expired_clarification_completes_nothing(world, operator_client, start, talk, settings):
    settings.AGENT_TEST_CONTROL = True
    clock.reset()
    conversation = start(operator_client)
    talk(operator_client, conversation, "escala um funcionario", ui=selection(world.p802))
    clock.advance(16 * 60)
    try:
        turn = talk(operator_client, conversation, "Bruno Teixeira")
    finally:
        clock.reset()
    assert turn["status"] != "CONFIRMATION_REQUIRED"
    assert "CLARIFICATION_EXPIRED" in _types(turn)


# --- expiry, stale context ------------------------------------------------------------------------


@executes
def test_sim_after_the_ttl_does_not_execute_and_asks_again(world, operator_client, start, talk, settings):
    settings.AGENT_TEST_CONTROL = True
    clock.reset()
    conversation = start(operator_client)
    talk(operator_client, conversation, "altere a validade para 25 dias", ui=selection(world.p802))
    clock.advance(301)
    try:
        late = talk(operator_client, conversation, "sim")
    finally:
        clock.reset()
    assert late["status"] == "CONFIRMATION_REQUIRED" and "expirou" in late["response"]["message"]
    assert "CONFIRMATION_EXPIRED" in _types(late)
    assert _permit(world, world.p802.pk).validity_days == 20
    talk(operator_client, conversation, "sim")
    assert _permit(world, world.p802.pk).validity_days == 25


@executes
def test_a_moved_selection_keeps_the_planned_target_and_asks_first(world, operator_client, start, talk):
    conversation = start(operator_client)
    talk(operator_client, conversation, "set the validity to 12 days", ui=selection(world.p802))
    warned = talk(operator_client, conversation, "yes", ui=selection(world.p771))
    assert warned["status"] == "CONFIRMATION_REQUIRED" and "STALE_CONTEXT_DETECTED" in _types(warned)
    assert "802" in warned["response"]["message"]
    talk(operator_client, conversation, "yes", ui=selection(world.p771))
    assert (_permit(world, world.p802.pk).validity_days, _permit(world, world.p771.pk).validity_days) == (12, 20)


# --- undo, retry, follow-up, questions ------------------------------------------------------------


@executes
def test_undo_runs_the_registered_compensation_under_its_own_confirmation(world, operator_client, start, talk):
    conversation = start(operator_client)
    talk(operator_client, conversation, "add the welding component", ui=selection(world.p802))
    talk(operator_client, conversation, "go ahead")
    asked = talk(operator_client, conversation, "undo")
    assert asked["status"] == "CONFIRMATION_REQUIRED" and "UNDO_REQUESTED" in _types(asked)
    assert "Solda Elétrica" in asked["response"]["message"]
    talk(operator_client, conversation, "yes")
    assert _components(world, world.p802) == set()


@executes
def test_an_operation_without_a_registered_undo_is_refused(world, operator_client, start, talk):
    conversation = start(operator_client)
    talk(operator_client, conversation, "muda a validade pra 22 dias", ui=selection(world.p802))
    talk(operator_client, conversation, "ok")
    turn = talk(operator_client, conversation, "desfaz")
    assert turn["response"]["error"]["code"] == "NOT_UNDOABLE" and "desfeita" in turn["response"]["message"]
    assert _permit(world, world.p802.pk).validity_days == 22


@executes
def test_retry_reuses_the_soft_confirmation_of_the_same_plan(world, operator_client, start, talk, settings):
    settings.SST_FAULT_INJECTION = True
    conversation = start(operator_client)
    fault = fault_add(tenant=world.tenant, route="sst:permit-validity", status=503)
    talk(operator_client, conversation, "estende a permissão 802 para 44 dias")
    failed = talk(operator_client, conversation, "confirmo")
    assert failed["status"] == "FAILED"
    fault.delete()
    retried = talk(operator_client, conversation, "tenta de novo")
    assert (retried["status"], retried["metrics"]["llm_calls"]) == ("SUCCESS", 0)
    assert _permit(world, world.p802.pk).validity_days == 44


def test_a_field_question_is_answered_from_the_read_and_sets_the_topic(world, operator_client, start, talk):
    conversation = start(operator_client)
    answer = talk(operator_client, conversation, "qual é a validade da permissão 802?")
    assert answer["response"]["type"] == "answer" and "20" in answer["response"]["message"]
    follow = talk(operator_client, conversation, "troca para 35")
    assert follow["status"] == "CONFIRMATION_REQUIRED" and "35" in follow["response"]["message"]
    assert follow["response"]["confirmation"] is not None and "802" in follow["response"]["message"]


@executes
def test_a_counting_question_runs_the_count_capability(world, operator_client, start, talk):
    conversation = start(operator_client)
    turn = talk(operator_client, conversation, "how many employees are there?")
    state = turn["state"]
    assert state["last_result"]["status"] == "completed" and "3" in state["last_result"]["message"]
    assert state["last_result"]["execution"]["steps"][0]["capability"] == "employee.count"


@executes
def test_explain_this_component_uses_the_last_result(world, operator_client, start, talk):
    knowledge_package_create(tenant=world.tenant, documents=[
        {"title": "Montagem de Andaime", "body": "Andaimes exigem guarda-corpo e inspeção diária antes do uso."},
        {"title": "Solda Elétrica", "body": "A solda exige biombo e extintor por perto."}])
    conversation = start(operator_client)
    talk(operator_client, conversation, "bota montagem de andaime", ui=selection(world.p802))
    talk(operator_client, conversation, "manda ver")
    turn = talk(operator_client, conversation, "explica esse componente")
    assert turn["response"]["type"] == "answer" and "guarda-corpo" in turn["response"]["message"]
