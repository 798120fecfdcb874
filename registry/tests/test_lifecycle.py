from __future__ import annotations

import itertools

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction

from registry.models import (
    TRANSITIONS,
    ApprovalKind,
    CapabilityApproval,
    CapabilityStatus,
    CapabilityStatusChange,
    CapabilityVersion,
)
from registry.services import (
    RegistryRefusal,
    capability_approve,
    capability_resume,
    capability_retire,
    capability_submit,
    capability_suspend,
)

from .conftest import activate, make_staff, version_of

S = CapabilityStatus


def _at(status: str, tech, biz) -> CapabilityVersion:
    """workPermit.read brought to `status` through the services only."""
    version = version_of("workPermit.read")
    if status == S.DRAFT:
        return version
    if status == S.RETIRED:
        return capability_retire(version=version, actor=tech, reason="not needed")
    capability_submit(version=version, actor=version.author)
    if status == S.PENDING_APPROVAL:
        return version
    version = activate(version, tech, biz)
    if status == S.SUSPENDED:
        capability_suspend(version=version, actor=tech, reason="incident")
    version.refresh_from_db()
    return version


def _move(version: CapabilityVersion, to_status: str, tech, biz) -> None:
    if to_status == S.PENDING_APPROVAL:
        capability_submit(version=version, actor=version.author)
    elif to_status == S.ACTIVE and version.status == S.SUSPENDED:
        capability_resume(version=version, actor=tech, reason="incident over")
    elif to_status == S.ACTIVE:
        capability_approve(version=version, approver=tech, kind=ApprovalKind.TECHNICAL, reason="ok")
        capability_approve(version=version, approver=biz, kind=ApprovalKind.BUSINESS, reason="ok")
    elif to_status == S.SUSPENDED:
        capability_suspend(version=version, actor=tech, reason="incident")
    elif to_status == S.RETIRED:
        capability_retire(version=version, actor=tech, reason="obsolete")
    else:  # DRAFT: no service goes back to DRAFT; the refusal must come from the table
        from registry.services import _transition

        _transition(version=version, to_status=to_status, actor=tech, reason="back")


ALL_PAIRS = [(a, b) for a, b in itertools.product(S.values, S.values) if a != b]


@pytest.mark.parametrize(("from_status", "to_status"), ALL_PAIRS)
def test_lifecycle_table_allows_exactly_the_listed_transitions(draft, tech, biz, from_status, to_status):
    version = _at(from_status, tech, biz)
    if to_status in TRANSITIONS[from_status]:
        _move(version, to_status, tech, biz)
        version.refresh_from_db()
        assert version.status == to_status
        change = version.status_changes.last()
        assert (change.from_status, change.to_status) == (from_status, to_status)
    else:
        with pytest.raises(RegistryRefusal) as refused:
            _move(version, to_status, tech, biz)
        assert refused.value.code in {"ILLEGAL_TRANSITION", "NOT_PENDING"}
        version.refresh_from_db()
        assert version.status == from_status


@pytest.mark.parametrize(("from_status", "to_status"),
                         [(a, b) for a, b in ALL_PAIRS if b not in TRANSITIONS[a]])
def test_the_database_refuses_every_illegal_transition_too(draft, tech, biz, from_status, to_status):
    version = _at(from_status, tech, biz)
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE registry_capabilityversion SET status = %s WHERE id = %s", [to_status, version.pk])


def test_two_approvals_from_two_people_activate_the_version(draft, tech, biz):
    version = activate(version_of("workPermit.read"), tech, biz)
    assert version.status == S.ACTIVE
    assert {(a.kind, a.approver_id) for a in version.approvals.all()} == {
        (ApprovalKind.TECHNICAL, tech.pk), (ApprovalKind.BUSINESS, biz.pk)}


def test_the_same_person_cannot_give_both_approvals(draft, db):
    both = make_staff("both-hats", "approve_technical", "approve_business")
    version = _at(S.PENDING_APPROVAL, both, None)
    capability_approve(version=version, approver=both, kind=ApprovalKind.TECHNICAL, reason="ok")
    with pytest.raises(RegistryRefusal) as refused:
        capability_approve(version=version, approver=both, kind=ApprovalKind.BUSINESS, reason="ok too")
    assert refused.value.code == "SAME_PERSON_TWICE"
    assert "duas pessoas" in refused.value.message("pt-BR") and "two different" in refused.value.message("en")
    version.refresh_from_db()
    assert version.status == S.PENDING_APPROVAL


def test_the_database_refuses_one_person_approving_twice(draft, tech, biz):
    version = _at(S.PENDING_APPROVAL, tech, biz)
    CapabilityApproval.objects.create(capability_version=version, kind=ApprovalKind.TECHNICAL, approver=tech,
                                      reason="ok")
    with pytest.raises(IntegrityError), transaction.atomic():
        CapabilityApproval.objects.create(capability_version=version, kind=ApprovalKind.BUSINESS, approver=tech,
                                          reason="forged")


