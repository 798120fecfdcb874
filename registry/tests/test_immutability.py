"""An ACTIVE version's definition cannot change, whatever path the write takes."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction

from registry.models import CapabilityStatus, CapabilityVersion
from registry.services import capability_retire, capability_suspend

from .conftest import activate, version_of


@pytest.fixture
def active(loaded, tech, biz) -> CapabilityVersion:
    return activate(version_of("workPermit.components.add"), tech, biz)


def test_orm_save_of_an_active_definition_is_refused(active):
    active.risk_level = "low"
    with pytest.raises(IntegrityError), transaction.atomic():
        active.save()


def test_queryset_update_of_an_active_definition_is_refused(active):
    with pytest.raises(IntegrityError), transaction.atomic():
        CapabilityVersion.objects.filter(pk=active.pk).update(undo=None)


def test_raw_sql_update_of_an_active_definition_is_refused(active):
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE registry_capabilityversion SET required_permissions = '[]'::jsonb WHERE id = %s",
                       [active.pk])


def test_raw_sql_even_as_the_application_role_cannot_edit_an_active_definition(active):
    from tenancy.testing import as_app_role

    with pytest.raises(IntegrityError), as_app_role(), connection.cursor() as cursor:
        cursor.execute("UPDATE registry_capabilityversion SET path_template = 'admin/everything' WHERE id = %s",
                       [active.pk])


def test_every_column_but_status_is_frozen(active):
    for field in CapabilityVersion._meta.concrete_fields:
        if field.name in ("id", "status"):
            continue
        with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
            # Assign a different value of the same type through SQL: the trigger must notice any column.
            cursor.execute(f'UPDATE registry_capabilityversion SET "{field.column}" = {_other(field)} WHERE id = %s',
                           [active.pk])


def _other(field) -> str:
    kind = field.get_internal_type()
    column = f'"{field.column}"'
    if kind == "JSONField":
        return f"jsonb_build_object('changed', {column})"
    if kind == "BooleanField":
        return f"NOT {column}"
    if kind in ("CharField", "TextField", "SlugField"):
        return f"CASE WHEN {column} = 'a' THEN 'b' ELSE 'a' END"
    if kind == "DateTimeField":
        return f"{column} + interval '1 second'"
    if kind == "ForeignKey" and field.null:
        return "NULL"
    return f"{column} + 1"


def test_status_may_still_move_and_the_definition_stays(active, tech):
    capability_suspend(version=active, actor=tech, reason="incident")
    capability_retire(version=active, actor=tech, reason="replaced")
    active.refresh_from_db()
    assert active.status == CapabilityStatus.RETIRED
    assert active.undo["capability"] == "workPermit.components.remove"


def test_an_active_version_cannot_be_deleted(active):
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM registry_capabilityversion WHERE id = %s", [active.pk])
    with pytest.raises(IntegrityError), transaction.atomic():
        CapabilityVersion.objects.filter(pk=active.pk).delete()


def test_a_draft_can_still_be_edited(loaded):
    draft = version_of("workPermit.read")
    draft.description = "edited while still a draft"
    draft.save()
    draft.refresh_from_db()
    assert draft.description == "edited while still a draft"
