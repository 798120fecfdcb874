"""Continuing a plan inline (engine.run_step with `continue_for`): a worker that records a step
claims one of the steps it made ready and runs it itself, and sends only the others.

Driven in-process as a worker would run it (autocommit, messages captured instead of sent); the
real-worker SIGKILL case is in test_worker.py.
"""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission
from django.db import connection, transaction
from django.utils import timezone

from execution import engine, publish, rows
from execution.claim import claim_step
from execution.engine import _finish, run_step
from execution.limits import step_lease
from execution.models import Execution, StepRun, TimelineEntry
from execution.outcome import StepOutcome
from execution.rows import plan_steps_cached
from execution.services import execution_cancel, execution_start
from planning.services import plan_from_steps
from policy.services import kill_switch_set
from sst import services as sst

from .helpers import approve

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("registry")]


class WorkerDied(BaseException):
    """Stands for a SIGKILL: not an Exception, so the engine's per-step guard does not record it."""


@pytest.fixture
def sent(monkeypatch):
    queue: list[tuple[str, str]] = []
    monkeypatch.setattr(publish, "send_soon", lambda task, args, countdown=None: queue.append(args))
    return queue


@pytest.fixture
def permit(tenant):
    return sst.permit_create(tenant=tenant, company=sst.company_create(tenant=tenant, name="Alfa"), validity_days=9)


def _start(tenant, actor, permit, depends: dict[str, list[str]]):
    steps = [{"id": sid, "capability": "workPermit.read", "input": {"permit_id": permit.pk}, "depends_on": deps}
             for sid, deps in depends.items()]
    plan = plan_from_steps(tenant=tenant, actor=actor, steps=steps, template="test.inline")
    return execution_start(plan=plan, receipt_id=approve(plan, actor=actor, tenant=tenant).pk, actor=actor,
                           tenant=tenant)


def _chain(n: int) -> dict[str, list[str]]:
    return {f"r{i}": [f"r{i - 1}"] if i else [] for i in range(n)}


def _runs(execution) -> dict[str, StepRun]:
    return {r.step_id: r for r in StepRun.objects.for_tenant(execution.tenant_id).filter(execution=execution)}


def _started(execution, step_id: str) -> list[dict]:
    return [e.data for e in TimelineEntry.objects.for_tenant(execution.tenant_id)
            .filter(execution=execution, type="STEP_STARTED", step_id=step_id).order_by("id")]


def _die_in(monkeypatch, step_id: str) -> None:
    perform = engine.perform

    def dying(execution, run, plan_step, **kwargs):
        if run.step_id == step_id and run.attempts == 1:
            raise WorkerDied
        return perform(execution, run, plan_step, **kwargs)

    monkeypatch.setattr(engine, "perform", dying)


def _after(monkeypatch, step_id: str, meanwhile) -> None:
    """Run `meanwhile()` once `step_id` has done its work, before it is recorded (between two steps)."""
    perform = engine.perform

    def then(execution, run, plan_step, **kwargs):
        outcome = perform(execution, run, plan_step, **kwargs)
        if run.step_id == step_id:
            meanwhile()
        return outcome

    monkeypatch.setattr(engine, "perform", then)


def test_a_chain_runs_in_one_task_from_its_first_message(tenant, operator, permit, sent):
    execution = _start(tenant, operator, permit, _chain(4))
    assert sent == [(str(execution.pk), "r0")]
    assert run_step(*sent.pop(0), continue_for=60) is None
    execution.refresh_from_db()
    runs = _runs(execution)
    assert execution.status == "completed" and sent == []
    assert [_started(execution, f"r{i}") for i in range(4)] == [
        [{"attempt": 1}], *[[{"attempt": 1, "inline": True}]] * 3]
    # Honest timestamps: an inline step is dispatched the moment it is claimed, after the step before it.
    for before, after in zip("r0 r1 r2".split(), "r1 r2 r3".split(), strict=True):
        assert runs[after].dispatched_at == runs[after].started_at >= runs[before].finished_at


def test_parallel_ready_steps_one_runs_inline_the_others_are_sent(tenant, operator, permit, sent):
    execution = _start(tenant, operator, permit, {"a": [], "b": ["a"], "c": ["a"], "d": ["b", "c"]})
    run_step(*sent.pop(0), continue_for=60)  # a, then b inline; c is sent
    assert sent == [(str(execution.pk), "c")]
    runs = _runs(execution)
    assert (runs["b"].status, runs["c"].status, runs["d"].status) == ("completed", "dispatched", "pending")
    run_step(*sent.pop(0), continue_for=60)  # c, then d inline: it was the last dependency of d
    execution.refresh_from_db()
    assert execution.status == "completed" and sent == []
    assert _started(execution, "d") == [{"attempt": 1, "inline": True}]


def test_past_its_budget_a_task_sends_the_next_step_instead(tenant, operator, permit, sent):
    execution = _start(tenant, operator, permit, _chain(3))
    run_step(*sent.pop(0), continue_for=1e-9)
    assert sent == [(str(execution.pk), "r1")]
    assert _runs(execution)["r1"].status == "dispatched"