def test_the_author_cannot_approve_their_version(draft, author, tech):
    for codename in ("approve_technical", "approve_business"):
        from django.contrib.auth.models import Permission

        author.user_permissions.add(Permission.objects.get(codename=codename))
    author = get_user_model().objects.get(pk=author.pk)
    version = _at(S.PENDING_APPROVAL, tech, None)
    with pytest.raises(RegistryRefusal) as refused:
        capability_approve(version=version, approver=author, kind=ApprovalKind.TECHNICAL, reason="mine is fine")
    assert refused.value.code == "AUTHOR_CANNOT_APPROVE"
    with pytest.raises(IntegrityError), transaction.atomic():
        CapabilityApproval.objects.create(capability_version=version, kind=ApprovalKind.TECHNICAL, approver=author,
                                          reason="forged around the service")


def test_approval_needs_the_matching_permission_and_staff(draft, tech, biz, viewer):
    version = _at(S.PENDING_APPROVAL, tech, biz)
    with pytest.raises(RegistryRefusal) as refused:
        capability_approve(version=version, approver=tech, kind=ApprovalKind.BUSINESS, reason="not my call")
    assert refused.value.code == "MISSING_PERMISSION"
    viewer.user_permissions.add(*tech.user_permissions.all())  # a tenant member, not staff
    with pytest.raises(RegistryRefusal) as refused:
        capability_approve(version=version, approver=viewer, kind=ApprovalKind.TECHNICAL, reason="hi")
    assert refused.value.code == "NOT_STAFF"


def test_a_tenant_admin_role_is_not_an_approver(draft, tech, tenant):
    from conftest import make_user
    from tenancy.models import Role

    tenant_admin = make_user(tenant, Role.ADMIN, "tenant-admin")
    with pytest.raises(RegistryRefusal):
        capability_approve(version=_at(S.PENDING_APPROVAL, tech, None), approver=tenant_admin,
                           kind=ApprovalKind.TECHNICAL, reason="I run this tenant")


def test_actions_need_a_reason(draft, tech, biz):
    version = _at(S.PENDING_APPROVAL, tech, biz)
    with pytest.raises(RegistryRefusal) as refused:
        capability_approve(version=version, approver=tech, kind=ApprovalKind.TECHNICAL, reason="  ")
    assert refused.value.code == "REASON_REQUIRED"


def test_the_database_refuses_activation_without_both_approvals(draft, tech, biz):
    version = _at(S.PENDING_APPROVAL, tech, biz)
    capability_approve(version=version, approver=tech, kind=ApprovalKind.TECHNICAL, reason="ok")
    with pytest.raises(IntegrityError), transaction.atomic():
        CapabilityVersion.objects.filter(pk=version.pk).update(status=S.ACTIVE)


def test_a_version_cannot_be_inserted_already_active(draft):
    source = version_of("workPermit.read")
    source.pk, source.version, source.status = None, 99, S.ACTIVE
    with pytest.raises(IntegrityError), transaction.atomic():
        source.save()


def test_activating_a_new_version_retires_the_old_one_and_approvals_never_carry_over(draft, tech, biz):
    first = activate(version_of("workPermit.read"), tech, biz)
    second = CapabilityVersion.objects.create(
        capability=first.capability, version=2, description="v2 of read", kind=first.kind,
        risk_level=first.risk_level, resource=first.resource, http_method="GET", path_template=first.path_template,
        definition_hash="x" * 64, author=first.author)
    capability_submit(version=second, actor=second.author)
    assert second.approvals.count() == 0
    capability_approve(version=second, approver=tech, kind=ApprovalKind.TECHNICAL, reason="ok")
    first.refresh_from_db()
    assert first.status == S.ACTIVE  # one approval is not enough for the new version
    capability_approve(version=second, approver=biz, kind=ApprovalKind.BUSINESS, reason="ok")
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, second.status) == (S.RETIRED, S.ACTIVE)
    assert first.status_changes.last().reason == "superseded by version 2"


@pytest.mark.parametrize("table", ["registry_capabilityapproval", "registry_capabilitystatuschange"])
def test_approval_and_status_records_are_append_only(draft, tech, biz, table):
    from tenancy.testing import as_app_role

    activate(version_of("workPermit.read"), tech, biz)
    for statement in (f"UPDATE {table} SET reason = 'rewritten'", f"DELETE FROM {table}"):
        with pytest.raises(IntegrityError), as_app_role(), connection.cursor() as cursor:
            cursor.execute(statement)
    assert CapabilityStatusChange.objects.filter(reason="rewritten").count() == 0
