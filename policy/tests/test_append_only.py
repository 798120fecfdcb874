"""Receipts, checks, reviews and audit rows cannot be changed or removed by the application role."""

from __future__ import annotations

import uuid

import pytest
from django.db import DatabaseError, connection, transaction

from policy.audit import audit_record
from policy.models import AuditEvent, PolicyReceipt, ReceiptCheck, ReviewRequest
from policy.services import Approval, receipt_issue, revalidate, review_request_open
from tenancy.testing import as_app_role

from .factories import facts_for, plan_hash, step

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="roles are PostgreSQL's"),
]


@pytest.fixture
def rows(operator, tenant, caps):
    from django.utils import timezone

    plan_id = uuid.uuid4()
    approval = Approval(confirmation_id=uuid.uuid4(), plan_id=plan_id, plan_hash=plan_hash(), level="soft",
                        approved_by=operator.pk, approved_at=timezone.now())
    receipt = receipt_issue(actor=operator, tenant=tenant, plan_id=plan_id, plan_hash=plan_hash(),
                            steps=[step(caps["validity"])], facts=facts_for(tenant, ("workPermit", 1)),
                            approval=approval)
    check = revalidate(receipt_id=receipt.pk, actor=operator, tenant=tenant, plan_id=plan_id, step_id="s1",
                       capability=("workPermit.updateValidity", 1), input={"id": 1, "validity_days": 10},
                       facts=facts_for(tenant, ("workPermit", 1)), execution_started_at=timezone.now())
    assert check.ok
    audit = audit_record(tenant=tenant, actor=operator, event_type="test.changed", target_type="thing",
                         target_id="1", old={"a": 1}, new={"a": 2})
    review = review_request_open(tenant=tenant, requester=operator, conversation_id=uuid.uuid4(), plan_id=plan_id,
                                 plan_hash=plan_hash(), summary="delete everything")
    return {
        "policy_policyreceipt": (PolicyReceipt, receipt.pk, {"decision": "DENY"}),
        "policy_receiptcheck": (ReceiptCheck, check.check_id, {"ok": False}),
        "policy_auditevent": (AuditEvent, audit.pk, {"event_type": "forged"}),
        "policy_reviewrequest": (ReviewRequest, review.pk, {"summary": "nothing"}),
    }


def _attacks(model, pk, change, table, tenant):
    queryset = model.objects.for_tenant(tenant).filter(pk=pk)

    def orm_save():
        row = queryset.get()
        for field, value in change.items():
            setattr(row, field, value)
        row.save()

    def orm_delete():
        queryset.get().delete()

    def truncate():
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # flush this test's deferred FK checks first
            cursor.execute(f"TRUNCATE {table} CASCADE")

    return {
        "orm save": orm_save,
        "orm delete": orm_delete,
        "queryset update": lambda: queryset.update(**change),
        "queryset delete": lambda: queryset.delete(),
        "raw update": lambda: connection.cursor().execute(f"UPDATE {table} SET id = id"),
        "raw delete": lambda: connection.cursor().execute(f"DELETE FROM {table}"),
        "truncate": truncate,
    }


@pytest.mark.parametrize("table", ["policy_policyreceipt", "policy_receiptcheck", "policy_auditevent",
                                   "policy_reviewrequest"])
def test_the_application_role_cannot_update_delete_or_truncate(rows, tenant, table):
    model, pk, change = rows[table]
    for name, attack in _attacks(model, pk, change, table, tenant).items():
        # The ORM may refuse first (RESTRICT from a check to its receipt); the trigger refuses the rest.
        refused = "append-only|protected foreign keys|restricted foreign keys"
        with pytest.raises(DatabaseError, match=refused), as_app_role():
            attack()
        assert model.objects.for_tenant(tenant).filter(pk=pk).exists(), name


def test_nobody_updates_a_receipt_not_even_a_maintainer(rows, tenant):
    _, pk, _ = rows["policy_policyreceipt"]
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        PolicyReceipt.objects.for_tenant(tenant).filter(pk=pk).update(decision="DENY")
    assert PolicyReceipt.objects.for_tenant(tenant).get(pk=pk).decision == "ALLOW"
