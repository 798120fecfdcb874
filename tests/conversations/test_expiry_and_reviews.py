"""The TTL sweep (Celery beat, item 11), human review (API.md /agent/reviews) and the status table."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission

from conftest import client_for, make_user
from conversations.hooks import pending_expire
from conversations.models import Confirmation, Conversation, Level, PendingStatus
from conversations.statemachine import TRANSITIONS, IllegalTransition, Status, check_transition
from events.models import ConversationEvent
from policy.services import review_request_open
from tenancy.models import Role

from .conftest import selection

reviews = pytest.mark.django_db(transaction=True)  # policy tells the conversation after commit



def test_the_sweep_expires_a_pending_confirmation_once_and_tells_the_client(world, operator_client, start, talk,
                                                                           moved_clock, tenant):
    conversation = start(operator_client)
    asked = talk(operator_client, conversation, "altera a validade para 29 dias", ui=selection(world.p802))
    moved_clock.advance(301)
    assert pending_expire() == 1
    assert pending_expire() == 0  # a second beat (or a second sweeper) finds nothing left
    confirmation = Confirmation.objects.for_tenant(tenant).get(pk=asked["response"]["confirmation"]["id"])
    row = Conversation.objects.for_tenant(tenant).get(pk=conversation)
    assert (confirmation.status, row.status) == (PendingStatus.EXPIRED, Status.IDLE)
    assert ConversationEvent.objects.for_tenant(tenant).filter(conversation_id=row.pk,
                                                               type="CONFIRMATION_EXPIRED").count() == 1
    again = talk(operator_client, conversation, "sim")
    assert again["status"] == "CONFIRMATION_REQUIRED" and "expirou" in again["response"]["message"]


def test_the_sweep_expires_a_pending_clarification(world, operator_client, start, talk, moved_clock, tenant):
    conversation = start(operator_client)
    talk(operator_client, conversation, "escala um funcionario", ui=selection(world.p802))
    moved_clock.advance(15 * 60 + 1)
    assert pending_expire() == 1
    state = operator_client.get(f"/agent/conversations/{conversation}").json()
    assert (state["status"], state["pending_clarification"]) == ("IDLE", None)


def test_reads_enforce_the_ttl_even_without_the_sweep(world, operator_client, start, talk, moved_clock):
    conversation = start(operator_client)
    talk(operator_client, conversation, "altera a validade para 29 dias", ui=selection(world.p802))
    moved_clock.advance(301)
    state = operator_client.get(f"/agent/conversations/{conversation}").json()
    assert state["pending_confirmation"] is None


def _human_review(talk, client, conversation, world, tenant, user) -> Confirmation:
    asked = talk(client, conversation, "altera a validade para 29 dias", ui=selection(world.p802))
    confirmation = Confirmation.objects.for_tenant(tenant).get(pk=asked["response"]["confirmation"]["id"])
    review = review_request_open(tenant=tenant, requester=user, conversation_id=confirmation.conversation_id,
                                 plan_id=confirmation.plan_id, plan_hash=confirmation.plan_hash, summary="t")
    Confirmation.objects.for_tenant(tenant).filter(pk=confirmation.pk).update(level=Level.HUMAN_REVIEW,
                                                                              review_request_id=review.pk)
    return confirmation


def _reviewer(tenant):
    user = make_user(tenant, Role.SUPERVISOR)
    user.user_permissions.add(Permission.objects.get(codename="review_conversation", content_type__app_label="policy"))
    return client_for(user, tenant)


def test_the_requesters_own_sim_is_not_enough_for_human_review(world, operator, operator_client, start, talk, tenant):
    conversation = start(operator_client)
    _human_review(talk, operator_client, conversation, world, tenant, operator)
    turn = talk(operator_client, conversation, "sim")
    assert turn["response"]["error"]["code"] == "REVIEW_REQUIRED"


@reviews
def test_reviews_are_listed_only_for_reviewers_and_a_rejection_reaches_the_conversation(
        world, operator, operator_client, start, talk, tenant):
    conversation = start(operator_client)
    confirmation = _human_review(talk, operator_client, conversation, world, tenant, operator)
    assert operator_client.get("/agent/reviews").status_code == 403
    reviewer = _reviewer(tenant)
    listed = reviewer.get("/agent/reviews").json()["reviews"]
    assert [r["id"] for r in listed] == [str(confirmation.pk)]
    decided = reviewer.post(f"/agent/reviews/{confirmation.pk}/reject", {"reason": "fora do prazo"}, format="json")
    assert decided.status_code == 200
    state = operator_client.get(f"/agent/conversations/{conversation}").json()
    assert state["status"] == "CANCELLED" and "fora do prazo" in state["last_response"]["message"]


def test_another_tenants_reviewer_cannot_decide(world, operator, operator_client, start, talk, tenant, other_tenant):
    conversation = start(operator_client)
    confirmation = _human_review(talk, operator_client, conversation, world, tenant, operator)
    outsider = _reviewer(other_tenant)
    assert outsider.post(f"/agent/reviews/{confirmation.pk}/approve", {}, format="json").status_code == 404


def test_every_status_has_a_row_and_illegal_transitions_raise():
    assert set(TRANSITIONS) == set(Status.values)
    assert check_transition(Status.CONFIRMATION_REQUIRED, Status.EXECUTING) == Status.EXECUTING
    with pytest.raises(IllegalTransition):
        check_transition(Status.IDLE, Status.EXECUTING)
    with pytest.raises(IllegalTransition):
        check_transition(Status.CLOSED, Status.UNDERSTANDING)
    with pytest.raises(IllegalTransition):
        check_transition(Status.SUCCESS, Status.EXECUTING)
