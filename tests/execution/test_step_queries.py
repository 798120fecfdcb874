"""The per-step database cost, pinned (issue 5: bench/step_dispatch.py measures the time).

A step of a plain read chain, as a worker runs it (autocommit, no surrounding transaction): the
statements the engine itself sends, not counting the SST API's own queries inside the Tool
Runtime's calls (the in-process transport shares the connection). Every transition is still
committed before the next step runs or is sent: the claim is one atomic statement (or part of the
previous step's transaction when the worker continues inline), the outcome and the advance are one
transaction.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from django.db import connection, transaction

from execution import publish, rows
from execution.claim import claim_step
from execution.control import HEALTHY, Envelope, Lane
from execution.engine import run_step
from execution.models import Execution, StepRun, TimelineEntry
from execution.services import execution_start
from execution.tool_runtime import ToolSession
from planning.services import plan_from_steps
from registry.selectors import registry_snapshot, registry_version
from sst import services as sst

from .helpers import approve

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("registry")]

# A step continued inline by the worker that ran the one before it: policy revalidate (live state, the
# recorded check, committed durably before the call: issue 16); then one transaction: the execution
# locked + the step run's UPDATE + its timeline rows + the other step runs (one statement), and the next
# step UPDATEd to running, claimed inline, + its STEP_STARTED and the registry version (one statement).
# Six round trips with BEGIN and COMMIT, two disk flushes: the authorization's and the outcome's. (Was 10
# statements per step, a durable commit for the claim and another for the check — twelve round trips,
# three flushes — and a broker hop.)
STATEMENTS_PER_INLINE_STEP = 4
# A step claimed from a message: SELECT execution and the one-statement claim first, the rest as above.
STATEMENTS_PER_SENT_STEP = 6
DISPATCH_MARK = "WITH ready AS"


@pytest.fixture
def sent(monkeypatch):
    queue: list[tuple[str, str]] = []
    monkeypatch.setattr(publish, "send_soon", lambda task, args, countdown=None: queue.append(args))
    return queue


def _chain(tenant, actor, n: int = 3) -> Execution:
    company = sst.company_create(tenant=tenant, name=f"Alfa {StepRun.objects.for_tenant(tenant).count()}")
    permit = sst.permit_create(tenant=tenant, company=company, validity_days=9)
    steps = [{"id": f"r{i}", "capability": "workPermit.read", "input": {"permit_id": permit.pk},
              "depends_on": [f"r{i - 1}"] if i else []} for i in range(n)]
    plan = plan_from_steps(tenant=tenant, actor=actor, steps=steps, template="test.chain")
    return execution_start(plan=plan, receipt_id=approve(plan, actor=actor, tenant=tenant).pk, actor=actor,
                           tenant=tenant)


def _steady(tenant, capability: str = "workPermit.read") -> None:
    """The capability's lane at its steady state: healthy, at its registered concurrency and batch
    ceilings, so no call of the measured steps changes it. A fresh lane's ramp-up (its first HEALTH
    verdict after MIN_SAMPLES calls, an AIMD increase per cooldown) is recorded once per change as a
    runtime adaptation — not a per-step cost. The steps' fact reads go through the same lane as their
    calls (issue 19), so a 4-step chain now reaches MIN_SAMPLES inside the measured span. Its calls'
    latency, half the lane's timeout, keeps the hedging threshold (3 × P50) above the calls here: a
    hedge's losing request would still be in the Tool Runtime while the engine's statements run."""
    spec = registry_snapshot().get(capability)
    envelope = Envelope.of(spec)
    lane = Lane(tenant.pk, capability, spec.resource.key, envelope)
    lane.update(lambda state: (replace(state, health=HEALTHY, limit=envelope.max_concurrency,
                                       batch=envelope.max_batch, timeout_ms=envelope.timeout_initial_ms,
                                       window=(("ok", envelope.timeout_initial_ms / 2),) * 10), None))


class Counter:
    """Statements outside the Tool Runtime's calls, and commits (each after the statements so far)."""

    def __init__(self, monkeypatch) -> None:
        self.statements: list[str] = []
        self.commits: list[int] = []
        self._in_call = 0
        invoke = ToolSession.invoke

        def counted_invoke(session, **kwargs):
            self._in_call += 1
            try:
                return invoke(session, **kwargs)
            finally:
                self._in_call -= 1

        monkeypatch.setattr(ToolSession, "invoke", counted_invoke)
        commit = connection._commit

        def counted_commit():
            if not self._in_call:
                self.commits.append(len(self.statements))
            return commit()

        monkeypatch.setattr(connection, "_commit", counted_commit)

    def __call__(self, execute, sql, params, many, context):
        if not self._in_call:
            self.statements.append(sql)
        return execute(sql, params, many, context)

    def span(self, after: int, until: int) -> tuple[list[str], int]:
        """Statements and commits after the `after`-th dispatch statement up to the `until`-th, inclusive."""
        marks = [i for i, sql in enumerate(self.statements) if DISPATCH_MARK in sql]
        start, end = (marks[after - 1] + 1 if after else 0), marks[until - 1] + 1
        return self.statements[start:end], sum(1 for c in self.commits if start < c <= end)


