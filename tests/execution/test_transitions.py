"""The four state machines of execution (execution/states.py), table-driven: every transition the
table lists is allowed, every other one raises naming both ends; and the writers route through
them — an illegal write raises before anything changes, and a guarded UPDATE leaves a row another
writer moved alone."""

from __future__ import annotations

import itertools

import pytest

from execution.models import ExecutionStatus, ItemStatus, RuntimeExecution, RuntimeStatus, StepRun, StepStatus
from execution.runtime_state import runtime_cas, runtime_ensure
from execution.services import execution_cancel, execution_start
from execution.settle import settle
from execution.states import EXECUTION, ITEM, RUNTIME, STEP, IllegalTransition, Machine
from planning.intents import StructuredIntent

from .helpers import make_world, permit_target, plan_and_approve

MACHINES = {"execution": (EXECUTION, ExecutionStatus), "step": (STEP, StepStatus),
            "runtime": (RUNTIME, RuntimeStatus), "batch item": (ITEM, ItemStatus)}


def _pairs(legal: bool) -> list:
    return [pytest.param(machine, a, b, id=f"{name}:{a}->{b}")
            for name, (machine, statuses) in MACHINES.items()
            for a, b in itertools.product(statuses.values, statuses.values) if machine.allows(a, b) is legal]


@pytest.mark.parametrize("name", MACHINES)
def test_every_status_has_a_row_and_every_target_is_a_status(name):
    machine, statuses = MACHINES[name]
    assert set(machine.table) == set(statuses.values)
    assert set().union(*machine.table.values()) <= set(statuses.values)


@pytest.mark.parametrize(("machine", "current", "new"), _pairs(legal=True))
def test_every_listed_transition_is_allowed(machine: Machine, current, new):
    assert machine.check(current, new) == new
    assert current in machine.sources(new)
    assert machine.guard(new, current) == [current]


@pytest.mark.parametrize(("machine", "current", "new"), _pairs(legal=False))
def test_every_other_transition_raises_naming_both_ends(machine: Machine, current, new):
    with pytest.raises(IllegalTransition) as raised:
        machine.check(current, new)
    assert str(raised.value) == f"illegal {machine.name} transition {current} → {new}"
    assert (raised.value.current, raised.value.new) == (current, new)
    assert current not in machine.sources(new)
    with pytest.raises(IllegalTransition):
        machine.guard(new, current)


def test_the_documented_paths_are_in_the_tables():
    """ARCHITECTURE.md: step pending → dispatched → running → completed | failed | skipped |
    compensated | unknown; a settled execution and a final runtime never move again."""
    for a, b in [("pending", "dispatched"), ("dispatched", "running"), ("running", "completed"),
                 ("running", "failed"), ("running", "unknown"), ("completed", "compensated")]:
        assert STEP.allows(a, b)
    for status in ("completed", "partially_completed", "failed", "cancelled", "compensated"):
        assert EXECUTION.table[status] == frozenset()
    for status in ("COMPLETED", "FAILED", "TERMINATED"):
        assert RUNTIME.table[status] == frozenset()
    assert not RUNTIME.allows("PAUSED", "DEGRADED"), "the controller's own moves never un-pause a runtime"


@pytest.fixture
def execution(registry, eager, tenant, operator, django_capture_on_commit_callbacks):
    world = make_world(tenant)
    intent = StructuredIntent(name="workPermit.updateValidity", slots={"validity_days": 40},
                              targets={"permit": permit_target(world.permit)}, language="pt-BR")
    plan, receipt = plan_and_approve(tenant=tenant, actor=operator, intent=intent)
    with django_capture_on_commit_callbacks(execute=True):
        started = execution_start(plan=plan, receipt_id=receipt.pk, actor=operator, tenant=tenant)
    started.refresh_from_db()
    assert started.status == ExecutionStatus.COMPLETED
    return started


