"""Priority and queues (PRD-034 §40-§42): the deadline rule is the only way up, a task moves only
between registered equivalent queues, Celery routes every run_step through the rule, and a worker
started without -Q consumes every registered queue (real Redis broker, real worker process)."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
import redis
from django.conf import settings as django_settings
from django.utils import timezone

from execution.control import EnvelopeViolation
from execution.models import Execution
from execution.priority import _started_at, priority_for, queue_for, queue_move, time_budget_s
from execution.services import execution_start

from .batch_helpers import batch_plan, make_batch_world


def _execution(age_fraction: float, **extra):
    now = timezone.now()
    return SimpleNamespace(started_at=now - timedelta(seconds=time_budget_s() * age_fraction), **extra), now


def test_priority_rises_only_when_less_than_a_fifth_of_the_time_budget_is_left():
    assert priority_for(remaining_s=500, total_s=1000) == "normal"
    assert priority_for(remaining_s=199, total_s=1000) == "high"
    assert priority_for(remaining_s=None, total_s=1000) == "normal"


def test_asking_for_critical_changes_no_queue_only_the_deadline_does():
    asked, now = _execution(0.1, plan=SimpleNamespace(intent={"slots": {"priority": "CRITICAL"}}, risk="critical"))
    assert queue_for(asked, now) == "execution"
    late, now = _execution(0.85)
    assert queue_for(late, now) == "execution_high"


def test_a_saturated_queue_hands_a_task_only_to_an_equivalent_registered_queue(settings):
    settings.EXECUTION_PRIORITY_QUEUES = {"normal": ("execution", "execution_b"), "high": ("execution_high",)}
    fresh, now = _execution(0.1)
    assert queue_for(fresh, now, backlog={"execution": 10, "execution_b": 0}) == "execution"  # not saturated
    assert queue_for(fresh, now, backlog={"execution": 500, "execution_b": 3, "execution_high": 0}) == "execution_b"
    # However idle the high queue is, a normal task never lands there.
    assert queue_for(fresh, now, backlog={"execution": 900, "execution_b": 800, "execution_high": 0}) == "execution_b"
    assert queue_move("execution", "execution_b") == "execution_b"
    for target in ("execution_high", "default", "unregistered"):
        with pytest.raises(EnvelopeViolation) as caught:
            queue_move("execution", target)
        assert caught.value.code == "QUEUE_NOT_EQUIVALENT"


def test_every_priority_queue_is_declared_so_a_worker_without_q_consumes_it():
    declared = {q.name for q in django_settings.CELERY_TASK_QUEUES}
    registered = {q for group in django_settings.EXECUTION_PRIORITY_QUEUES.values() for q in group}
    assert registered <= declared and "default" in declared


@pytest.fixture
def dispatched(registry, tenant, operator, django_capture_on_commit_callbacks):
    plan, receipt = batch_plan(tenant=tenant, actor=operator, ids=make_batch_world(tenant, 2))
    with django_capture_on_commit_callbacks(execute=False):
        execution = execution_start(plan=plan, receipt_id=receipt.pk, actor=operator, tenant=tenant)
    _started_at.cache_clear()
    yield execution
    _started_at.cache_clear()


def _route(name, args, **options):
    from config.celery import app

    return app.amqp.router.route(options, name, args, {})["queue"].name


def test_celery_routes_run_step_by_the_rule_and_an_explicit_queue_still_wins(dispatched, tenant):
    args = (str(dispatched.pk), "training")
    assert _route("execution.run_step", args) == "execution"
    Execution.objects.for_tenant(tenant).filter(pk=dispatched.pk).update(
        started_at=timezone.now() - timedelta(seconds=time_budget_s() * 0.9))
    _started_at.cache_clear()
    assert _route("execution.run_step", args) == "execution_high"
    assert _route("execution.run_step", args, queue="execution") == "execution"
    assert _route("execution.compensate", (str(dispatched.pk),)) == "execution"
    assert _route("conversations.expire_pending", ()) == "default"


# --- on the real broker and a real worker ------------------------------------------------------


def _lengths() -> dict[str, int]:
    client = redis.Redis.from_url(django_settings.CELERY_BROKER_URL)
    try:
        return {q: client.llen(q) for q in ("default", "execution", "execution_high")}
    finally:
        client.close()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_batch_near_its_deadline_is_sent_to_the_high_queue_and_a_bare_worker_consumes_every_queue(
        celery_worker_process, registry, tenant, operator):
    from execution import publish
    from execution.tasks import ping_task, run_step_task

    from .worker import ROOT, WorkerProcess, purge_queues

    celery_worker_process.stop()  # the suite's worker listens with -Q; here nobody consumes at first
    purge_queues()
    plan, receipt = batch_plan(tenant=tenant, actor=operator, ids=make_batch_world(tenant, 2))
    execution = execution_start(plan=plan, receipt_id=receipt.pk, actor=operator, tenant=tenant)
    assert publish.flush(10)  # the steps' messages leave from the sender thread, right after the commit
    assert _lengths()["execution"] == 3  # training, risk, compliance: a fresh batch is normal priority
    Execution.objects.for_tenant(tenant).filter(pk=execution.pk).update(
        started_at=timezone.now() - timedelta(seconds=time_budget_s() * 0.9))
    _started_at.cache_clear()
    run_step_task.apply_async((str(execution.pk), "training"))  # as the engine sends it: no queue named
    assert _lengths()["execution_high"] == 1
    purge_queues()

    log = Path(celery_worker_process.log).with_name("sst-agent-bare-worker.log").open("ab")
    bare = subprocess.Popen([str(Path(sys.executable).parent / "celery"), "-A", "config", "worker", "-P", "solo",
                             "--without-gossip", "--without-mingle", "--without-heartbeat", "-n", "bare@%h"],
                            cwd=ROOT, env=WorkerProcess().env(), stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        for n, queue in enumerate(("default", "execution", "execution_high")):
            assert ping_task.apply_async((n,), queue=queue).get(timeout=40) == n, queue
    finally:
        bare.terminate()
        bare.wait(timeout=20)
        log.close()
        purge_queues()