def test_a_step_continued_inline_costs_six_statements_and_one_transaction(tenant, operator, sent, monkeypatch):
    execution = _chain(tenant, operator, n=4)
    _steady(tenant)
    run_step(*sent.pop(0))  # r0, on its own: r1 is sent
    counter = Counter(monkeypatch)
    with connection.execute_wrapper(counter):
        run_step(*sent.pop(0), continue_for=60)  # r1 from its message, then r2 and r3 inline
    sent_step, sent_commits = counter.span(0, 1)
    inline_step, inline_commits = counter.span(1, 2)
    assert len(sent_step) == STATEMENTS_PER_SENT_STEP, "\n".join(sent_step)
    assert len(inline_step) == STATEMENTS_PER_INLINE_STEP, "\n".join(inline_step)
    assert (sent_commits, inline_commits) == (1, 1)
    # The recorded check commits on its own (autocommit), durably, before the call: nothing relaxes it.
    assert not [sql for sql in counter.statements if "synchronous_commit" in sql]
    assert any("INSERT" in sql and "receiptcheck" in sql for sql in inline_step)
    assert sent == [], "nothing went through the broker"
    runs = {r.step_id: r for r in StepRun.objects.for_tenant(tenant).filter(execution=execution)}
    assert {r.status for r in runs.values()} == {"completed"}
    assert [(r.attempts, r.started_at == r.dispatched_at) for r in runs.values()] == [
        (1, False), (1, False), (1, True), (1, True)]
    execution.refresh_from_db()
    assert execution.status == "completed"


def test_without_continuation_every_ready_step_is_sent(tenant, operator, sent):
    execution = _chain(tenant, operator)
    run_step(*sent.pop(0))
    run_step(*sent.pop(0))
    runs = {r.step_id: r for r in StepRun.objects.for_tenant(tenant).filter(execution=execution)}
    assert (runs["r0"].status, runs["r1"].status, runs["r2"].status) == ("completed", "completed", "dispatched")
    assert sent == [(str(execution.pk), "r2")]


def _written(execution) -> list:
    runs = StepRun.objects.for_tenant(execution.tenant_id).filter(execution=execution).order_by("position")
    entries = TimelineEntry.objects.for_tenant(execution.tenant_id).filter(execution=execution).order_by("id")
    return ([(r.step_id, r.status, r.attempts, r.calls, sorted(r.input), r.error, sorted(r.result or {}),
             r.finished_at is not None, r.lease_until) for r in runs],
            [(e.type, e.step_id, e.data) for e in entries if e.type.startswith("STEP_")])


