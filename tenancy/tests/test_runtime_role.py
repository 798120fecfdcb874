"""The application's own connection cannot delete, truncate or update an append-only row (issue 16).

No `as_app_role()` here: every attack goes through `django.db.connection` exactly as the
application's code would, i.e. as DATABASE_RUNTIME_ROLE. The purge path (a tenant's deletion)
still works through the maintainer role, and a process whose role could delete refuses to start.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest
from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from policy.audit import audit_record
from policy.models import AuditEvent, PolicyReceipt
from tenancy.db import MAINTAINER_ROLE, check_runtime_role, purge_window, runtime_role_problem
from tenancy.models import Tenant

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="roles are PostgreSQL's"),
]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _append_only_tables() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT DISTINCT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
                       "WHERE t.tgname LIKE '%\\_append\\_only' ORDER BY 1")
        return [name for (name,) in cursor.fetchall()]


def _rows_in_the_core_tables(tenant, actor) -> None:
    """A policy receipt, its recorded check, an audit row and a conversation event, by the services."""
    from events.models import EventType
    from events.services import event_append
    from policy.services import Approval, receipt_issue, revalidate
    from policy.tests import factories

    cap = factories.capability("workPermit.updateValidity", risk="medium")
    plan_id, plan_hash = uuid.uuid4(), factories.plan_hash()
    approval = Approval(confirmation_id=uuid.uuid4(), plan_id=plan_id, plan_hash=plan_hash, level="soft",
                        approved_by=actor.pk, approved_at=timezone.now())
    facts = factories.facts_for(tenant, ("workPermit", 1))
    receipt = receipt_issue(actor=actor, tenant=tenant, plan_id=plan_id, plan_hash=plan_hash,
                            steps=[factories.step(cap)], facts=facts, approval=approval)
    check = revalidate(receipt_id=receipt.pk, actor=actor, tenant=tenant, plan_id=plan_id, step_id="s1",
                       capability=("workPermit.updateValidity", 1), input={"id": 1, "validity_days": 10},
                       facts=facts, execution_started_at=timezone.now())
    assert check.ok
    audit_record(tenant=tenant, actor=actor, event_type="test.changed", target_type="thing", target_id="1",
                 old={"a": 1}, new={"a": 2})
    event_append(tenant=tenant, conversation_id=uuid.uuid4(), type=EventType.MESSAGE_RECEIVED, actor="user",
                 state_version=1, payload={"text": "oi"})


def _count(table: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM {table}")
        return cursor.fetchone()[0]


def test_the_application_connection_acts_as_the_runtime_role():
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user, (SELECT rolsuper FROM pg_roles WHERE rolname = current_user), "
                       "pg_has_role(current_user, %s, 'MEMBER')", [MAINTAINER_ROLE])
        role, superuser, maintainer = cursor.fetchone()
    assert (role, superuser, maintainer) == (settings.DATABASE_RUNTIME_ROLE, False, False)
    assert check_runtime_role() is None


def test_every_append_only_table_is_covered():
    tables = _append_only_tables()
    assert {"policy_policyreceipt", "policy_receiptcheck", "policy_auditevent", "policy_reviewrequest",
            "policy_reviewdecision", "events_conversationevent", "execution_timelineentry"} <= set(tables)


@pytest.mark.parametrize("attack", ["DELETE FROM {table}", "TRUNCATE {table} CASCADE", "TRUNCATE {table}",
                                    "UPDATE {table} SET id = id"])
def test_the_application_connection_cannot_delete_truncate_or_update_append_only_rows(tenant, operator, attack):
    _rows_in_the_core_tables(tenant, operator)
    for core in ("policy_policyreceipt", "policy_receiptcheck", "policy_auditevent", "events_conversationevent"):
        assert _count(core) > 0, core
    for table in _append_only_tables():
        before = _count(table)
        if before == 0 and not attack.startswith("TRUNCATE"):
            continue  # a row trigger has no row to refuse; TRUNCATE's statement trigger fires anyway
        # Refused by the trigger (a plain TRUNCATE of a referenced table is refused by the FK first).
        refused = "append-only|permission denied|referenced in a foreign key"
        with pytest.raises(DatabaseError, match=refused), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # the test's own deferred FK checks first
                cursor.execute(attack.format(table=table))
        assert _count(table) == before, (attack, table)


def test_nor_can_it_switch_the_triggers_off_or_take_the_maintainer_role(tenant, operator):
    _rows_in_the_core_tables(tenant, operator)
    for attack in ["ALTER TABLE policy_auditevent DISABLE TRIGGER policy_auditevent_append_only",
                   "DROP TRIGGER policy_auditevent_append_only ON policy_auditevent",
                   "SET session_replication_role = replica",
                   "GRANT agent_maintainer TO CURRENT_USER"]:
        with pytest.raises(DatabaseError, match="must be owner|permission denied|must have admin"), \
                transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(attack)
    assert AuditEvent.objects.for_tenant(tenant).exists()


def test_the_orm_cannot_delete_an_audit_row_either(tenant, operator):
    audit = audit_record(tenant=tenant, actor=operator, event_type="test.changed", target_type="thing",
                         target_id="1", old={}, new={})
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        AuditEvent.objects.for_tenant(tenant).filter(pk=audit.pk).delete()
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        tenant.delete()  # cascades to the audit rows
    assert AuditEvent.objects.for_tenant(tenant).filter(pk=audit.pk).exists()


def test_a_tenant_purge_still_works_through_the_maintainer_role(tenant, operator):
    from events.models import ConversationEvent

    _rows_in_the_core_tables(tenant, operator)
    with purge_window():
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_user")
            assert cursor.fetchone()[0] == MAINTAINER_ROLE
        tenant.delete()
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        assert cursor.fetchone()[0] == settings.DATABASE_RUNTIME_ROLE  # back after the purge
    assert not Tenant.objects.filter(pk=tenant.pk).exists()
    for model in (AuditEvent, ConversationEvent, PolicyReceipt):
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT count(*) FROM {model._meta.db_table} WHERE tenant_id = %s", [tenant.pk])
            assert cursor.fetchone()[0] == 0, model


def test_the_check_names_the_setting_when_the_role_could_delete():
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL ROLE NONE")  # the login: the cluster's superuser here
        problem = runtime_role_problem(cursor)
        cursor.execute(f"SET LOCAL ROLE {MAINTAINER_ROLE}")
        as_maintainer = runtime_role_problem(cursor)
        cursor.execute(f"SET LOCAL ROLE {settings.DATABASE_RUNTIME_ROLE}")  # SET LOCAL outlives a savepoint
    assert "DATABASE_RUNTIME_ROLE" in problem and "superuser" in problem
    assert f"member of {MAINTAINER_ROLE}" in as_maintainer
    with connection.cursor() as cursor:
        assert runtime_role_problem(cursor) is None


def _manage(*argv: str, **env: str) -> subprocess.CompletedProcess:
    """A process of the application on the test database (its schema and triggers; no test rows)."""
    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"
    full = dict(os.environ, DATABASE_URL=url, **env)
    full.pop("DB_POOL", None)
    return subprocess.run([sys.executable, *argv], env=full, capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_a_process_acting_as_a_role_that_could_delete_refuses_to_start():
    if connection.settings_dict.get("PASSWORD"):
        pytest.skip("the subprocess's URL carries no password")
    ok = _manage("manage.py", "check")
    assert ok.returncode == 0, ok.stderr
    refused = _manage("manage.py", "check", DATABASE_RUNTIME_ROLE="none")
    assert refused.returncode != 0
    assert "DATABASE_RUNTIME_ROLE" in refused.stderr and "superuser" in refused.stderr
    asgi = _manage("-c", "import config.asgi", DATABASE_RUNTIME_ROLE="none")
    assert asgi.returncode != 0 and "DATABASE_RUNTIME_ROLE" in asgi.stderr, asgi.stderr
    missing = _manage("manage.py", "check", DATABASE_RUNTIME_ROLE="no_such_role_here")
    assert missing.returncode != 0 and "DATABASE_RUNTIME_ROLE" in missing.stderr, missing.stderr

