"""The state machines of execution as explicit transition tables (ARCHITECTURE.md "Execution state
machine", PRD-006 §21, PRD-034 §5): executions, step runs, the adaptive runtime and batch items.

Every status write goes through one of these machines. A write whose current status is known (a
locked row, a compare-and-set on a version) checks the move with `check`; a conditional UPDATE that
may match rows in several statuses names its from-statuses with `guard`, which checks each against
the table and returns them for the UPDATE's WHERE clause — so the database never moves a row along
a transition the table does not list, and code asking for one raises IllegalTransition. Creating a
row in its initial status is not a transition.
"""

from __future__ import annotations

from collections.abc import Mapping

from .models import ExecutionStatus, ItemStatus, RuntimeStatus, StepStatus


class IllegalTransition(RuntimeError):
    def __init__(self, machine: str, current: str, new: str) -> None:
        super().__init__(f"illegal {machine} transition {current} → {new}")
        self.machine, self.current, self.new = machine, current, new


class Machine:
    """One transition table: status → the statuses it may move to (staying put only where listed)."""

    def __init__(self, name: str, table: Mapping[str, frozenset[str]]) -> None:
        self.name, self.table = name, dict(table)

    def allows(self, current: str, new: str) -> bool:
        return new in self.table.get(current, frozenset())

    def check(self, current: str, new: str) -> str:
        """`new` if the table allows current → new, else raise."""
        if not self.allows(current, new):
            raise IllegalTransition(self.name, current, new)
        return new

    def guard(self, new: str, *current: str) -> list[str]:
        """The from-statuses of a conditional UPDATE to `new`, each checked against the table."""
        for status in current:
            self.check(status, new)
        return [str(status) for status in current]

    def sources(self, new: str) -> list[str]:
        """Every status the table lets reach `new` (the WHERE clause of a write that may find any)."""
        return [str(status) for status, targets in self.table.items() if new in targets]


E = ExecutionStatus
_SETTLING = frozenset({E.COMPLETED, E.PARTIALLY_COMPLETED, E.FAILED, E.CANCELLED, E.COMPENSATING})
EXECUTION = Machine("execution", {
    E.RUNNING: _SETTLING | {E.VERIFYING},
    E.VERIFYING: _SETTLING | {E.RUNNING},
    # A saga ends compensated, or failed when a compensation could not run (human review); the saga
    # of a cancel (the steps that finished after it, execution/cancel.py) ends cancelled.
    E.COMPENSATING: frozenset({E.COMPENSATED, E.FAILED, E.CANCELLED}),
    E.COMPLETED: frozenset(),
    E.PARTIALLY_COMPLETED: frozenset(),
    E.FAILED: frozenset(),
    E.CANCELLED: frozenset(),
    E.COMPENSATED: frozenset(),
})

S = StepStatus
STEP = Machine("step", {
    # Claimed inline by the transaction that made it ready, a pending step is dispatched and started
    # in one write; a cancel or a stopped plan skips it.
    S.PENDING: frozenset({S.DISPATCHED, S.RUNNING, S.SKIPPED}),
    # A resume sends again a step whose message was lost (back to pending, then dispatched); a cancel
    # skips a step sent but not claimed yet, so the worker that receives it later finds nothing to claim.
    S.DISPATCHED: frozenset({S.RUNNING, S.PENDING, S.SKIPPED}),
    # running → running: a takeover of an expired lease (a new attempt); → dispatched: a scheduled
    # retry or a parked (paused) batch step; → pending: a resume after the holder's lease expired.
    S.RUNNING: frozenset({S.RUNNING, S.DISPATCHED, S.PENDING, S.COMPLETED, S.FAILED, S.SKIPPED, S.UNKNOWN}),
    S.COMPLETED: frozenset({S.COMPENSATED}),
    S.FAILED: frozenset(),
    S.SKIPPED: frozenset(),
    S.COMPENSATED: frozenset(),
    S.UNKNOWN: frozenset(),
})

R = RuntimeStatus
_FINAL = frozenset({R.COMPLETED, R.FAILED, R.TERMINATED})
# Between these the controller moves freely (each move is audited as a RuntimeAdaptation); staying
# put is a move too (RESOURCE_BACK on a running runtime still records why).
_LIVE = frozenset({R.RUNNING, R.DEGRADED, R.WAITING, R.REPLANNING})
RUNTIME = Machine("runtime", {
    R.RUNNING: _LIVE | _FINAL | {R.PAUSED, R.STOPPING, R.STALLED},
    R.DEGRADED: _LIVE | _FINAL | {R.PAUSED, R.STOPPING, R.STALLED},
    R.WAITING: _LIVE | _FINAL | {R.PAUSED, R.STOPPING, R.STALLED},
    # A person pauses only a runtime that is running, degraded or waiting, not one replanning.
    R.REPLANNING: _LIVE | _FINAL | {R.STOPPING, R.STALLED},
    # Only a person's resume (or an invalid checkpoint: STOPPING) or a stop leaves PAUSED.
    R.PAUSED: _FINAL | {R.RUNNING, R.STOPPING},
    R.STOPPING: _FINAL | {R.STOPPING},
    # The watchdog recovers a stalled runtime at once (RUNNING); a worker may decide meanwhile.
    R.STALLED: _LIVE | _FINAL | {R.STOPPING},
    R.COMPLETED: frozenset(),
    R.FAILED: frozenset(),
    R.TERMINATED: frozenset(),
})

ITEM = Machine("batch item", {
    # A step that gives up on its open items (deferred, replanned) fails them where they are.
    ItemStatus.PENDING: frozenset({ItemStatus.RUNNING, ItemStatus.FAILED}),
    # running → running: a takeover of an expired lease; → pending: released unrun, or a retry.
    ItemStatus.RUNNING: frozenset({ItemStatus.RUNNING, ItemStatus.PENDING, ItemStatus.COMPLETED, ItemStatus.FAILED}),
    ItemStatus.COMPLETED: frozenset(),
    ItemStatus.FAILED: frozenset(),
})
