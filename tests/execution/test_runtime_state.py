"""Runtime state: watchdog (two beats, one recovery), CAS, and suggestions that are only proposals."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from execution.control import store
from execution.learning import suggestion_review, suggestions_derive
from execution.models import RuntimeAdaptation, RuntimeExecution, RuntimeOptimizationSuggestion
from execution.runtime_state import runtime_cas, runtime_ensure
from execution.services import execution_start
from execution.watchdog import runtime_watchdog

from .batch_helpers import batch_plan, make_batch_world

pytestmark = pytest.mark.usefixtures("registry")


@pytest.fixture
def started(tenant, operator, django_capture_on_commit_callbacks):
    plan, receipt = batch_plan(tenant=tenant, actor=operator, ids=make_batch_world(tenant, 3))
    with django_capture_on_commit_callbacks(execute=False):  # nothing runs: a worker that never beats
        execution = execution_start(plan=plan, receipt_id=receipt.pk, actor=operator, tenant=tenant)
    return execution


def test_a_runtime_without_heartbeat_is_stalled_and_recovered_once_even_if_two_beats_run(started, tenant):
    runtime = runtime_ensure(started)
    RuntimeExecution.objects.for_tenant(tenant).filter(pk=runtime.pk).update(
        last_heartbeat_at=timezone.now() - timedelta(hours=1))
    store().clear("rt:watchdog")
    first, second = runtime_watchdog(), runtime_watchdog()  # the second beat finds the sweep taken
    assert (first, second) == ([str(started.pk)], [])
    store().clear("rt:watchdog")
    assert runtime_watchdog() == []  # recovered with a fresh heartbeat: not stalled again
    stalls = RuntimeAdaptation.objects.for_tenant(tenant).filter(execution=started, new="STALLED")
    assert stalls.count() == 1 and stalls.get().reason == "HEARTBEAT_TIMEOUT"


def test_compare_and_set_lets_only_one_of_two_writers_move_the_runtime(started, tenant):
    a = runtime_ensure(started)
    b = RuntimeExecution.objects.for_tenant(tenant).get(pk=a.pk)
    assert runtime_cas(runtime=a, status="PAUSED", reason="x") is True
    assert runtime_cas(runtime=b, status="REPLANNING", reason="y") is False
    assert RuntimeExecution.objects.for_tenant(tenant).get(pk=a.pk).status == "PAUSED"


def test_repeated_batch_cuts_become_a_proposal_that_changes_nothing(started, tenant, admin_user):
    for _ in range(4):
        RuntimeAdaptation.objects.create(tenant=tenant, execution=started, kind="BATCH",
                                         lane="workPermit.checkCompliance@compliance-api", old=25, new=12,
                                         reason="HEALTH_DEGRADED", metrics={"timeout_rate": 0.12},
                                         at=timezone.now())
    (suggestion,) = suggestions_derive()
    assert (suggestion.current, suggestion.proposed, suggestion.status) == (
        {"max_batch": 25}, {"max_batch": 12}, "PROPOSED")
    assert suggestions_derive() == []  # one open proposal per lane
    reviewed = suggestion_review(suggestion=suggestion, actor=admin_user, accept=True)
    assert reviewed.status == "ACCEPTED"
    from registry.selectors import registry_snapshot

    assert registry_snapshot().get("workPermit.checkCompliance").adaptation["max_batch"] == 25  # not applied
    assert RuntimeOptimizationSuggestion.objects.for_tenant(tenant).count() == 1
