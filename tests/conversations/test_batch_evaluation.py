"""A batch evaluation asked in chat (PRD-034 §110-§111): the registry's `language.batch` on the decision
capability selects the permits through the search read, plans `workPermit.evaluateBatch`, asks with the
count and runs over exactly the selection. Names, numbers and phrasings are our own."""

from __future__ import annotations

import re

import pytest

from execution.control import lanes_clear
from planning.models import ExecutionPlan
from sst import services as sst
from sst.models import PermitEvaluation

executes = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _lanes(tenant):
    lanes_clear(tenant.pk)
    yield
    lanes_clear(tenant.pk)


@pytest.fixture
def drafts(world):
    """Three draft permits of the world (771 Delta, 771 Omega, 802) and one more, approved."""
    approved = sst.permit_create(tenant=world.tenant, company=world.delta, number="915", validity_days=15,
                                 responsible=world.bruno, workers=[world.bruno])
    sst.permit_approve(tenant=world.tenant, permit_id=approved.pk)
    return {"ids": {world.p771.pk, world.p771_omega.pk, world.p802.pk}, "approved": approved}


def _evaluated(tenant) -> set[int]:
    return set(PermitEvaluation.objects.for_tenant(tenant).values_list("permit_id", flat=True))


@executes
def test_evaluating_the_draft_permits_asks_with_their_count_then_records_one_evaluation_each(
        world, drafts, operator_client, start, talk):
    conversation = start(operator_client)
    asked = talk(operator_client, conversation, "por favor avalia as permissoes em rascunho")
    assert asked["response"]["type"] == "confirmation", asked
    assert re.search(r"\b3\b", asked["response"]["message"]) and "rascunho" in asked["response"]["message"]
    assert {a["id"] for a in asked["response"]["confirmation"]["affected"]} == {str(i) for i in drafts["ids"]}
    assert _evaluated(world.tenant) == set()  # nothing runs before "sim"

    done = talk(operator_client, conversation, "sim")
    state = done["state"]
    assert state["status"] == "SUCCESS", state
    assert _evaluated(world.tenant) == drafts["ids"]  # each draft once, never the approved one
    assert drafts["approved"].pk not in _evaluated(world.tenant)
    reply = state["last_result"]["message"]
    assert "3 permissão(ões) avaliada(s)" in reply and "aprovada(s)" in reply and "sinalizada(s)" in reply


@executes
def test_the_plan_is_the_batch_template_over_exactly_the_selected_permits(world, drafts, operator_client, start,
                                                                           talk):
    conversation = start(operator_client)
    talk(operator_client, conversation, "Please assess every draft work permit")
    plan = ExecutionPlan.objects.for_tenant(world.tenant).latest("created_at")
    assert plan.template == "workPermit.evaluateBatch"
    targets = {int(t["id"]) for s in plan.steps.all() for t in s.targets}
    assert targets == drafts["ids"]


@executes
def test_an_english_request_is_confirmed_and_reported_in_english(world, drafts, operator_client, start, talk):
    conversation = start(operator_client)
    asked = talk(operator_client, conversation, "evaluate all the draft permits")
    response = asked["response"]
    assert response["type"] == "confirmation" and "evaluate 3 work permit(s) draft" in response["message"], asked
    done = talk(operator_client, conversation, "yes")
    assert done["state"]["status"] == "SUCCESS"
    assert done["state"]["last_result"]["message"].startswith("Evaluation finished: 3 permit(s) evaluated")


@executes
def test_a_viewer_asking_for_the_evaluation_is_denied_and_nothing_is_recorded(world, drafts, viewer_client,
                                                                             start, talk):
    conversation = start(viewer_client)
    turn = talk(viewer_client, conversation, "avaliem todas as permissões em rascunho")
    assert turn["response"]["type"] == "error" and turn["response"]["error"]["code"] == "POLICY_DENIED", turn
    assert _evaluated(world.tenant) == set()


@executes
def test_with_no_draft_permit_it_says_there_is_nothing_to_evaluate_without_planning(
        registry, tenant, operator_client, start, talk):
    company = sst.company_create(tenant=tenant, name="Kappa Montagens")
    closed = sst.permit_create(tenant=tenant, company=company, number="330", validity_days=5)
    sst.permit_approve(tenant=tenant, permit_id=closed.pk)
    conversation = start(operator_client)
    turn = talk(operator_client, conversation, "avalie as permissões em rascunho")
    assert (turn["response"]["type"], turn["response"]["message"]) == (
        "answer", "Nenhuma permissão de trabalho em rascunho para avaliar.")
    assert not ExecutionPlan.objects.for_tenant(tenant).exists()
    assert not PermitEvaluation.objects.for_tenant(tenant).exists()


@executes
def test_the_verb_alone_never_widens_to_every_permit(world, drafts, operator_client, start, talk):
    conversation = start(operator_client)
    turn = talk(operator_client, conversation, "avaliar")
    assert turn["response"]["type"] == "clarification"
    assert not ExecutionPlan.objects.for_tenant(world.tenant).exists()


