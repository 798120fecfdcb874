"""LGPD retention of message text (conversations/retention.py): after N days what a user typed is
"[redacted]" wherever it was stored; ids, decisions, receipts and audit rows stay; per tenant; idempotent."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.apps import apps
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from conftest import client_for, make_user
from conversations.models import Clarification, Confirmation, Conversation, Turn
from conversations.retention import AUDIT_ROUND, AUDIT_RUN, message_texts_redact
from conversations.tasks import redact_message_text_task
from events.models import ConversationEvent
from execution.models import Execution, StepRun
from execution.runtime import sessions_close
from planning.models import ExecutionPlan
from policy.models import AuditEvent, PolicyReceipt, ReceiptCheck
from tenancy.models import Role
from tenancy.retention import REDACTED

from .conftest import build_world, selection

pytestmark = pytest.mark.django_db(transaction=True)  # executions run their steps (eager Celery)

OLD = ["altera o responsavel para ana", "pode seguir", "mude a validade para 33 dias"]
RECENT = ["inclua solda eletrica"]
OTHER_OLD = ["abrir permissao 771"]
AGENT_APPS = {"events", "conversations", "planning", "execution", "policy", "knowledge", "registry", "tenancy"}


def _found(phrase: str) -> list[str]:
    """Every agent table whose rows hold `phrase` (the sample SST app's own data excluded)."""
    tables = []
    with connection.cursor() as cursor:
        for model in apps.get_models():
            if model._meta.app_label in AGENT_APPS:
                cursor.execute(f'SELECT count(*) FROM "{model._meta.db_table}" t WHERE t::text ILIKE %s',
                               [f"%{phrase}%"])
                if cursor.fetchone()[0]:
                    tables.append(model._meta.db_table)
    return tables


def _kept(tenant) -> dict[str, list]:
    """What must survive a redaction unchanged: ids, decisions, receipts, checks, audit rows."""
    def rows(model, *fields):
        return sorted(model.objects.for_tenant(tenant).values_list(*fields), key=str)

    return {
        "events": rows(ConversationEvent, "id", "conversation_id", "seq", "type", "actor", "timestamp", "operation_id"),
        "receipts": sorted(PolicyReceipt.objects.for_tenant(tenant).values_list(), key=str),
        "checks": sorted(ReceiptCheck.objects.for_tenant(tenant).values_list(), key=str),
        "audit": sorted(AuditEvent.objects.for_tenant(tenant).exclude(event_type__startswith="retention.")
                        .values_list(), key=str),
        "confirmations": rows(Confirmation, "id", "status", "plan_id", "plan_hash", "decided_at", "expires_at"),
        "clarifications": rows(Clarification, "id", "status", "question", "candidates"),
        "plans": rows(ExecutionPlan, "id", "status", "canonical_hash", "intent_id"),
        "executions": rows(Execution, "id", "status"),
        "steps": rows(StepRun, "id", "status", "input", "result"),
        "turns": rows(Turn, "id", "kind", "created_at", "client_message_id"),
        "conversations": rows(Conversation, "id", "status", "version", "updated_at"),
    }


@pytest.fixture
def history(registry, tenant, other_tenant, start, talk):
    """Tenant conversations 100 days old and 5 days old, and another tenant's 100 days old."""
    world, other_world = build_world(tenant), build_world(other_tenant)
    operator = make_user(tenant, Role.OPERATOR)
    other = make_user(other_tenant, Role.OPERATOR)
    client, other_client = client_for(operator, tenant), client_for(other, other_tenant)
    with time_machine.travel(timezone.now() - timedelta(days=100)):
        old = start(client)
        assert talk(client, old, OLD[0], ui=selection(world.p802))["status"] == "CLARIFICATION_REQUIRED"
        assert talk(client, old, "a Ribeiro")["status"] == "CONFIRMATION_REQUIRED"
        assert talk(client, old, OLD[1])["status"] == "SUCCESS"
        assert talk(client, old, OLD[2], ui=selection(world.p802))["status"] == "CONFIRMATION_REQUIRED"
        foreign = start(other_client)
        assert talk(other_client, foreign, OTHER_OLD[0])["status"] == "CLARIFICATION_REQUIRED"
    sessions_close()  # the tool runtime's API tokens of 100 days ago have expired
    with time_machine.travel(timezone.now() - timedelta(days=5)):
        recent = start(client)
        assert talk(client, recent, RECENT[0], ui=selection(world.p802))["status"] == "CONFIRMATION_REQUIRED"
        assert talk(client, recent, "confirmo")["status"] == "SUCCESS"
    return {"old": old, "recent": recent, "foreign": foreign, "world": world, "other_world": other_world}


def test_old_texts_are_redacted_everywhere_and_recent_ones_kept(history, tenant, other_tenant):
    for phrase in OLD + RECENT + OTHER_OLD:
        assert _found(phrase), phrase
    kept, other_kept = _kept(tenant), _kept(other_tenant)

    run = message_texts_redact(by="test", days=90, tenant=tenant)

    for phrase in OLD:
        assert _found(phrase) == [], phrase
    assert _found(RECENT[0]) and _found(OTHER_OLD[0])  # recent, and another tenant's: untouched
    assert (_kept(tenant), _kept(other_tenant)) == (kept, other_kept)
    assert run.counts["events"] == 4 and run.counts["turns"] == 4 and run.counts["conversations"] == 1
    assert run.counts["clarifications"] == 1 and run.counts["confirmations"] == 2 and run.counts["plans"] >= 2

    old_turns = Turn.objects.for_tenant(tenant).filter(conversation_id=history["old"])
    assert set(old_turns.values_list("text", flat=True)) == {REDACTED}
    recent_turns = Turn.objects.for_tenant(tenant).filter(conversation_id=history["recent"])
    assert REDACTED not in set(recent_turns.values_list("text", flat=True))
    message = ConversationEvent.objects.for_tenant(tenant).filter(conversation_id=history["old"],
                                                                 type="MESSAGE_RECEIVED").first()
    assert message.payload == {"text": REDACTED, "language": "pt-BR"}
    conversation = Conversation.objects.for_tenant(tenant).get(pk=history["old"])
    assert conversation.active_intent["text"] == REDACTED and conversation.active_intent["slots"]


def test_the_run_writes_who_what_how_many_and_the_cutoff_to_the_audit(history, tenant, operator):
    before = timezone.now()
    run = message_texts_redact(by="test-operator", actor=operator, days=90, tenant=tenant)
    rounds = list(AuditEvent.objects.for_tenant(tenant).filter(event_type=AUDIT_ROUND))
    assert len(rounds) == 1
    data = rounds[0].data
    assert (rounds[0].actor_id, rounds[0].target_type, rounds[0].target_id) == (operator.pk, "tenant", str(tenant.pk))
    assert (data["by"], data["days"], data["run_id"], data["marker"]) == ("test-operator", 90, run.run_id, REDACTED)
    assert data["counts"] == dict(run.counts) | {k: 0 for k in data["counts"] if k not in run.counts}
    cutoff = timezone.datetime.fromisoformat(data["cutoff"])
    assert before - timedelta(days=90, seconds=5) < cutoff <= timezone.now() - timedelta(days=90)
    summary = AuditEvent.objects.for_tenant(tenant).get(event_type=AUDIT_RUN)
    assert (summary.data["run_id"], summary.data["tenants"], sum(summary.data["counts"].values())) == (
        run.run_id, 1, run.total)


def test_a_second_run_changes_nothing_and_records_only_that_it_ran(history, tenant, other_tenant):
    first = message_texts_redact(by="test", days=90)
    assert first.total and first.tenants == 2
    assert _found(OTHER_OLD[0]) == []  # every tenant's, when run for all
    after_first = {t.pk: (_kept(t), list(Turn.objects.for_tenant(t).values_list("id", "text", "response")),
                          list(ConversationEvent.objects.for_tenant(t).values_list("id", "payload")))
                   for t in (tenant, other_tenant)}
    second = message_texts_redact(by="test", days=90)
    assert (second.total, second.tenants) == (0, 0)
    assert after_first == {t.pk: (_kept(t), list(Turn.objects.for_tenant(t).values_list("id", "text", "response")),
                                  list(ConversationEvent.objects.for_tenant(t).values_list("id", "payload")))
                           for t in (tenant, other_tenant)}
    runs = AuditEvent._plain.filter(event_type=AUDIT_RUN, tenant=None).order_by("created_at")
    assert [r.data["run_id"] for r in runs] == [first.run_id, second.run_id]
    assert AuditEvent.objects.for_tenant(tenant).filter(event_type=AUDIT_ROUND).count() == 1


def test_small_batches_reach_every_row_in_several_audited_rounds(history, tenant):
    run = message_texts_redact(by="test", days=90, tenant=tenant, batch_size=1)
    assert all(_found(phrase) == [] for phrase in OLD)
    rounds = AuditEvent.objects.for_tenant(tenant).filter(event_type=AUDIT_ROUND)
    assert rounds.count() == 4  # four messages: one of each kind per round, and a last round that found none
    assert sum(sum(r.data["counts"].values()) for r in rounds) == run.total


def test_zero_days_keeps_every_text_and_writes_nothing(history, tenant, settings):
    settings.AGENT_MESSAGE_TEXT_RETENTION_DAYS = 0
    audits = AuditEvent.objects.for_tenant(tenant).count()
    assert redact_message_text_task() == 0
    assert _found(OLD[0]) and AuditEvent.objects.for_tenant(tenant).count() == audits


def test_the_daily_task_and_the_command_use_the_setting(history, tenant, settings, capsys):
    entry = settings.CELERY_BEAT_SCHEDULE["conversations-redact-message-text"]
    assert (entry["task"], entry["schedule"]) == ("conversations.redact_message_text", 24 * 3600.0)
    settings.AGENT_MESSAGE_TEXT_RETENTION_DAYS = 120
    assert redact_message_text_task() == 0  # 100 days old is not yet 120
    assert _found(OLD[0])
    call_command("redact_message_text", "--days", "90", "--tenant", tenant.slug)
    assert "events 4" in capsys.readouterr().out
    assert _found(OLD[0]) == []


def test_the_default_is_ninety_days():
    assert settings.AGENT_MESSAGE_TEXT_RETENTION_DAYS == 90