def test_the_one_statement_record_and_dispatch_write_what_the_orm_path_writes(tenant, operator, sent, monkeypatch):
    fast = _chain(tenant, operator)
    run_step(*sent.pop(0), continue_for=60)
    monkeypatch.setattr(rows, "fast_sql", lambda: False)
    orm = _chain(tenant, operator)
    run_step(*sent.pop(0), continue_for=60)
    assert _written(fast) == _written(orm)
    assert _written(fast)[1][2:4] == [("STEP_STARTED", "r1", {"attempt": 1, "inline": True}),
                                      ("STEP_COMPLETED", "r1", {"attempt": 1})]


def test_the_one_statement_claim_writes_what_the_orm_claim_writes(tenant, operator, sent, monkeypatch):
    fast, orm = _chain(tenant, operator, n=1), _chain(tenant, operator, n=1)
    with transaction.atomic():  # inside a caller's transaction too (a turn's reads: execution/inline.py)
        claimed_fast = claim_step(fast, "r0")
    monkeypatch.setattr(rows, "fast_sql", lambda: False)
    claimed_orm = claim_step(orm, "r0")
    # The statement also read the registry version (what perform would read next); the ORM path leaves it to perform.
    assert (claimed_fast.registry_version, claimed_orm.registry_version) == (registry_version(), None)
    claimed_fast, claimed_orm = claimed_fast.run, claimed_orm.run
    fields = ("status", "attempts", "step_id", "position", "tenant_id")
    assert [getattr(claimed_fast, f) for f in fields] == [getattr(claimed_orm, f) for f in fields]
    assert claimed_fast.lease_until - claimed_fast.started_at == claimed_orm.lease_until - claimed_orm.started_at
    for execution in (fast, orm):
        started = TimelineEntry.objects.for_tenant(tenant).filter(execution=execution, type="STEP_STARTED").get()
        assert (started.step_id, started.data) == ("r0", {"attempt": 1})
    monkeypatch.undo()
    assert claim_step(fast, "r0") is None, "a running step with a live lease is not claimed twice"


def test_a_claim_never_crosses_into_another_execution_or_a_settled_one(tenant, operator, sent):
    first, second = _chain(tenant, operator, n=1), _chain(tenant, operator, n=1)
    Execution.objects.for_tenant(tenant).filter(pk=second.pk).update(status="cancelled")
    assert claim_step(second, "r0") is None
    assert StepRun.objects.for_tenant(tenant).get(execution=second).status != "running"
    assert StepRun.objects.for_tenant(tenant).get(execution=first).status != "running"


@pytest.mark.parametrize("fast_sql", [True, False], ids=["one-statement", "orm"])
def test_a_step_taken_over_meanwhile_records_nothing_and_advances_nothing(tenant, operator, sent, monkeypatch,
                                                                           fast_sql):
    from execution.engine import _finish
    from execution.outcome import StepOutcome
    from execution.rows import plan_steps_cached

    monkeypatch.setattr(rows, "fast_sql", lambda: fast_sql)
    execution = _chain(tenant, operator, n=2)
    run = claim_step(execution, "r0").run
    # Its lease ran out and a redelivered message took it over (attempt 2) while this worker was calling.
    StepRun.objects.for_tenant(tenant).filter(pk=run.pk).update(attempts=2)
    execution = Execution.objects.all_tenants().select_related("plan", "tenant", "actor").get(pk=execution.pk)
    steps = plan_steps_cached(tenant.pk, execution.plan_id)
    assert _finish(execution, run, steps["r0"], StepOutcome("completed", result={}), inline=True)[1] is None
    runs = {r.step_id: r for r in StepRun.objects.for_tenant(tenant).filter(execution=execution)}
    assert (runs["r0"].status, runs["r0"].finished_at, runs["r1"].status) == ("running", None, "pending")
    assert not TimelineEntry.objects.for_tenant(tenant).filter(execution=execution, type="STEP_COMPLETED").exists()
