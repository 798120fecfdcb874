"""Cross-app test helper: the real capability manifest, loaded and approved by two staff users.

It is the demo seeder itself (same services, same two-person approval), so tests and the demo can
never disagree about what "the active registry" is.

Seeding goes through the services: about 1,200 queries, 2–3 s on the CI machines, and some 1,500 tests
start from an empty registry (each test's transaction is rolled back). So the first seeding of a test
database is remembered row by row, and a later call on an empty registry puts the same rows back in a
dozen bulk statements. It still passes the database's guards: versions are inserted as DRAFT, moved to
PENDING_APPROVAL, approved (the approval trigger checks the approver) and moved on to their status (the
transition trigger checks both approvals); the seeding users' permissions are remembered by app and codename, as
a transactional test's flush gives the permissions new ids. Anything else (a registry or seeding user already there, a
status the replay does not walk) seeds through the services as before.
"""

from __future__ import annotations

import io
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db import connection, transaction

from demo.seeding.registry import APPROVERS, AUTHOR, BOOTSTRAP, seed
from registry.models import (
    Capability,
    CapabilityApproval,
    CapabilityStatus,
    CapabilityStatusChange,
    CapabilityVersion,
    Resource,
    ResourceFallback,
)
from registry.selectors import RegistrySnapshot, registry_snapshot, snapshot_clear

_USERNAMES = [AUTHOR, *BOOTSTRAP.values(), *APPROVERS.values()]
_REGISTRY = [Resource, ResourceFallback, Capability]
_REPLAYED = {CapabilityStatus.PENDING_APPROVAL, CapabilityStatus.ACTIVE}
_remembered: dict[str, dict[str, list[dict[str, Any]]]] = {}  # test database name → rows by table


def activate_manifest() -> RegistrySnapshot:
    rows = _remembered.get(connection.settings_dict["NAME"])
    if rows is not None and _empty():
        _replay(rows)
    else:
        seed(tenant=None, stdout=io.StringIO())
        _remember()
    snapshot_clear()
    return registry_snapshot()


def _empty() -> bool:
    return not (Capability.objects.exists() or Resource.objects.exists()
                or get_user_model().objects.filter(username__in=_USERNAMES).exists())


def _remember() -> None:
    user_model = get_user_model()
    users = user_model.objects.filter(username__in=_USERNAMES)
    versions = list(CapabilityVersion.objects.values())
    if len(users) != len(_USERNAMES) or not {v["status"] for v in versions} <= _REPLAYED:
        return  # not the seeder's registry alone: nothing to replay later
    _remembered[connection.settings_dict["NAME"]] = {
        "users": list(users.values()),
        # by natural key: a transactional test's flush recreates the permissions under new ids
        "permissions": list(user_model.user_permissions.through.objects.filter(user__in=users).values_list(
            "user_id", "permission__content_type__app_label", "permission__codename")),
        **{model._meta.db_table: list(model.objects.values()) for model in _REGISTRY},
        "versions": versions,
        "approvals": list(CapabilityApproval.objects.values()),
        "changes": list(CapabilityStatusChange.objects.values()),
    }


@transaction.atomic
def _replay(rows: dict[str, list[dict[str, Any]]]) -> None:
    user_model = get_user_model()
    user_model.objects.bulk_create(user_model(**row) for row in rows["users"])
    through = user_model.user_permissions.through
    ids = {(p.content_type.app_label, p.codename): p.pk for p in Permission.objects.filter(
        codename__in={codename for _, _, codename in rows["permissions"]}).select_related("content_type")}
    through.objects.bulk_create(through(user_id=user, permission_id=ids[(app, codename)])
                                for user, app, codename in rows["permissions"])
    for model in _REGISTRY:
        model.objects.bulk_create(model(**row) for row in rows[model._meta.db_table])
    versions = rows["versions"]
    CapabilityVersion.objects.bulk_create(CapabilityVersion(**{**row, "status": CapabilityStatus.DRAFT})
                                          for row in versions)
    ids = [row["id"] for row in versions]
    CapabilityVersion.objects.filter(pk__in=ids).update(status=CapabilityStatus.PENDING_APPROVAL)
    CapabilityApproval.objects.bulk_create(CapabilityApproval(**row) for row in rows["approvals"])
    active = [row["id"] for row in versions if row["status"] == CapabilityStatus.ACTIVE]
    CapabilityVersion.objects.filter(pk__in=active).update(status=CapabilityStatus.ACTIVE)
    CapabilityStatusChange.objects.bulk_create(CapabilityStatusChange(**row) for row in rows["changes"])
