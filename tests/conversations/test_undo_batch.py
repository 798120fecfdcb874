"""Undo of a batch evaluation (issue 19 point 2): the decisions its batch recorded are withdrawn through
the registered undo of the decision capability, one removal per completed item, last recorded first,
planned as one batch under one confirmation that says how many; each removal authorised by policy; a
partial undo reported as partial; refused to anyone else, to a viewer and after the undo window."""

from __future__ import annotations

import pytest

from conftest import client_for, make_user
from execution.models import BatchItem, Execution
from planning.models import ExecutionPlan
from policy.models import ReceiptCheck
from sst.models import PermitEvaluation
from tenancy.models import Membership, Role

executes = pytest.mark.django_db(transaction=True)
pytestmark = pytest.mark.usefixtures("lanes")


@pytest.fixture
def drafts(world):
    """The world's three draft permits (771 Delta, 771 Omega, 802), evaluated by "avalie … em rascunho"."""
    return {world.p771.pk, world.p771_omega.pk, world.p802.pk}


@pytest.fixture
def faults(settings):
    settings.SST_FAULT_INJECTION = True


def _evaluated(tenant) -> set[int]:
    return set(PermitEvaluation.objects.for_tenant(tenant).values_list("permit_id", flat=True))


def _evaluate(client, conversation, talk, ask="avalie as permissões em rascunho", yes="sim"):
    talk(client, conversation, ask)
    done = talk(client, conversation, yes)["state"]
    assert done["status"] in ("SUCCESS", "PARTIAL_SUCCESS"), done
    return done


@executes
def test_a_batch_evaluation_is_undone_under_one_confirmation_that_says_how_many(world, drafts, operator_client,
                                                                               start, talk):
    conversation = start(operator_client)
    _evaluate(operator_client, conversation, talk)
    assert _evaluated(world.tenant) == drafts
    asked = talk(operator_client, conversation, "desfaça")
    response = asked["response"]
    assert asked["status"] == "CONFIRMATION_REQUIRED" and response["type"] == "confirmation", response
    assert "retirar a avaliação de 3 permissões" in response["message"], response["message"]
    assert {a["id"] for a in response["confirmation"]["affected"]} == {str(i) for i in drafts}
    assert _evaluated(world.tenant) == drafts  # only asked

    plan = ExecutionPlan.objects.for_tenant(world.tenant).latest("created_at")
    [step] = plan.steps.all()
    original = Execution.objects.for_tenant(world.tenant).get(plan__template="workPermit.evaluateBatch")
    finished = list(BatchItem.objects.for_tenant(world.tenant).filter(execution=original, step_id="decision")
                    .order_by("-finished_at", "-position").values_list("target_id", flat=True))
    assert (step.capability_id, step.for_each) == ("workPermit.evaluations.remove", "${targets}")
    assert [t["id"] for t in step.targets] == finished  # the last decision recorded is withdrawn first
    recorded = dict(PermitEvaluation.objects.for_tenant(world.tenant).values_list("permit_id", "pk"))
    assert {t["id"]: t["args"]["evaluation_id"] for t in step.targets} == recorded

    done = talk(operator_client, conversation, "sim")["state"]
    assert done["status"] == "SUCCESS", done
    assert _evaluated(world.tenant) == set()
    assert done["last_result"]["message"] == "Desfeito: retirar a avaliação de 3 permissões."
    undo = Execution.objects.for_tenant(world.tenant).get(plan=plan)
    checked = ReceiptCheck.objects.for_tenant(world.tenant).filter(execution_id=str(undo.pk), ok=True)
    assert checked.count() >= 3  # policy re-checked every removal before it ran


@executes
def test_an_english_undo_is_confirmed_and_reported_in_english(world, drafts, operator_client, start, talk):
    conversation = start(operator_client)
    _evaluate(operator_client, conversation, talk, "evaluate all the draft permits", "yes")
    asked = talk(operator_client, conversation, "undo that")["response"]
    assert "withdraw the evaluation of 3 permits" in asked["message"], asked
    done = talk(operator_client, conversation, "yes")["state"]
    assert done["last_result"]["message"] == "Undone: withdraw the evaluation of 3 permits."


