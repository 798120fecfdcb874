"""The confirm turn's round trips on PostgreSQL, and what happens when a write deferred to its last
statement finds its row moved on (tenancy.db.defer_write → the turn is redone, strictly)."""

from __future__ import annotations

import pytest
from django.conf import settings  # noqa: F401 - read by the skipif condition
from django.db import connection

from conversations import services
from conversations.models import Turn as TurnRow
from conversations.services import conversation_create, conversation_turn
from events.models import ConversationEvent
from execution import publish
from execution.models import Execution
from planning.models import ExecutionPlan, PlanStatus
from policy.models import PolicyReceipt

from .conftest import selection

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.skipif("'postgresql' not in settings.DATABASES['default']['ENGINE']",
                                 reason="the one-statement paths are PostgreSQL's")]


@pytest.fixture
def broker(monkeypatch):
    """Celery as in production (not eager), the messages kept here instead of sent."""
    from config.celery import app

    sent: list[tuple] = []
    monkeypatch.setattr(publish, "send_soon", lambda task, args, countdown=None: sent.append(args))
    saved, app.conf.task_always_eager = app.conf.task_always_eager, False
    yield sent
    app.conf.task_always_eager = saved


def _pending(world, operator) -> tuple:
    conversation = conversation_create(tenant=world.tenant, user=operator)
    turn = conversation_turn(tenant=world.tenant, user=operator, conversation_id=conversation.pk,
                             text="mude a validade para 41 dias", ui_context=selection(world.p802))
    assert turn["status"] == "CONFIRMATION_REQUIRED", turn["response"]
    return conversation, turn


def _statements():
    seen: list[str] = []

    def record(execute, sql, params, many, context):
        seen.append(sql)
        return execute(sql, params, many, context)

    return seen, connection.execute_wrapper(record)


def test_a_confirm_turn_is_two_statements_and_reads_the_live_policy_state_with_its_lock(world, operator, broker):
    conversation, _ = _pending(world, operator)
    seen, recording = _statements()
    with recording:
        turn = conversation_turn(tenant=world.tenant, user=operator, conversation_id=conversation.pk, text="sim")
    assert turn["status"] == "EXECUTING", turn["response"]
    assert len(seen) == 2, seen
    assert "FOR UPDATE OF c, s" in seen[0] and "policy_live_state(" in seen[0]
    assert seen[1].startswith("WITH") and "UPDATE \"conversations_conversation\"" in seen[1]
    assert len(broker) == 1  # the first step, after commit
    execution = Execution.objects.for_tenant(world.tenant).get(pk=turn["response"]["execution"]["id"])
    assert execution.plan.status == PlanStatus.RUNNING


def test_a_turn_that_will_not_confirm_reads_no_live_state(world, operator, broker):
    conversation, _ = _pending(world, operator)
    seen, recording = _statements()
    with recording:
        conversation_turn(tenant=world.tenant, user=operator, conversation_id=conversation.pk, text="cancela")
    assert "policy_live_state(" not in seen[0]


def test_a_plan_moved_on_behind_the_turn_is_refused_and_the_failed_attempt_leaves_nothing(world, operator, broker,
                                                                                         monkeypatch):
    conversation, prepared = _pending(world, operator)
    attempts: list[bool] = []
    run = services._turn_run
    monkeypatch.setattr(services, "_turn_run", lambda **kw: attempts.append(kw.get("strict", False)) or run(**kw))
    plan_id = prepared["response"]["confirmation"]["plan_id"]
    # Cancelled without the conversation's lock (as an admin or another service could).
    ExecutionPlan.objects.for_tenant(world.tenant).filter(pk=plan_id).update(status=PlanStatus.CANCELLED)
    receipts_before = PolicyReceipt.objects.for_tenant(world.tenant).filter(plan_id=plan_id).count()

    turn = conversation_turn(tenant=world.tenant, user=operator, conversation_id=conversation.pk, text="sim")

    assert attempts == [False, True]  # deferred start refused by its check, then redone strictly
    assert turn["response"]["error"]["code"] == "PLAN_NOT_RUNNABLE"
    assert turn["status"] == "FAILED" and turn["version"] == prepared["version"] + 1
    assert not Execution.objects.for_tenant(world.tenant).filter(plan_id=plan_id).exists()
    assert broker == []
    # One turn row and one receipt for the confirm turn: the deferred attempt rolled back whole.
    assert TurnRow.objects.for_tenant(world.tenant).filter(conversation_id=conversation.pk).count() == 2
    assert PolicyReceipt.objects.for_tenant(world.tenant).filter(plan_id=plan_id).count() == receipts_before + 1
    seqs = list(ConversationEvent.objects.for_tenant(world.tenant).filter(conversation_id=conversation.pk)
                .order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
