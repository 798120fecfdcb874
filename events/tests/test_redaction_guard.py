"""The event log's one allowed UPDATE (events/migrations/0005): the maintainer, inside the purge
window, setting a payload's `text` to the marker — and nothing else, and nobody else."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.db import DatabaseError, connection, transaction

from events.models import ConversationEvent, EventType
from events.retention import event_texts_redact
from events.services import event_append
from tenancy.db import purge_window
from tenancy.retention import REDACTED
from tenancy.testing import as_app_role

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="roles are PostgreSQL's")

SET_TEXT = ("UPDATE events_conversationevent SET payload = jsonb_set(payload, '{text}', to_jsonb(%s::text)) "
            "WHERE id = %s")


def _message(tenant, text="meu CPF é 123.456.789-00") -> ConversationEvent:
    return event_append(tenant=tenant, conversation_id=uuid.uuid4(), type=EventType.MESSAGE_RECEIVED, actor="user",
                        state_version=1, payload={"text": text, "language": "pt-BR"})


def _stored(tenant, event) -> ConversationEvent:
    return ConversationEvent.objects.for_tenant(tenant).get(pk=event.pk)


def _sql(sql: str, params: list) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


@pytest.mark.django_db
def test_the_application_connection_cannot_redact_an_event_text(tenant):
    event = _message(tenant)
    for attempt in [
        lambda: _sql(SET_TEXT, [REDACTED, event.pk]),
        lambda: ConversationEvent.objects.for_tenant(tenant).filter(pk=event.pk).update(
            payload={"text": REDACTED, "language": "pt-BR"}),
    ]:
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            attempt()
        with pytest.raises(DatabaseError, match="append-only"), as_app_role():
            attempt()
        # The window is the maintainer's: the application role inside it still gets nothing.
        with pytest.raises(DatabaseError, match="append-only"), purge_window(), as_app_role():
            attempt()
    assert _stored(tenant, event).payload["text"] == "meu CPF é 123.456.789-00"


@pytest.mark.django_db
def test_nor_can_the_service_outside_the_window(tenant):
    event = _message(tenant)
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        event_texts_redact(tenant=tenant, before=event.timestamp + timedelta(days=1))
    assert _stored(tenant, event).payload["text"] != REDACTED


@pytest.mark.django_db
def test_the_maintainer_may_set_the_text_to_the_marker_and_nothing_else(tenant):
    event = _message(tenant)
    refused = [
        (SET_TEXT, ["outra frase qualquer"]),  # rewriting history is not redacting it
        ("UPDATE events_conversationevent SET payload = payload || '{\"language\": \"en\"}' WHERE id = %s", []),
        ("UPDATE events_conversationevent SET payload = jsonb_set(payload, '{text}', '\"[redacted]\"') "
         "|| '{\"extra\": 1}' WHERE id = %s", []),
        ("UPDATE events_conversationevent SET payload = jsonb_set(payload, '{text}', '\"[redacted]\"'), "
         "type = 'TOPIC_CHANGED' WHERE id = %s", []),
        ("UPDATE events_conversationevent SET payload = jsonb_set(payload, '{text}', '\"[redacted]\"'), "
         "seq = 99 WHERE id = %s", []),
        ("UPDATE events_conversationevent SET timestamp = now() WHERE id = %s", []),
    ]
    for sql, params in refused:
        with pytest.raises(DatabaseError, match="append-only"), purge_window():
            _sql(sql, [*params, event.pk])
    with purge_window():
        _sql(SET_TEXT, [REDACTED, event.pk])
    stored = _stored(tenant, event)
    assert stored.payload == {"text": REDACTED, "language": "pt-BR"}
    assert (stored.seq, stored.type, stored.timestamp, stored.tenant_id) == (
        event.seq, event.type, event.timestamp, tenant.pk)


@pytest.mark.django_db
def test_an_event_without_a_text_cannot_be_given_one(tenant):
    event = event_append(tenant=tenant, conversation_id=uuid.uuid4(), type=EventType.INTENT_CREATED, actor="agent",
                         state_version=1, payload={"capability": "x"})
    with pytest.raises(DatabaseError, match="append-only"), purge_window():
        _sql("UPDATE events_conversationevent SET payload = payload || '{\"text\": \"[redacted]\"}' WHERE id = %s",
             [event.pk])


@pytest.mark.django_db
def test_deleting_is_still_the_maintainers_only(tenant):
    event = _message(tenant)
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        ConversationEvent.objects.for_tenant(tenant).filter(pk=event.pk).delete()
    with purge_window():
        ConversationEvent.objects.for_tenant(tenant).filter(pk=event.pk).delete()
    assert not ConversationEvent.objects.for_tenant(tenant).filter(pk=event.pk).exists()