@executes
def test_a_removal_that_fails_leaves_the_undo_partial_and_names_where(world, drafts, operator_client, start, talk,
                                                                     faults):
    from sst.faults import fault_add

    conversation = start(operator_client)
    _evaluate(operator_client, conversation, talk)
    # The removal on permit 802 is refused (not retryable): its decision stays, the others go.
    fault_add(tenant=world.tenant, route="sst:permit-evaluation-detail", status=400, match={"permit": "802"})
    talk(operator_client, conversation, "desfaz")
    done = talk(operator_client, conversation, "sim")["state"]
    assert done["status"] == "PARTIAL_SUCCESS", done
    assert _evaluated(world.tenant) == {world.p802.pk}
    message = done["last_result"]["message"]
    assert message.startswith("Desfeito só em parte: retirar a avaliação de 2 de 3 permissões"), message
    assert message.endswith("não foi possível desfazer em 802.")


@executes
def test_items_that_failed_in_the_batch_are_not_undone(world, drafts, operator_client, start, talk, faults):
    from sst.faults import fault_add

    # The training check of 802 is refused: its decision is never recorded, so there is nothing to undo there.
    fault_add(tenant=world.tenant, route="sst:permit-training", status=400, match={"permit": "802"})
    conversation = start(operator_client)
    _evaluate(operator_client, conversation, talk)
    assert _evaluated(world.tenant) == drafts - {world.p802.pk}
    asked = talk(operator_client, conversation, "desfaça")["response"]
    assert "de 2 permissões:" in asked["message"], asked
    assert str(world.p802.pk) not in {a["id"] for a in asked["confirmation"]["affected"]}
    assert talk(operator_client, conversation, "sim")["state"]["status"] == "SUCCESS"
    assert _evaluated(world.tenant) == set()


@executes
def test_another_user_or_tenant_cannot_undo_it(world, drafts, operator_client, other_client, start, talk, tenant):
    conversation = start(operator_client)
    _evaluate(operator_client, conversation, talk)
    colleague = client_for(make_user(tenant, Role.OPERATOR), tenant)
    for intruder in (colleague, other_client):  # someone else's conversation is not found
        response = intruder.post(f"/agent/conversations/{conversation}/messages", {"text": "desfaça"}, format="json")
        assert response.status_code == 404
        response = intruder.post(f"/agent/conversations/{conversation}/undo", {}, format="json")
        assert response.status_code == 404
    own = start(colleague)  # and in their own conversation there is nothing of theirs to undo
    turn = talk(colleague, own, "desfaça")["response"]
    assert turn["error"]["code"] == "NOTHING_TO_UNDO" and turn["confirmation"] is None
    assert _evaluated(world.tenant) == drafts


@executes
def test_a_viewer_cannot_undo_it(world, drafts, operator, operator_client, start, talk, tenant):
    conversation = start(operator_client)
    _evaluate(operator_client, conversation, talk)
    Membership.objects.filter(user=operator, tenant=tenant).update(role=Role.VIEWER)  # demoted since
    turn = talk(operator_client, conversation, "desfaça")["response"]
    assert turn["type"] == "error" and turn["error"]["code"] == "POLICY_DENIED", turn
    assert turn["confirmation"] is None
    assert _evaluated(world.tenant) == drafts


@executes
def test_after_the_undo_window_it_is_refused(world, drafts, operator_client, start, talk, moved_clock):
    conversation = start(operator_client)
    _evaluate(operator_client, conversation, talk)
    moved_clock.advance(3600 + 60)  # recordDecision's undo: expires_after_seconds 3600
    turn = talk(operator_client, conversation, "desfaça")["response"]
    assert turn["error"]["code"] == "UNDO_EXPIRED" and turn["confirmation"] is None, turn
    assert _evaluated(world.tenant) == drafts


@executes
def test_the_undo_itself_cannot_be_undone_its_removal_has_no_registered_undo(world, drafts, operator_client, start,
                                                                             talk):
    conversation = start(operator_client)
    _evaluate(operator_client, conversation, talk)
    talk(operator_client, conversation, "desfaz")
    assert talk(operator_client, conversation, "sim")["state"]["status"] == "SUCCESS"
    again = talk(operator_client, conversation, "desfaz")["response"]
    assert again["error"]["code"] == "NOT_UNDOABLE" and again["confirmation"] is None, again
    assert _evaluated(world.tenant) == set()
