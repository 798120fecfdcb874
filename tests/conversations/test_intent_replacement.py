"""Intent replacement (issue #16 item 5): a new request while a confirmation, a clarification or a
human review is pending supersedes it — its row closed, an INTENT_UPDATED event, a word in the
reply — so a later "sim" answers only the question on screen. One test per pending kind, each an
attack: the old operation must not run."""

from __future__ import annotations

from conversations.models import Clarification, Confirmation, PendingStatus
from events.models import ConversationEvent

from .conftest import selection
from .test_expiry_and_reviews import _human_review


def _superseded_events(tenant, conversation: str) -> list[dict]:
    return [e.payload for e in ConversationEvent.objects.for_tenant(tenant).filter(
        conversation_id=conversation, type="INTENT_UPDATED") if e.payload.get("reason") == "superseded"]


def test_a_new_request_that_becomes_a_question_supersedes_the_pending_confirmation(
        world, operator_client, start, talk, tenant):
    conversation = start(operator_client)
    asked = talk(operator_client, conversation, "altera a validade da permissão 802 para 29 dias")
    old = asked["response"]["confirmation"]["id"]
    question = talk(operator_client, conversation, "adiciona um componente na permissão 771")
    assert question["status"] == "CLARIFICATION_REQUIRED"
    assert "aguardava confirmação" in question["response"]["message"]
    assert Confirmation.objects.for_tenant(tenant).get(pk=old).status == PendingStatus.INVALIDATED
    assert [e.get("invalidated_confirmation") for e in _superseded_events(tenant, conversation)] == [old]
    after = talk(operator_client, conversation, "sim")
    assert after["response"].get("execution") is None
    world.p802.refresh_from_db()
    assert world.p802.validity_days == 20  # the superseded change never ran


def test_a_new_request_supersedes_the_pending_clarification(world, operator_client, start, talk, tenant):
    conversation = start(operator_client)
    talk(operator_client, conversation, "altera a validade", ui=selection(world.p802))
    asked = Clarification.objects.for_tenant(tenant).get(conversation_id=conversation, status=PendingStatus.PENDING)
    opened = talk(operator_client, conversation, "abre a permissão 802")
    assert opened["response"]["type"] == "navigation" and "pergunta anterior" in opened["response"]["message"]
    asked.refresh_from_db()
    assert asked.status == PendingStatus.INVALIDATED
    after = talk(operator_client, conversation, "30")
    assert after["state"]["pending_confirmation"] is None  # "30" no longer answers the old question


def test_a_new_request_supersedes_a_pending_human_review(world, operator, operator_client, start, talk, tenant):
    conversation = start(operator_client)
    review = _human_review(talk, operator_client, conversation, world, tenant, operator)
    talk(operator_client, conversation, "abre a permissão 771 da Omega")
    review.refresh_from_db()
    assert review.status == PendingStatus.INVALIDATED  # a reviewer can no longer approve it
    assert [e.get("invalidated_confirmation") for e in _superseded_events(tenant, conversation)] == [str(review.pk)]


def test_a_message_not_understood_supersedes_nothing(world, operator_client, start, talk, tenant):
    conversation = start(operator_client)
    asked = talk(operator_client, conversation, "altera a validade da permissão 802 para 29 dias")
    talk(operator_client, conversation, "xyzzy plugh")
    confirmation = Confirmation.objects.for_tenant(tenant).get(pk=asked["response"]["confirmation"]["id"])
    assert confirmation.status == PendingStatus.PENDING
