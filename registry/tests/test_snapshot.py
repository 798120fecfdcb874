"""The hot-path snapshot never serves a capability after its suspension commits, in any process."""

from __future__ import annotations

import os
import subprocess
import sys

import psycopg
import pytest
from django.conf import settings
from django.db import connection, transaction

from registry.models import CapabilityStatus
from registry.selectors import CapabilityUnavailable, registry_snapshot, registry_version
from registry.services import capability_suspend

from .conftest import activate, version_of


@pytest.fixture
def active_read(draft, tech, biz):
    return activate(draft, tech, biz)


def test_snapshot_serves_active_capabilities_only(draft, tech, biz):
    assert registry_snapshot().get("workPermit.read") is None
    activate(draft, tech, biz)
    spec = registry_snapshot().require("workPermit.read")
    assert (spec.version, spec.kind, spec.resource.key, spec.resource.transport) == (1, "read", "sst-api",
                                                                                    "inprocess")


def test_an_unchanged_registry_costs_one_query_and_reuses_the_snapshot(active_read, django_assert_num_queries):
    first = registry_snapshot()
    with django_assert_num_queries(1):
        second = registry_snapshot()
        assert second.require("workPermit.read").id == "workPermit.read"
    assert second is first


def test_suspension_is_seen_by_the_next_snapshot(active_read, tech):
    before = registry_snapshot()
    capability_suspend(version=active_read, actor=tech, reason="incident")
    after = registry_snapshot()
    assert after.version != before.version
    assert after.get("workPermit.read") is None
    with pytest.raises(CapabilityUnavailable):
        after.require("workPermit.read")
    assert before.get("workPermit.read") is not None  # a snapshot is immutable: the unit of work keeps its view


def test_a_rolled_back_change_never_lends_its_version_number_to_another_state(active_read, tech):
    with pytest.raises(RuntimeError), transaction.atomic():
        capability_suspend(version=active_read, actor=tech, reason="will roll back")
        rolled_back = registry_snapshot()
        assert rolled_back.get("workPermit.read") is None
        raise RuntimeError("abort")
    restored = registry_snapshot()
    assert restored.get("workPermit.read") is not None
    capability_suspend(version=version_of("workPermit.read"), actor=tech, reason="for real")
    assert registry_version() not in (rolled_back.version, restored.version)
    assert registry_snapshot().get("workPermit.read") is None


def _test_database_url() -> str:
    return f"postgres://postgres@127.0.0.1:5432/{connection.settings_dict['NAME']}"


@pytest.mark.skipif(not settings.USES_POSTGRES, reason="processes share PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_suspension_committed_by_another_process_is_never_served_afterwards(draft, tech, biz):
    version = activate(draft, tech, biz)
    assert registry_snapshot().get("workPermit.read") is not None  # cached in this process
    script = (
        "import sys, django; django.setup()\n"
        "from django.contrib.auth import get_user_model\n"
        "from registry.models import CapabilityVersion\n"
        "from registry.services import capability_suspend\n"
        "capability_suspend(version=CapabilityVersion.objects.get(pk=int(sys.argv[1])),\n"
        "                   actor=get_user_model().objects.get(pk=int(sys.argv[2])), reason='incident elsewhere')\n"
    )
    env = {**os.environ, "DATABASE_URL": _test_database_url()}
    subprocess.run([sys.executable, "-c", script, str(version.pk), str(tech.pk)], cwd=settings.BASE_DIR, env=env,
                   check=True, capture_output=True, timeout=60)
    assert registry_snapshot().get("workPermit.read") is None
    version.refresh_from_db()
    assert version.status == CapabilityStatus.SUSPENDED


@pytest.mark.skipif(not settings.USES_POSTGRES, reason="a second PostgreSQL connection")
@pytest.mark.django_db(transaction=True)
def test_a_suspension_is_served_until_it_commits_and_never_after(draft, tech, biz):
    version = activate(draft, tech, biz)
    registry_snapshot()
    with psycopg.connect(_test_database_url()) as other:
        other.execute("UPDATE registry_capabilityversion SET status = 'SUSPENDED' WHERE id = %s", [version.pk])
        assert registry_snapshot().get("workPermit.read") is not None  # not committed yet
        other.commit()
    assert registry_snapshot().get("workPermit.read") is None


def test_a_tenant_block_hides_the_capability_for_that_tenant_only(active_read, tech, tenant, other_tenant):
    from registry.services import tenant_capability_block, tenant_capability_unblock

    tenant_capability_block(tenant=tenant, capability_key="workPermit.read", actor=tech, reason="customer asked")
    snapshot = registry_snapshot()
    assert snapshot.get("workPermit.read", tenant=tenant) is None
    assert snapshot.get("workPermit.read", tenant=other_tenant) is not None
    tenant_capability_unblock(tenant=tenant, capability_key="workPermit.read", actor=tech)
    assert registry_snapshot().get("workPermit.read", tenant=tenant) is not None


def test_the_spec_validates_input_and_renders_its_path(active_read):
    spec = registry_snapshot().require("workPermit.read")
    assert spec.render_path({"permit_id": 7}) == "permits/7"
    assert spec.input_validator.is_valid({"permit_id": 7})
