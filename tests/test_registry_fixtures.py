"""The tests' registry: a replay of the remembered seeding is the registry the seeder makes, and only an
empty registry is replayed."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import IntegrityError, transaction

from demo.seeding.registry import AUTHOR, seed
from registry.models import CapabilityApproval, CapabilityStatus, CapabilityStatusChange, CapabilityVersion
from tests import registry_fixtures
from tests.registry_fixtures import activate_manifest

_STAMPS = {"created_at", "updated_at"}


def _rows():
    def plain(model, order):
        return [{k: v for k, v in row.items() if k not in _STAMPS and k != "id" and not k.endswith("_id")}
                for row in model.objects.order_by(*order).values()]

    users = get_user_model().objects.order_by("username")
    return {"versions": plain(CapabilityVersion, ["capability__key", "version"]),
            "approvals": plain(CapabilityApproval, ["capability_version__capability__key", "kind"]),
            "changes": plain(CapabilityStatusChange, ["capability_version__capability__key", "to_status"]),
            "users": [(u.username, u.is_staff, sorted(u.user_permissions.values_list("codename", flat=True)))
                      for u in users]}


@pytest.fixture
def seeded_rows(django_db_blocker):
    """What the seeder itself makes on an empty registry (in a transaction rolled back here)."""
    with django_db_blocker.unblock(), transaction.atomic():
        seed(tenant=None, stdout=io.StringIO())
        rows = _rows()
        transaction.set_rollback(True)
    return rows


def _remember_a_seeding():
    with transaction.atomic():
        activate_manifest()  # seeds, if no earlier test of this database did, and remembers it
        transaction.set_rollback(True)
    assert registry_fixtures._remembered, "the seeding was not remembered"


def test_a_replay_is_the_seeders_registry(db, seeded_rows, django_assert_max_num_queries):
    _remember_a_seeding()
    with django_assert_max_num_queries(40):  # a replay, not the 1,200 queries of a seeding
        snapshot = activate_manifest()
    assert _rows() == seeded_rows
    assert {v["status"] for v in seeded_rows["versions"]} == {CapabilityStatus.ACTIVE}
    assert len(snapshot.capabilities) == len(seeded_rows["versions"])


def test_a_replay_passes_the_database_guards(db):
    activate_manifest()
    version = CapabilityVersion.objects.filter(status=CapabilityStatus.ACTIVE).first()
    with pytest.raises(IntegrityError), transaction.atomic():
        CapabilityVersion.objects.filter(pk=version.pk).update(description="changed after approval")


def test_a_seeding_user_already_there_is_seeded_not_replayed(db):
    _remember_a_seeding()
    author = get_user_model().objects.create_user(username=AUTHOR)  # made by the test itself
    snapshot = activate_manifest()
    assert snapshot.capabilities
    assert CapabilityVersion.objects.filter(author=author).count() == len(snapshot.capabilities)


@pytest.mark.django_db(transaction=True)
def test_a_replay_after_a_flush_gives_the_users_their_permissions_again():
    activate_manifest()  # remembered (or replayed), committed
    before = _rows()["users"]
    # What a transactional test's teardown does: every table emptied, the permissions made again under new ids.
    call_command("flush", interactive=False, verbosity=0)
    activate_manifest()  # committed: a permission id that no longer exists would fail here
    assert _rows()["users"] == before
