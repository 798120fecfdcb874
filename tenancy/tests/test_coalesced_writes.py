"""tenancy.db.write_in_one_statement / coalesced_writes / update_row_deferred against real PostgreSQL.

What is counted is what reaches the server: a wrapper installed inside the coalescing block sees
the statements after they were merged.
"""

from __future__ import annotations

import uuid
from contextlib import contextmanager

import pytest
from django.conf import settings  # noqa: F401 - read by the skipif condition
from django.db import connection, transaction
from django.utils import timezone

from events.models import EventStream
from policy.models import AuditEvent
from tenancy.db import (
    DeferredCheckFailed,
    coalesced_writes,
    defer_write,
    insert_one,
    update_row_deferred,
    write_in_one_statement,
)
from tenancy.models import Tenant

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.skipif("'postgresql' not in settings.DATABASES['default']['ENGINE']",
                                 reason="PostgreSQL data-modifying CTEs")]


def _written(tenant) -> list[str]:
    return sorted(AuditEvent.objects.for_tenant(tenant).filter(event_type="test.coalesced")
                  .values_list("target_id", flat=True))


@contextmanager
def sent():
    statements: list[str] = []

    def record(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        yield statements


def _audit(tenant, note: str) -> AuditEvent:
    return AuditEvent(tenant=tenant, event_type="test.coalesced", target_type="test", target_id=note, data={},
                      created_at=timezone.now())


def _stream(tenant) -> EventStream:
    return EventStream.objects.create(tenant=tenant, conversation_id=uuid.uuid4(), last_seq=0)


def test_queued_rows_ride_on_the_next_write_and_its_row_count_stays_its_own(tenant):
    stream = _stream(tenant)
    with transaction.atomic(), coalesced_writes(), sent() as statements:
        write_in_one_statement([_audit(tenant, "a")], [_audit(tenant, "b")])
        update_row_deferred(EventStream, where={"tenant": tenant.pk, "id": stream.pk}, values={"last_seq": 5})
        assert statements == []  # nothing sent yet
        updated = Tenant.objects.filter(pk=tenant.pk).update(name="Acme renamed")
        assert updated == 1
        assert len(statements) == 1 and statements[0].startswith("WITH _cw0 AS (INSERT")
    assert _written(tenant) == ["a", "b"]
    stream.refresh_from_db()
    assert stream.last_seq == 5


def test_a_read_of_a_queued_table_sends_the_queue_first_and_sees_the_rows(tenant):
    with transaction.atomic(), coalesced_writes(), sent() as statements:
        write_in_one_statement([_audit(tenant, "seen")])
        assert AuditEvent.objects.for_tenant(tenant).filter(target_id="seen").count() == 1
        assert len(statements) == 2 and statements[0].startswith("INSERT")


def test_a_function_call_that_names_no_tables_sends_the_queue_first(tenant):
    # A function may read any table; unless its call names them in a comment, the queue goes first.
    with transaction.atomic(), coalesced_writes(), sent() as statements:
        write_in_one_statement([_audit(tenant, "before-function")])
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
        assert len(statements) == 2 and statements[0].startswith("INSERT")


def test_a_savepoint_rolled_back_undoes_what_was_queued_inside_it(tenant):
    with transaction.atomic(), coalesced_writes():
        write_in_one_statement([_audit(tenant, "kept")])
        try:
            with transaction.atomic():
                write_in_one_statement([_audit(tenant, "undone")])
                raise RuntimeError("roll back to the savepoint")
        except RuntimeError:
            pass
    assert _written(tenant) == ["kept"]


def test_an_exception_discards_the_queue_with_its_transaction(tenant):
    with pytest.raises(RuntimeError), transaction.atomic(), coalesced_writes():
        write_in_one_statement([_audit(tenant, "lost")])
        raise RuntimeError("the turn failed")
    assert not AuditEvent.objects.for_tenant(tenant).filter(target_id="lost").exists()
    # and the next block starts from an empty queue
    with transaction.atomic(), coalesced_writes():
        write_in_one_statement([_audit(tenant, "next")])
    assert _written(tenant) == ["next"]


def test_what_is_left_queued_is_written_at_the_end_of_the_block(tenant):
    with transaction.atomic(), sent() as statements:
        with coalesced_writes():
            write_in_one_statement([_audit(tenant, "x")], [_audit(tenant, "y")])
            assert statements == []
        assert len(statements) == 1
    assert AuditEvent.objects.for_tenant(tenant).filter(event_type="test.coalesced").count() == 2


def test_outside_a_block_each_call_writes_at_once_in_one_statement(tenant):
    with sent() as statements:
        write_in_one_statement([_audit(tenant, "1")], [_audit(tenant, "2")])
    assert len(statements) == 1
    assert AuditEvent.objects.for_tenant(tenant).filter(event_type="test.coalesced").count() == 2


def test_insert_one_reads_back_the_database_id_and_a_named_parameter_statement_goes_alone(tenant):
    event = insert_one(_audit(tenant, "one"))
    assert event.pk is not None and AuditEvent.objects.for_tenant(tenant).get(pk=event.pk).target_id == "one"
    with transaction.atomic(), coalesced_writes(), sent() as statements:
        write_in_one_statement([_audit(tenant, "queued")])
        with connection.cursor() as cursor:
            cursor.execute("UPDATE tenancy_tenant SET name = %(name)s WHERE id = %(id)s",
                           {"name": "Acme named", "id": tenant.pk})
        assert len(statements) == 2 and statements[0].startswith("INSERT")
    assert _written(tenant) == ["one", "queued"]


# --- deferred writes that must change one row (defer_write) -----------------------------------

def _rename(tenant, name: str, *, only_if: str) -> tuple[str, list]:
    return "UPDATE tenancy_tenant SET name = %s WHERE id = %s AND name = %s", [name, tenant.pk, only_if]


def _stream_bump(stream) -> tuple[str, list]:
    return "UPDATE events_eventstream SET last_seq = last_seq + 1 WHERE id = %s", [stream.pk]


def test_a_checked_write_rides_on_a_final_update_and_passes_when_it_changed_one_row(tenant):
    stream = _stream(tenant)
    with transaction.atomic(), coalesced_writes(), sent() as statements:
        assert defer_write(*_rename(tenant, "Checked", only_if=tenant.name), "tenancy_tenant", expect="RENAMED")
        write_in_one_statement([_audit(tenant, "with-check")], then=_stream_bump(stream))
        assert len(statements) == 1 and "RETURNING ARRAY[(SELECT count(*) FROM _cw0)]" in statements[0]
    tenant.refresh_from_db()
    assert tenant.name == "Checked" and _written(tenant) == ["with-check"]


def test_a_checked_write_that_changed_no_row_fails_its_carrier_and_nothing_commits(tenant):
    stream = _stream(tenant)
    with pytest.raises(DeferredCheckFailed) as failed, transaction.atomic(), coalesced_writes():
        defer_write(*_rename(tenant, "Never", only_if="some other name"), "tenancy_tenant", expect="NOT_WAITING")
        write_in_one_statement([_audit(tenant, "rolled-back")], then=_stream_bump(stream))
    assert failed.value.code == "NOT_WAITING"
    stream.refresh_from_db()
    assert stream.last_seq == 0 and _written(tenant) == []


def test_a_carrier_that_changed_nothing_cannot_vouch_for_the_check(tenant):
    # The final UPDATE matched no row, so its RETURNING reports nothing: the check is unknown, not passed.
    missing = EventStream(tenant=tenant, conversation_id=uuid.uuid4(), last_seq=0, id=10**12)
    with pytest.raises(DeferredCheckFailed), transaction.atomic(), coalesced_writes():
        defer_write(*_rename(tenant, "Renamed", only_if=tenant.name), "tenancy_tenant", expect="UNVERIFIED")
        write_in_one_statement(then=_stream_bump(missing))


def test_a_checked_write_before_a_write_that_cannot_carry_checks_is_sent_alone_and_checked(tenant):
    with pytest.raises(DeferredCheckFailed), transaction.atomic(), coalesced_writes(), sent() as statements:
        defer_write(*_rename(tenant, "Never", only_if="some other name"), "tenancy_tenant", expect="ALONE")
        write_in_one_statement([_audit(tenant, "queued before")])
        AuditEvent.objects.for_tenant(tenant).filter(target_id="nothing").delete()
    assert statements[0].startswith("WITH _cw0 AS (UPDATE") and "SELECT ARRAY[" in statements[0]
    assert len(statements) == 1  # the DELETE never ran
    assert _written(tenant) == []


def test_a_checked_write_left_at_the_end_of_the_block_is_checked_there(tenant):
    with sent() as statements, pytest.raises(DeferredCheckFailed), transaction.atomic(), coalesced_writes():
        defer_write(*_rename(tenant, "Never", only_if="some other name"), "tenancy_tenant", expect="AT_END")
        write_in_one_statement([_audit(tenant, "queued before")])
    assert len(statements) == 1 and "SELECT ARRAY[" in statements[0]
    assert _written(tenant) == []
    with transaction.atomic(), coalesced_writes():
        defer_write(*_rename(tenant, "At end", only_if=tenant.name), "tenancy_tenant", expect="AT_END")
    tenant.refresh_from_db()
    assert tenant.name == "At end"


def test_outside_a_block_nothing_is_deferred(tenant):
    assert defer_write(*_rename(tenant, "x", only_if=tenant.name), "tenancy_tenant", expect="X") is False
    tenant.refresh_from_db()
    assert tenant.name != "x"


def test_insert_parameters_are_what_the_fields_themselves_would_send(tenant, operator):
    # Values already of the field's type skip the field's conversion: the result must not change.
    from datetime import timedelta

    from psycopg.types.json import Jsonb

    from execution.models import TimelineEntry
    from policy.models import PolicyReceipt
    from tenancy.db import _insert_sql

    now = timezone.now()
    rows = [
        [_audit(tenant, "plain"), AuditEvent(tenant_id=str(tenant.pk), event_type="t", target_type="x",
                                            target_id="7", data={"a": [1, "b"]}, created_at=now, actor=operator)],
        [TimelineEntry(tenant_id=tenant.pk, execution_id=uuid.uuid4(), type="EXECUTION_STARTED", at=now,
                       data={"n": 1}, step_id="s1")],
        [PolicyReceipt(tenant=tenant, actor=operator, stage="confirmation", plan_id=str(uuid.uuid4()),
                       plan_hash="h" * 64, decision="ALLOW", level="soft", risk="low", steps={"s1": {}},
                       reasons=[], issued_at=now, expires_at=now + timedelta(minutes=5))],
    ]
    for group in rows:
        _, params = _insert_sql(group)
        fields = [f for f in type(group[0])._meta.concrete_fields
                  if not (getattr(group[0], type(group[0])._meta.pk.attname) is None and f.primary_key)]
        expected = [f.get_db_prep_save(f.pre_save(obj, True), connection) for obj in group for f in fields]

        def plain(values):
            return [(type(v).__name__, v.obj) if isinstance(v, Jsonb) else (type(v).__name__, v) for v in values]

        assert plain(params) == plain(expected)