# --- partial success and replanning (PRD-034 §55-§60, §116) ------------------------------------


@pytest.fixture
def faults(settings):
    settings.SST_FAULT_INJECTION = True
    settings.RUNTIME_REPLAN_AFTER_SECONDS = 0
    settings.RUNTIME_MAX_WAIT_SECONDS = 1


@executes
@pytest.mark.parametrize("ask, yes, expected", [
    ("avalie as permissões em rascunho", "sim",
     ["Avaliação concluída: 2 permissão(ões) avaliada(s)", "Falharam: 802."]),
    ("evaluate all the draft permits", "yes", ["Evaluation finished: 2 permit(s) evaluated", "Failed: 802."]),
])
def test_when_one_permit_fails_the_batch_ends_partial_and_says_how_many_succeeded_and_which_failed(
        world, drafts, operator_client, start, talk, faults, ask, yes, expected):
    from sst.faults import fault_add

    # The training check of permit 802 is refused (not retryable): that permit cannot be decided.
    fault_add(tenant=world.tenant, route="sst:permit-training", status=400, match={"permit": "802"})
    conversation = start(operator_client)
    talk(operator_client, conversation, ask)
    state = talk(operator_client, conversation, yes)["state"]
    assert state["status"] == "PARTIAL_SUCCESS", state
    assert state["last_result"]["status"] == "partially_completed"
    assert _evaluated(world.tenant) == drafts["ids"] - {world.p802.pk}
    reply = state["last_result"]["message"]
    assert all(part in reply for part in expected), reply
    assert "771" not in reply.split(expected[1].split(":")[0])[1]  # only the failed permit is named as failed


@pytest.fixture
def replan_hook():
    """conversations.apps registers it in production; registered here too so the test does not depend on it."""
    from conversations.batch import batch_replan_ask
    from execution.hooks import _hooks, register_completion_hook, unregister_completion_hook

    registered = batch_replan_ask in _hooks
    register_completion_hook(batch_replan_ask)
    yield
    if not registered:
        unregister_completion_hook(batch_replan_ask)


def _conservative_plan(body):
    """The fake model: asked to replan without training, decide conservatively (trained = false)."""
    import json

    if "You plan operations" not in body["messages"][0]["content"]:
        return "{}"
    item = {"permit_id": "${item.id}"}
    return json.dumps({"allow_partial": True, "steps": [
        {"id": "risk", "capability": "workPermit.assessRisk", "input": item, "for_each": "${targets}"},
        {"id": "compliance", "capability": "workPermit.checkCompliance", "input": item, "for_each": "${targets}"},
        {"id": "decision", "capability": "workPermit.recordDecision", "depends_on": ["risk", "compliance"],
         "for_each": "${targets}", "input": {**item, "trained": False, "risk_level": "${item.results.risk.level}",
                                             "compliant": "${item.results.compliance.compliant}"}}]})


@executes
def test_a_material_replan_is_asked_in_the_conversation_and_runs_only_after_sim(
        world, drafts, operator_client, start, talk, faults, fake_llm, replan_hook):
    from execution.models import Execution, RuntimeReplan
    from sst.faults import fault_add

    fault_add(tenant=world.tenant, route="sst:permit-training", status=503)  # training is gone, no fallback
    fake_llm.responder = _conservative_plan
    conversation = start(operator_client)
    talk(operator_client, conversation, "avalie as permissões em rascunho")
    asked = talk(operator_client, conversation, "sim")["state"]

    replan = RuntimeReplan.objects.for_tenant(world.tenant).get()
    assert (replan.outcome, replan.strategy) == ("REAPPROVAL_REQUIRED", "LLM")
    assert asked["status"] == "CONFIRMATION_REQUIRED", asked
    question = asked["last_response"]
    assert question["type"] == "confirmation" and question["confirmation"]["plan_id"] == str(replan.plan_id)
    assert "“Verificando treinamento” não pode continuar" in question["message"]
    assert "nova confirmação" in question["message"] and "sem: Verificando treinamento" in question["message"]
    assert {a["id"] for a in question["confirmation"]["affected"]} == {str(i) for i in drafts["ids"]}
    assert _evaluated(world.tenant) == set()  # nothing of the new plan before "sim"
    assert not Execution.objects.for_tenant(world.tenant).filter(plan=replan.plan_id).exists()

    done = talk(operator_client, conversation, "sim")["state"]
    assert done["status"] == "SUCCESS", done
    assert _evaluated(world.tenant) == drafts["ids"]
    new = Execution.objects.for_tenant(world.tenant).get(plan=replan.plan_id)
    assert new.status == "completed" and str(new.receipt_id) != replan.decision["receipt_id"]  # a new ALLOW
    assert "3 permissão(ões) avaliada(s), 0 aprovada(s) e 3 sinalizada(s)" in done["last_result"]["message"]