def test_settling_a_settled_execution_again_raises_and_changes_nothing(execution):
    finished_at = execution.finished_at
    with pytest.raises(IllegalTransition, match="execution transition completed → failed"):
        settle(execution, ExecutionStatus.FAILED)
    execution.refresh_from_db()
    assert (execution.status, execution.finished_at) == ("completed", finished_at)


def test_a_stale_settle_is_refused_by_the_guard_in_the_update(execution):
    """The caller believes the execution is still running; the row says completed: nothing is written."""
    execution.status, execution.finished_at = ExecutionStatus.RUNNING, None
    settle(execution, ExecutionStatus.CANCELLED)
    execution.refresh_from_db()
    assert execution.status == ExecutionStatus.COMPLETED


def test_cancelling_a_settled_execution_leaves_it_as_it_is(execution, tenant, operator):
    assert execution_cancel(execution_id=execution.pk, tenant=tenant, actor=operator).status == "completed"


def test_a_runtime_never_leaves_a_final_status(execution):
    runtime = runtime_ensure(execution)
    assert runtime_cas(runtime=runtime, status=RuntimeStatus.COMPLETED, reason="completed")
    with pytest.raises(IllegalTransition, match="runtime transition COMPLETED → RUNNING"):
        runtime_cas(runtime=runtime, status=RuntimeStatus.RUNNING)
    assert RuntimeExecution.objects.for_tenant(execution.tenant_id).get(pk=runtime.pk).status == "COMPLETED"


def test_a_completed_step_is_never_claimed_or_recorded_again(execution):
    from execution.claim import claim_step

    run = StepRun.objects.for_tenant(execution.tenant_id).get(execution=execution)
    assert run.status == StepStatus.COMPLETED
    with pytest.raises(IllegalTransition, match="step transition completed → running"):
        STEP.guard(StepStatus.RUNNING, StepStatus.COMPLETED)
    assert claim_step(execution, run.step_id) is None
    run.refresh_from_db()
    assert (run.status, run.attempts) == (StepStatus.COMPLETED, 1)


def test_every_live_runtime_status_may_end_in_every_final_one():
    """runtime_state.runtime_settle moves the runtime to its final status in one UPDATE guarded only by "not final
    yet": that holds while the table lets every other status reach every final one."""
    from execution.models import RuntimeStatus
    from execution.states import RUNTIME

    finals = {RuntimeStatus.COMPLETED, RuntimeStatus.FAILED, RuntimeStatus.TERMINATED}
    for status in RuntimeStatus.values:
        if status not in finals:
            for final in finals:
                RUNTIME.check(status, final)


def test_settling_keeps_a_review_the_runtime_asked_for_and_mirrors_the_plan(execution):
    """The flag the runtime set (resource gone, budget spent) survives a settle that does not ask for review itself:
    it is kept in the settling UPDATE, not read before it. The plan follows in one conditional UPDATE."""
    Execution = type(execution)
    Execution.objects.for_tenant(execution.tenant_id).filter(pk=execution.pk).update(
        status=ExecutionStatus.RUNNING, finished_at=None, needs_review=True)
    execution.plan.__class__.objects.for_tenant(execution.tenant_id).filter(pk=execution.plan_id).update(status="running")
    execution.status, execution.finished_at, execution.needs_review = ExecutionStatus.RUNNING, None, False

    settle(execution, ExecutionStatus.FAILED)

    execution.refresh_from_db()
    execution.plan.refresh_from_db()
    assert (execution.status, execution.needs_review) == ("failed", True)
    assert execution.plan.status == "failed"


def test_a_plan_moves_only_from_a_status_that_may_reach_the_new_one(execution):
    from planning.services import plan_status_move

    plan = execution.plan
    plan.refresh_from_db()
    assert plan.status == "completed"
    assert plan_status_move(tenant_id=plan.tenant_id, plan_id=plan.pk, status="running") is False
    assert plan_status_move(tenant_id=plan.tenant_id, plan_id=plan.pk, status="failed") is False
    plan.refresh_from_db()
    assert plan.status == "completed"