def test_a_worker_dying_in_an_inline_step_leaves_it_to_its_redelivered_message(tenant, operator, permit, sent,
                                                                               monkeypatch):
    execution = _start(tenant, operator, permit, _chain(4))
    message = sent.pop(0)
    _die_in(monkeypatch, "r2")
    with pytest.raises(WorkerDied):
        run_step(*message, continue_for=60)
    runs = _runs(execution)
    assert [runs[f"r{i}"].status for i in range(4)] == ["completed", "completed", "running", "pending"]
    # The same message again (Redis redelivers it): r0 is done, r2's lease is live, come back when it ends.
    wait = run_step(*message, continue_for=60)
    assert wait is not None and 0 < wait <= step_lease().total_seconds() + 0.5
    assert _runs(execution)["r2"].attempts == 1
    expired = timezone.now() - timedelta(seconds=1)
    StepRun.objects.for_tenant(tenant).filter(pk=runs["r2"].pk).update(lease_until=expired)
    assert run_step(*message, continue_for=60) is None
    execution.refresh_from_db()
    runs = _runs(execution)
    assert execution.status == "completed" and sent == []
    assert [runs[f"r{i}"].attempts for i in range(4)] == [1, 1, 2, 1]
    assert _started(execution, "r2") == [{"attempt": 1, "inline": True}, {"attempt": 2}]
    assert run_step(*message, continue_for=60) is None, "once settled, a stray copy does nothing"


def test_a_cancel_between_steps_stops_the_loop(tenant, operator, permit, sent, monkeypatch):
    execution = _start(tenant, operator, permit, _chain(3))
    _after(monkeypatch, "r1", lambda: execution_cancel(execution_id=execution.pk, tenant=tenant, actor=operator,
                                                       reason="stop"))
    run_step(*sent.pop(0), continue_for=60)
    execution.refresh_from_db()
    runs = _runs(execution)
    assert execution.status == "cancelled" and sent == []
    # r1 was already calling: it finishes and is recorded; r2 never starts.
    assert (runs["r1"].status, runs["r2"].status, runs["r2"].attempts) == ("completed", "skipped", 0)


def test_a_kill_switch_raised_between_steps_fails_the_next_inline_step_before_its_call(
        tenant, operator, permit, sent, monkeypatch, admin_user):
    admin_user.user_permissions.add(Permission.objects.get(codename="runtime_admin", content_type__app_label="policy"))
    admin = type(admin_user).objects.get(pk=admin_user.pk)
    execution = _start(tenant, operator, permit, _chain(3))
    _after(monkeypatch, "r0", lambda: kill_switch_set(actor=admin, scope="TENANT", tenant=tenant, reason="incident"))
    run_step(*sent.pop(0), continue_for=60)
    execution.refresh_from_db()
    runs = _runs(execution)
    assert (execution.status, runs["r1"].status, runs["r1"].error["code"], runs["r2"].status) == (
        "failed", "failed", "KILL_SWITCH", "skipped")
    assert runs["r1"].calls == 1, "the facts read; the step's own call never happened"


def test_a_registry_change_between_steps_reaches_the_next_inline_step(tenant, operator, permit, sent, monkeypatch,
                                                                       admin_user):
    from registry.services import tenant_capability_block

    execution = _start(tenant, operator, permit, _chain(3))
    _after(monkeypatch, "r0", lambda: tenant_capability_block(tenant=tenant, capability_key="workPermit.read",
                                                              actor=admin_user, reason="drill"))
    run_step(*sent.pop(0), continue_for=60)
    runs = _runs(execution)
    # r1 runs on the registry as of its claim (the version its claiming statement read), not this process's copy.
    assert (runs["r0"].status, runs["r1"].status, runs["r1"].error["code"], runs["r1"].calls) == (
        "completed", "failed", "CAPABILITY_CHANGED", 0)


@pytest.mark.parametrize("fast_sql", [True, False], ids=["one-statement", "orm"])
def test_a_step_recorded_while_another_holds_the_execution_sees_that_ones_outcome_and_the_join_runs(
        tenant, operator, permit, sent, monkeypatch, fast_sql):
    """Recording waits for the execution lock, then reads the other steps as they are now."""
    monkeypatch.setattr(rows, "fast_sql", lambda: fast_sql)
    execution = _start(tenant, operator, permit, {"a": [], "b": ["a"], "c": ["a"], "d": ["b", "c"]})
    run_step(*sent.pop(0))  # a; b and c are sent
    b, c = claim_step(execution, "b").run, claim_step(execution, "c").run
    holding, recorded = threading.Event(), threading.Event()

    def parallel_worker_records_b() -> None:
        try:
            with transaction.atomic():
                Execution.objects.for_tenant(tenant).select_for_update().get(pk=execution.pk)
                holding.set()
                recorded.wait(0.5)  # c's record is now waiting on this lock
                StepRun.objects.for_tenant(tenant).filter(pk=b.pk).update(status="completed",
                                                                          finished_at=timezone.now())
        finally:
            connection.close()

    other = threading.Thread(target=parallel_worker_records_b)
    other.start()
    holding.wait(5)
    steps = plan_steps_cached(tenant.pk, execution.plan_id)
    execution = Execution.objects.all_tenants().select_related("plan", "tenant", "actor").get(pk=execution.pk)
    _, claim = _finish(execution, c, steps["c"], StepOutcome("completed", result={}), inline=True)
    other.join(5)
    assert claim is not None and claim.run.step_id == "d", "b's outcome, committed while c waited, was seen"
    assert _runs(execution)["d"].status == "running"
