"""The per-step database cost, pinned (issue 5: bench/step_dispatch.py measures the time).

A step of a plain read chain, as a worker runs it (autocommit, no surrounding transaction): the
statements the engine itself sends, not counting the SST API's own queries inside the Tool
Runtime's calls (the in-process transport shares the connection). Every transition is still
committed before the next step is sent: the claim is one atomic statement, the outcome and the
advance are one transaction.
"""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from execution import tasks
from execution.engine import _claim, run_step
from execution.models import Execution, StepRun, TimelineEntry
from execution.services import execution_start
from execution.tool_runtime import ToolSession
from planning.services import plan_from_steps
from sst import services as sst

from .helpers import approve

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("registry")]

# SELECT execution; claim (UPDATE … RETURNING + STEP_STARTED, one statement); registry version;
# policy revalidate (live state + recorded check); SELECT … FOR UPDATE execution; UPDATE step run;
# INSERT its timeline rows; SELECT step runs; UPDATE the next step to dispatched. (Was 12 statements
# in 3 transactions, plus a health-check ping per task in a worker.)
STATEMENTS_PER_STEP = 10


@pytest.fixture
def sent(monkeypatch):
    queue: list[tuple[str, str]] = []
    monkeypatch.setattr(tasks.run_step_task, "apply_async", lambda args, countdown=None: queue.append(args))
    return queue


def _chain(tenant, actor, n: int = 3) -> Execution:
    company = sst.company_create(tenant=tenant, name=f"Alfa {StepRun.objects.for_tenant(tenant).count()}")
    permit = sst.permit_create(tenant=tenant, company=company, validity_days=9)
    steps = [{"id": f"r{i}", "capability": "workPermit.read", "input": {"permit_id": permit.pk},
              "depends_on": [f"r{i - 1}"] if i else []} for i in range(n)]
    plan = plan_from_steps(tenant=tenant, actor=actor, steps=steps, template="test.chain")
    return execution_start(plan=plan, receipt_id=approve(plan, actor=actor, tenant=tenant).pk, actor=actor,
                           tenant=tenant)


class Counter:
    """Statements outside the Tool Runtime's calls, and commits."""

    def __init__(self, monkeypatch) -> None:
        self.statements: list[str] = []
        self.commits = 0
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
                self.commits += 1
            return commit()

        monkeypatch.setattr(connection, "_commit", counted_commit)

    def __call__(self, execute, sql, params, many, context):
        if not self._in_call:
            self.statements.append(sql)
        return execute(sql, params, many, context)


def test_a_middle_step_costs_ten_statements_and_one_transaction(tenant, operator, sent, monkeypatch):
    execution = _chain(tenant, operator)
    run_step(*sent.pop(0))
    counter = Counter(monkeypatch)
    with connection.execute_wrapper(counter):
        run_step(*sent.pop(0))
    assert len(counter.statements) == STATEMENTS_PER_STEP, "\n".join(counter.statements)
    assert counter.commits == 1
    runs = {r.step_id: r for r in StepRun.objects.for_tenant(tenant).filter(execution=execution)}
    assert (runs["r0"].status, runs["r1"].status, runs["r2"].status) == ("completed", "completed", "dispatched")
    assert sent == [(str(execution.pk), "r2")]


def test_the_one_statement_claim_writes_what_the_orm_claim_writes(tenant, operator, sent):
    fast, orm = _chain(tenant, operator, n=1), _chain(tenant, operator, n=1)
    claimed_fast = _claim(fast, "r0")
    with transaction.atomic():  # inside a transaction the engine takes the ORM path
        claimed_orm = _claim(orm, "r0")
    fields = ("status", "attempts", "step_id", "position", "tenant_id")
    assert [getattr(claimed_fast, f) for f in fields] == [getattr(claimed_orm, f) for f in fields]
    assert claimed_fast.lease_until - claimed_fast.started_at == claimed_orm.lease_until - claimed_orm.started_at
    for execution in (fast, orm):
        started = TimelineEntry.objects.for_tenant(tenant).filter(execution=execution, type="STEP_STARTED").get()
        assert (started.step_id, started.data) == ("r0", {"attempt": 1})
    assert _claim(fast, "r0") is None, "a running step with a live lease is not claimed twice"


def test_a_claim_never_crosses_into_another_execution_or_a_settled_one(tenant, operator, sent):
    first, second = _chain(tenant, operator, n=1), _chain(tenant, operator, n=1)
    Execution.objects.for_tenant(tenant).filter(pk=second.pk).update(status="cancelled")
    assert _claim(second, "r0") is None
    assert StepRun.objects.for_tenant(tenant).get(execution=second).status != "running"
    assert StepRun.objects.for_tenant(tenant).get(execution=first).status != "running"
