"""The step engine: claim → condition → fresh facts → policy revalidation → call → classify →
verify → persist → advance (PRD-006 §15-§28, ARCHITECTURE.md invariants 3, 8, 9).

Tasks carry ids only. Each transition is committed before the next step is dispatched
(`transaction.on_commit`), so a worker killed at any point leaves a checkpoint another worker
resumes from: a completed StepRun is never claimed again; a `running` one is taken over only once
its lease (≥ the broker's visibility timeout) has expired; a mutating call repeated after a crash
carries the same `Idempotency-Key` and is replayed by the API, not applied twice.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from functools import lru_cache
from typing import Any

import structlog
from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from planning.batch import BATCH_SOURCE
from planning.conditions import assertion_holds, holds
from planning.models import PlanStep
from planning.references import MISSING, Ref, drop_nulls, get_path, resolve
from policy.services import revalidate
from registry.selectors import CapabilitySpec, RegistrySnapshot, registry_snapshot, registry_version_sql

from . import metrics
from .errors import ErrorClass, Outcome
from .messages import both
from .models import IN_FLIGHT, Execution, ExecutionStatus, StepRun, StepStatus, TimelineEntry, TimelineType
from .runtime import navigation_instruction, read_facts, session_for
from .runtime_state import runtime_settle
from .timeline import conversation_event, timeline_add, timeline_add_many
from .tool_runtime import ToolResult, ToolSession

log = structlog.get_logger(__name__)

IN_PROGRESS_CODE = "IDEMPOTENCY_IN_PROGRESS"
FAILED_DEPS = frozenset({StepStatus.SKIPPED, StepStatus.FAILED, StepStatus.UNKNOWN, StepStatus.COMPENSATED})


@lru_cache(maxsize=512)
def plan_steps_cached(tenant_id: Any, plan_id: Any) -> dict[str, PlanStep]:
    """A plan's steps never change once stored (planning writes them once), so each process reads them once."""
    rows = PlanStep.objects.for_tenant(tenant_id).filter(plan_id=plan_id).order_by("position")
    return {s.step_id: s for s in rows}


def step_lease() -> timedelta:
    return timedelta(seconds=settings.EXECUTION_STEP_LEASE_SECONDS)


@dataclass
class StepOutcome:
    status: str  # completed | failed | skipped | unknown | retry
    result: Any = None
    error: dict[str, Any] | None = None
    input: Any = None
    calls: int = 0
    call_ms: float = 0.0
    retry_after_s: float | None = None
    entries: list[tuple[str, dict[str, Any], Any]] = field(default_factory=list)

    def note(self, type_: str, **data: Any) -> None:
        self.entries.append((type_, data, timezone.now()))

    def count(self, result: ToolResult) -> ToolResult:
        self.calls += 1
        self.call_ms += result.latency_ms
        return result


@dataclass(frozen=True)
class Claim:
    """A step this worker holds, and the registry version read by the statement that claimed it
    (None: `perform` reads it)."""

    run: StepRun
    registry_version: int | None = None


def _error(code: str, *, error_class: str | None = None, status: int | None = None, **extra: Any) -> dict[str, Any]:
    return {"code": code, "class": error_class, "status": status, **extra}


# --- dispatch --------------------------------------------------------------------------------


def dispatch(execution_id: Any, step_id: str, *, countdown: float = 0) -> None:
    """Send the step's task once the current transaction commits (never before)."""
    from . import publish
    from .tasks import run_step_task

    args = (str(execution_id), step_id)
    transaction.on_commit(lambda: publish.send_soon(run_step_task, args, countdown=countdown or None))


def dispatch_compensation(execution_id: Any) -> None:
    from .tasks import compensate_task

    transaction.on_commit(lambda: compensate_task.apply_async((str(execution_id),)))


# --- run one step ----------------------------------------------------------------------------


def run_step(execution_id: Any, step_id: str, *, continue_for: float = 0.0) -> float | None:
    """Run one step, and with `continue_for` > 0 the plan's next ready steps too, one at a time.

    Continuing inline: until `continue_for` seconds have passed since the first claim (at most half
    the step lease, which is the broker's visibility timeout: this task's message, acknowledged only
    at the end, must not be handed to another worker while the loop still runs), the transaction
    that records a step's outcome also claims ONE of the steps it makes ready (running, attempts+1,
    a lease, STEP_STARTED with `inline`) and this worker runs it right after the commit; every other
    ready step is sent through the broker as before, so independent steps still run in parallel.
    The claim happens under the execution lock with the execution still running, so a cancel is
    honoured at every step boundary, and each step re-runs the live policy checks (kill switches).
    Should the worker die, this task's unacknowledged message comes back and `_adopt` takes over
    the step whose lease ran out (the watchdog would too).

    Returns seconds to wait when another worker still holds the step's lease.
    """
    execution = (Execution.objects.all_tenants().select_related("plan", "tenant", "actor")
                 .filter(pk=execution_id).first())
    if execution is None:
        return None
    with metrics.log_context(planId=str(execution.plan_id), tenantId=str(execution.tenant_id),
                             **({"conversationId": str(execution.conversation_id)} if execution.conversation_id
                                else {})) as log_ids:
        claim = _claim(execution, step_id)
        if claim is None:
            wait = _lease_left(execution, step_id)
            if wait is not None or not continue_for:
                return wait
            claim, wait = _adopt(execution)
            if claim is None:
                return wait
        deadline = time.monotonic() + min(continue_for, step_lease().total_seconds() / 2)
        while claim is not None:
            execution, claim = _run_claimed(execution, claim, log_ids, inline=time.monotonic() < deadline)
    return None


def _run_claimed(execution: Execution, claim: Claim, log_ids: dict[str, Any], *,
                 inline: bool) -> tuple[Execution, Claim | None]:
    """Perform a claimed step and record it; returns the execution as locked then and the step claimed inline."""
    run = claim.run
    metrics.log_rebind(log_ids, stepId=run.step_id)
    started = time.perf_counter()
    plan_step = plan_steps_cached(execution.tenant_id, execution.plan_id)[run.step_id]
    try:
        outcome = perform(execution, run, plan_step, registry_version=claim.registry_version)
    except Exception as exc:  # noqa: BLE001 - a bug in one step fails that step, it does not wedge the execution
        metrics.log_rebind(log_ids)
        log.exception("step_crashed", execution=str(execution.pk), step=run.step_id)
        outcome = StepOutcome("failed", error=_error("INTERNAL_ERROR", detail=type(exc).__name__))
    metrics.log_rebind(log_ids)  # an in-process tool call ran the request middleware, which clears the context
    locked, next_run = _finish(execution, run, plan_step, outcome, inline=inline)
    elapsed = time.perf_counter() - started
    metrics.STEP_LATENCY.labels(capability=plan_step.capability_id, outcome=outcome.status).observe(elapsed)
    log.info("step_finished", capability=plan_step.capability_id, outcome=outcome.status,
             attempt=run.attempts, ms=round(elapsed * 1000, 2), next_inline=next_run.run.step_id if next_run else None)
    return locked, next_run


def _finish(execution: Execution, run: StepRun, plan_step: PlanStep, outcome: StepOutcome, *,
            inline: bool = False) -> tuple[Execution, Claim | None]:
    """Persist the outcome and advance in ONE transaction; returns (the locked execution, the step claimed inline).

    The execution row is locked first, as `advance`, `execution_cancel` and `execution_resume` do,
    so the lock order stays execution → step runs. The step runs are read after the lock (a parallel
    step recorded just before is seen). On PostgreSQL a final outcome takes one statement for the
    lock, the record and that read (`finished_at` is taken as it is sent). The next steps are sent
    only after this commit (`dispatch` uses on_commit), by this worker: no extra hop; with `inline`,
    one of them is claimed here instead.
    """
    with transaction.atomic():
        if _fast_sql() and outcome.status != "retry":
            locked, runs = _lock_and_record(execution, run, outcome)
        else:
            locked = _locked(execution.pk, like=execution) or execution
            runs = _record(locked, run, plan_step, outcome)
        if runs is None:
            return locked, None
        _progress(locked, plan_step, runs)
        return locked, advance(execution.pk, locked=locked, runs=runs, inline=inline)


def _locked(execution_id: Any, *, like: Execution | None = None) -> Execution | None:
    """The execution row FOR UPDATE. With `like` (the caller's copy, relations loaded): only its
    changing columns are read, into `like`, which is returned."""
    if like is None:
        return (Execution.objects.all_tenants().select_for_update(of=("self",)).select_related("plan", "tenant")
                .filter(pk=execution_id).first())
    if _fast_sql():
        with connection.cursor() as cursor:
            cursor.execute(_LOCK_SQL, [like.pk, like.tenant_id])
            row = cursor.fetchone()
        if row is not None:
            row = (*row[:3], None if row[3] is None else json.loads(row[3]))
    else:
        row = (Execution.objects.for_tenant(like.tenant_id).select_for_update().filter(pk=like.pk)
               .values_list(*_LOCK_FIELDS).first())
    if row is None:
        return None
    for name, value in zip(_LOCK_FIELDS, row, strict=True):
        setattr(like, name, value)
    return like


_LOCK_FIELDS = ("status", "needs_review", "finished_at", "error")
_LOCK_SQL = (f"SELECT {', '.join(_LOCK_FIELDS)} FROM {Execution._meta.db_table} WHERE id = %s AND tenant_id = %s "
             "FOR UPDATE")


def _lease_left(execution: Execution, step_id: str) -> float | None:
    """A redelivered task can arrive just before the dead holder's lease ends: come back then, don't drop it."""
    lease = (StepRun.objects.for_tenant(execution.tenant_id)
             .filter(execution=execution, step_id=step_id, status=StepStatus.RUNNING,
                     execution__status=ExecutionStatus.RUNNING).values_list("lease_until", flat=True).first())
    if lease is None:
        return None
    return max(0.0, (lease - timezone.now()).total_seconds()) + 0.5


def _adopt(execution: Execution) -> tuple[Claim | None, float | None]:
    """This task's own step is finished: take over a step left running under an expired lease.

    A worker that died while continuing the plan inline from this task's step left that step
    `running`, and its only message is this one (redelivered, unacknowledged). Claim it (the claim
    takes a running step only once its lease expired, so a live holder keeps it); if a lease is
    still live, come back when it ends. Nothing running: nothing to do.
    """
    now = timezone.now()
    leases = (StepRun.objects.for_tenant(execution.tenant_id)
              .filter(execution=execution, status=StepStatus.RUNNING, execution__status=ExecutionStatus.RUNNING)
              .order_by("lease_until").values_list("step_id", "lease_until"))
    live = []
    for step_id, lease in leases:
        if lease is not None and lease >= now:
            live.append(lease)
        elif (claim := _claim(execution, step_id)) is not None:
            log.warning("step_adopted", step=step_id, attempt=claim.run.attempts)
            return claim, None
    return None, (max(0.0, (min(live) - now).total_seconds()) + 0.5 if live else None)


def _claim(execution: Execution, step_id: str) -> Claim | None:
    """running, attempts+1, a fresh lease and STEP_STARTED, atomically; None when not claimable."""
    now = timezone.now()
    if connection.vendor == "postgresql" and not connection.in_atomic_block:
        return _claim_one_statement(execution, step_id, now)
    with transaction.atomic():
        claimed = (StepRun.objects.for_tenant(execution.tenant_id)
                   .filter(execution=execution, step_id=step_id, execution__status=ExecutionStatus.RUNNING)
                   .filter(Q(status__in=[StepStatus.PENDING, StepStatus.DISPATCHED])
                           | Q(status=StepStatus.RUNNING, lease_until__lt=now))
                   .update(status=StepStatus.RUNNING, attempts=F("attempts") + 1, started_at=now,
                           lease_until=now + step_lease()))
        if claimed != 1:
            return None
        run = StepRun.objects.for_tenant(execution.tenant_id).get(execution=execution, step_id=step_id)
        timeline_add(execution=execution, type=TimelineType.STEP_STARTED, step_id=step_id, at=now,
                     data={"attempt": run.attempts})
    return Claim(run)


_STATUS_LIST = ", ".join(f"'{s}'" for s in (StepStatus.PENDING, StepStatus.DISPATCHED))
_RUN_FIELDS = tuple(StepRun._meta.concrete_fields)
# What `advance` reads of every step run: not the payloads, which it would decode for nothing at each step.
_RUN_PAYLOADS = ("result", "input", "compensation")
_RUN_STATE_FIELDS = tuple(f for f in _RUN_FIELDS if f.name not in _RUN_PAYLOADS)


def _run_columns(alias: str = "", fields: tuple = _RUN_FIELDS) -> str:
    return ", ".join(f'{alias}{"." if alias else ""}"{f.column}"' for f in fields)


def _fetch_runs(sql: str, params: Mapping[str, Any], fields: tuple = _RUN_FIELDS) -> list[tuple[StepRun, tuple]]:
    """A hand-written statement returning step-run rows (`_run_columns(fields=…)`, then any other
    columns): (the model, built as the ORM builds it — fields not selected are deferred, as with
    `.defer()` —, the other columns as they came)."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    names = [f.attname for f in fields]
    json_at = [i for i, f in enumerate(fields) if f.get_internal_type() == "JSONField"]
    runs = []
    for row in rows:
        values = list(row[:len(fields)])
        for i in json_at:
            values[i] = None if values[i] is None else json.loads(values[i])
        runs.append((StepRun.from_db(connection.alias, names, values), row[len(fields):]))
    return runs


# The same conditional UPDATE as the ORM path, and the STEP_STARTED row, in one statement (a single
# statement is atomic in autocommit): one round trip where the ORM path needs five (BEGIN, UPDATE,
# SELECT, INSERT, COMMIT). Hand-written because Django's update() cannot return rows; the ORM path
# below stays the yardstick (SQLite, and a test holds both to the same rows). It also reads the
# registry version `perform` would read next (`registry_snapshot(version)`).
_CLAIM_SQL = f"""
WITH claimed AS (
    UPDATE {StepRun._meta.db_table} AS s
       SET status = %(running)s, attempts = s.attempts + 1, started_at = %(now)s, lease_until = %(lease)s
      FROM {Execution._meta.db_table} AS e
     WHERE s.tenant_id = %(tenant)s AND s.execution_id = %(execution)s AND s.step_id = %(step)s
       AND e.id = s.execution_id AND e.tenant_id = s.tenant_id AND e.status = %(execution_running)s
       AND (s.status IN ({_STATUS_LIST}) OR (s.status = %(running)s AND s.lease_until < %(now)s))
 RETURNING {_run_columns("s")}
), started AS (
    INSERT INTO {TimelineEntry._meta.db_table} (tenant_id, execution_id, type, step_id, at, data)
    SELECT tenant_id, execution_id, %(started)s, step_id, %(now)s, jsonb_build_object('attempt', attempts)
      FROM claimed
)
SELECT *, {registry_version_sql()} FROM claimed
"""


def _claim_one_statement(execution: Execution, step_id: str, now) -> Claim | None:
    rows = _fetch_runs(_CLAIM_SQL, {
        "running": StepStatus.RUNNING, "now": now, "lease": now + step_lease(), "tenant": execution.tenant_id,
        "execution": execution.pk, "step": step_id, "execution_running": ExecutionStatus.RUNNING,
        "started": TimelineType.STEP_STARTED})
    return Claim(rows[0][0], rows[0][1][0]) if rows else None


def _results(execution: Execution) -> dict[str, Any]:
    rows = (StepRun.objects.for_tenant(execution.tenant_id)
            .filter(execution=execution, status=StepStatus.COMPLETED).values_list("step_id", "result"))
    return dict(rows)


def step_lookup(results: Mapping[str, Any], item: Any = MISSING):
    def lookup(ref: Ref) -> Any:
        if ref.root == "item":
            return MISSING if item is MISSING else get_path(item, ref.path)
        if ref.root != "steps" or ref.step_id not in results:
            return MISSING
        return get_path(results[ref.step_id], ref.path)
    return lookup


def perform(execution: Execution, run: StepRun, plan_step: PlanStep, *,
            registry_version: int | None = None) -> StepOutcome:
    """The step's work between claim and record. `registry_version`: read by the claiming statement."""
    snapshot = registry_snapshot(registry_version)
    tenant = execution.tenant
    spec = snapshot.get(plan_step.capability_id, tenant=tenant)
    if spec is None or spec.version != plan_step.capability_version:
        return StepOutcome("failed", error=_error("CAPABILITY_CHANGED", pinned=plan_step.capability_version,
                                                  active=spec.version if spec else None))
    if plan_step.for_each == BATCH_SOURCE:
        from .batch import perform_batch

        return perform_batch(execution, run, plan_step, spec, snapshot, StepOutcome("running"))
    uses_results = bool(plan_step.for_each or plan_step.condition or plan_step.postconditions
                        or "${steps." in json.dumps(plan_step.input))
    results = _results(execution) if uses_results else {}
    lookup = step_lookup(results)
    if plan_step.condition:
        condition = plan_step.condition
        if not holds(resolve(condition["ref"], lookup), condition["op"], resolve(condition.get("value"), lookup)):
            return StepOutcome("skipped", result={"condition": False})
    session = session_for(user_id=execution.actor_id, tenant=tenant)
    outcome = StepOutcome("running")
    facts, fact_results = read_facts(session=session, snapshot=snapshot, tenant=tenant, targets=plan_step.targets)
    for result in fact_results:
        outcome.count(result)
        if result.retryable:
            outcome.status, outcome.error = "retry", _error("FACTS_UNAVAILABLE", error_class=result.error_class)
            return outcome
    check = _revalidate(execution, plan_step, facts)
    if not check.ok:
        outcome.status = "failed"
        outcome.error = _error(check.code, policy=True, reasons=[r.to_dict() for r in check.reasons],
                               check=check.check_id)
        return outcome
    if check.registry_version is not None and check.registry_version != snapshot.version:
        # The live checks ran against a newer registry than the one this step started with: call
        # the spec that was checked, not the one read before (and still the pinned version).
        snapshot = registry_snapshot()
        spec = snapshot.get(plan_step.capability_id, tenant=tenant)
        if spec is None or spec.version != plan_step.capability_version:
            outcome.status = "failed"
            outcome.error = _error("CAPABILITY_CHANGED", pinned=plan_step.capability_version,
                                   active=spec.version if spec else None)
            return outcome
    if plan_step.for_each:
        return _perform_each(execution, plan_step, spec, session, snapshot, results, outcome)
    values = drop_nulls(resolve(plan_step.input, lookup))
    outcome.input = values
    if spec.kind == "navigation":
        outcome.status = "completed"
        outcome.result = navigation_instruction(spec, values, label=_label_for(results, values))
        return outcome
    return _call(execution, plan_step, spec, session, snapshot, values, _key(execution, plan_step), outcome, lookup)


def _revalidate(execution: Execution, plan_step: PlanStep, facts: dict[str, Any]):
    """`policy.services.revalidate` (receipt, live checks, the recorded check).

    The recorded check is the authorization of the step's effect, so its commit is durable (the
    server's `synchronous_commit`, never relaxed here) before the call is made: a crash at or after
    the call cannot lose the record that authorized an effect that did happen (issue 16;
    tests/execution/test_check_durable.py). Inside a caller's transaction (eager) it commits with it.
    """
    return revalidate(receipt_id=execution.receipt_id, actor=execution.actor, tenant=execution.tenant,
                      plan_id=execution.plan_id, step_id=plan_step.step_id,
                      capability=(plan_step.capability_id, plan_step.capability_version), input=plan_step.input,
                      facts=facts, execution_started_at=execution.started_at, execution_id=execution.pk)


def _label_for(results: Mapping[str, Any], values: Mapping[str, Any]) -> str | None:
    wanted = next((v for k, v in values.items() if k.endswith("_id")), None)
    for result in results.values():
        if isinstance(result, Mapping) and result.get("id") == wanted:
            return str(result.get("number") or result.get("name") or wanted)
    return str(wanted) if wanted is not None else None


def _key(execution: Execution, plan_step: PlanStep, suffix: str = "") -> str:
    return f"agent:{execution.plan_id}:{plan_step.step_id}{suffix}"


def _invalid_input(spec: CapabilitySpec, values: Mapping[str, Any]) -> dict[str, Any] | None:
    errors = [e.message for e in spec.input_validator.iter_errors(dict(values))]
    return _error("INPUT_INVALID", errors=errors[:5]) if errors else None


def _timeout_ms(spec: CapabilitySpec) -> int | None:
    timeout = (spec.adaptation or {}).get("timeout_ms") or {}
    return timeout.get("initial") if isinstance(timeout, Mapping) else None


def _call(execution: Execution, plan_step: PlanStep, spec: CapabilitySpec, session: ToolSession,
          snapshot: RegistrySnapshot, values: dict[str, Any], key: str, outcome: StepOutcome, lookup) -> StepOutcome:
    invalid = _invalid_input(spec, values)
    if invalid:
        outcome.status, outcome.error = "failed", invalid
        return outcome
    result = outcome.count(session.invoke(capability=spec, input=values, idempotency_key=key,
                                          timeout_ms=_timeout_ms(spec)))
    if result.outcome == Outcome.SUCCEEDED:
        outcome.result = result.body
        verdict = _verify(spec, session, snapshot, values, result.body, outcome)
        if verdict is not True:
            outcome.status = "failed" if verdict is False else "unknown"
            outcome.error = _error("VERIFICATION_FAILED" if verdict is False else "VERIFICATION_UNAVAILABLE")
            return outcome
        if plan_step.postconditions and not _postconditions(plan_step, result.body, lookup, outcome):
            outcome.status, outcome.error = "failed", _error("VERIFICATION_FAILED", postconditions=True)
            return outcome
        outcome.status = "completed"
        return outcome
    if result.outcome == Outcome.UNKNOWN and not spec.idempotent:
        return _unknown(spec, session, snapshot, values, result, outcome)
    return _failure(spec, session, snapshot, plan_step, values, result, outcome)


def _failure(spec: CapabilitySpec, session: ToolSession, snapshot: RegistrySnapshot, plan_step: PlanStep,
             values: Mapping[str, Any], result: ToolResult, outcome: StepOutcome) -> StepOutcome:
    error = _error(result.error_code or str(result.error_class), error_class=result.error_class,
                   status=result.status_code)
    if result.error_code == IN_PROGRESS_CODE:
        # Another request with our key is still running (a crashed worker's): wait, never a conflict.
        outcome.status, outcome.error, outcome.retry_after_s = "retry", error, 2.0
    elif result.retryable or result.outcome == Outcome.UNKNOWN:
        outcome.status, outcome.error = "retry", error
    elif result.error_class == ErrorClass.CONFLICT:
        outcome.status, outcome.error = "failed", _conflict(spec, session, snapshot, values, error)
    else:
        outcome.status, outcome.error = "failed", error
    return outcome


def _parent_revision(result: Mapping[str, Any], default: Any) -> Any:
    """The revision a write left its entity at: a child's write reports its parent's as `<parent>_revision`."""
    parent = next((v for k, v in result.items() if k.endswith("_revision") and k != "expected_revision"), None)
    return parent if parent is not None else result.get("revision", default)


def _conflict(spec: CapabilitySpec, session: ToolSession, snapshot: RegistrySnapshot, values: Mapping[str, Any],
              error: dict[str, Any]) -> dict[str, Any]:
    """PRD-006 §26: never retried; tell the user what changed (the revision now, read through the
    registered reader of the entity the step named)."""
    current = None
    for target in spec.targets_in(values)[:1]:
        reader = snapshot.reader_of(target["type"])
        if reader is not None:
            fresh = session.invoke(capability=reader[0], input={reader[1]: target["id"]})
            current = fresh.body.get("revision") if isinstance(fresh.body, Mapping) else None
    expected = values.get("expected_revision")
    return {**error, "code": "CONFLICT", "expected_revision": expected, "current_revision": current,
            "message": both("error.CONFLICT", expected=expected, current=current)}


def _unknown(spec: CapabilitySpec, session: ToolSession, snapshot: RegistrySnapshot, values: dict[str, Any],
             result: ToolResult, outcome: StepOutcome) -> StepOutcome:
    """A non-idempotent write with no answer: read to find out, never call again blindly."""
    verdict = _verify(spec, session, snapshot, values, None, outcome)
    if verdict is True:
        outcome.status, outcome.result = "completed", {"verified_after_unknown": True}
        return outcome
    outcome.status = "unknown"
    outcome.error = _error("UNKNOWN_OUTCOME", error_class=result.error_class, detail=result.error_code)
    return outcome


def _verify(spec: CapabilitySpec, session: ToolSession, snapshot: RegistrySnapshot, values: Mapping[str, Any],
            body: Any, outcome: StepOutcome) -> bool | None:
    """True/False from the capability's verification read; None when it cannot tell."""
    verification = spec.verification
    if spec.kind != "write" or not verification:
        return True

    def lookup(ref: Ref) -> Any:
        source = values if ref.root == "input" else body if ref.root == "result" else None
        return MISSING if source is None else get_path(source, ref.path)

    read_input = resolve(dict(verification.get("input", {})), lookup)
    read_spec = snapshot.get(verification.get("capability", ""))
    outcome.note(TimelineType.VERIFICATION_STARTED, capability=verification.get("capability"))
    if read_spec is None or any(v is None for v in read_input.values()):
        outcome.note(TimelineType.VERIFICATION_FAILED, reason="cannot_read")
        return None
    read = outcome.count(session.invoke(capability=read_spec, input=read_input))
    if verification.get("expect") == "not_found":
        ok: bool | None = read.status_code == 404
    elif read.outcome != Outcome.SUCCEEDED:
        ok = None
    else:
        ok = all(assertion_holds(read.body, {**a, "value": resolve(a.get("value"), lookup)})
                 for a in verification.get("assertions", []) if not a.get("when_input") or a["when_input"] in values)
    outcome.note(TimelineType.VERIFICATION_COMPLETED if ok else TimelineType.VERIFICATION_FAILED,
                 capability=read_spec.id, ok=ok)
    return ok


def _postconditions(plan_step: PlanStep, body: Any, lookup, outcome: StepOutcome) -> bool:
    outcome.note(TimelineType.VERIFICATION_STARTED, postconditions=len(plan_step.postconditions))
    failed = [a for a in plan_step.postconditions
              if not assertion_holds(body, {**a, "value": resolve(a.get("value"), lookup)})]
    outcome.note(TimelineType.VERIFICATION_FAILED if failed else TimelineType.VERIFICATION_COMPLETED,
                 failed=[a.get("path") for a in failed])
    return not failed


def _perform_each(execution: Execution, plan_step: PlanStep, spec: CapabilitySpec, session: ToolSession,
                  snapshot: RegistrySnapshot, results: Mapping[str, Any], outcome: StepOutcome) -> StepOutcome:
    items = resolve(plan_step.for_each, step_lookup(results))
    items = items if isinstance(items, list) else []
    inputs, bodies, revision = [], [], None
    for index, item in enumerate(items):
        lookup = step_lookup(results, item)
        values = drop_nulls(resolve(plan_step.input, lookup))
        inputs.append(values)
        single = StepOutcome("running")
        _call(execution, plan_step, spec, session, snapshot, values, _key(execution, plan_step, f":{index}"),
              single, lookup)
        outcome.calls += single.calls
        outcome.call_ms += single.call_ms
        outcome.entries += single.entries
        if single.status != "completed":
            outcome.status, outcome.error = single.status, {**(single.error or {}), "item": index}
            outcome.retry_after_s, outcome.input = single.retry_after_s, {"items": inputs}
            outcome.result = {"items": bodies, "count": len(bodies), "revision": revision}
            return outcome
        bodies.append(single.result)
        if isinstance(single.result, Mapping):
            revision = _parent_revision(single.result, revision)
    outcome.status, outcome.input = "completed", {"items": inputs}
    outcome.result = {"items": bodies, "count": len(bodies), "revision": revision}
    return outcome


# --- persist ---------------------------------------------------------------------------------

_FINAL_STATUS = {"completed": StepStatus.COMPLETED, "failed": StepStatus.FAILED, "skipped": StepStatus.SKIPPED,
                 "unknown": StepStatus.UNKNOWN}
_FINAL_ENTRY = {"completed": TimelineType.STEP_COMPLETED, "failed": TimelineType.STEP_FAILED,
                "skipped": TimelineType.STEP_SKIPPED, "unknown": TimelineType.STEP_UNKNOWN}


def _retry_delay(spec_policy: Mapping[str, Any], attempt: int) -> float:
    backoff = spec_policy.get("backoff") or {}
    delay_ms = min(backoff.get("initial_ms", 200) * backoff.get("multiplier", 2) ** (attempt - 1),
                   backoff.get("max_ms", 5000))
    if spec_policy.get("jitter", "full") == "full":
        delay_ms = random.uniform(delay_ms / 2, delay_ms)  # noqa: S311 - jitter, not security
    return delay_ms / 1000


def _may_retry(execution: Execution, run: StepRun, plan_step: PlanStep, outcome: StepOutcome) -> float | None:
    spec = registry_snapshot().get(plan_step.capability_id)
    policy = dict(spec.retry_policy) if spec else {}
    retryable = set(policy.get("retryable", [])) | {"TIMEOUT", "RATE_LIMIT", "TEMPORARY_UNAVAILABLE", "NETWORK"}
    error = outcome.error or {}
    if error.get("class") not in retryable and error.get("code") != IN_PROGRESS_CODE:
        return None
    if run.attempts >= int(policy.get("max_attempts", 3)):
        return None
    # One budget per execution: a flapping API cannot turn a plan into a retry storm.
    spent = Execution.objects.for_tenant(execution.tenant_id).filter(pk=execution.pk, retry_budget__gt=0).update(
        retry_budget=F("retry_budget") - 1)
    if spent != 1:
        return None
    return max(outcome.retry_after_s or 0, _retry_delay(policy, run.attempts))


def _fast_sql() -> bool:
    """PostgreSQL: the hot path's writes as single statements (CTEs); the ORM path (SQLite) writes the same rows."""
    return connection.vendor == "postgresql"


def _record(execution: Execution, run: StepRun, plan_step: PlanStep,
            outcome: StepOutcome) -> dict[str, StepRun] | None:
    """Persist the outcome if this worker still holds the step: the execution's step runs after it,
    or None when it lost the step (taken over) or scheduled a retry. Inside `_finish`'s transaction.

    The step's timeline rows (verification notes, then the final entry) are written after the
    conditional UPDATE that proves this worker still holds the step, in one INSERT.
    """
    now = timezone.now()
    if outcome.status == "retry":
        delay = _may_retry(execution, run, plan_step, outcome)
        if delay is not None:
            _reschedule(execution, run, plan_step, outcome, list(outcome.entries), delay, now)
            return None
        outcome.status = "failed"
    fields, entries = _final(run, outcome, now)
    base = StepRun.objects.for_tenant(execution.tenant_id).filter(pk=run.pk, status=StepStatus.RUNNING,
                                                                  attempts=run.attempts)
    if base.update(**fields, lease_until=None, calls=F("calls") + outcome.calls,
                   call_ms=F("call_ms") + outcome.call_ms) != 1:
        return None
    timeline_add_many(execution=execution, step_id=run.step_id, entries=entries)
    return _runs(execution)


def _final(run: StepRun, outcome: StepOutcome, now) -> tuple[dict[str, Any], list]:
    """The step run's final fields and its timeline rows (verification notes, then the final entry)."""
    data = {"attempt": run.attempts, **({"error": outcome.error} if outcome.error else {})}
    entries = [*outcome.entries, (_FINAL_ENTRY[outcome.status], data, now)]
    return {"status": _FINAL_STATUS[outcome.status], "result": outcome.result, "error": outcome.error,
            "input": outcome.input, "finished_at": now}, entries


def _runs(execution: Execution) -> dict[str, StepRun]:
    return {r.step_id: r for r in StepRun.objects.for_tenant(execution.tenant_id).filter(execution=execution)
            .defer(*_RUN_PAYLOADS).order_by("position")}


def _reschedule(execution: Execution, run: StepRun, plan_step: PlanStep, outcome: StepOutcome,
                entries: list, delay: float, now) -> None:
    """Back to dispatched with RETRY_SCHEDULED, sent again after `delay` (the budget was spent in this transaction)."""
    base = StepRun.objects.for_tenant(execution.tenant_id).filter(pk=run.pk, status=StepStatus.RUNNING,
                                                                  attempts=run.attempts)
    if base.update(status=StepStatus.DISPATCHED, error=outcome.error, dispatched_at=now,
                   calls=F("calls") + outcome.calls, call_ms=F("call_ms") + outcome.call_ms) != 1:
        transaction.set_rollback(True)  # taken over: give the retry budget back
        return
    entries.append((TimelineType.RETRY_SCHEDULED, {"attempt": run.attempts, "delay_ms": round(delay * 1000),
                                                   "error": outcome.error}, now))
    timeline_add_many(execution=execution, step_id=run.step_id, entries=entries)
    dispatch(execution.pk, run.step_id, countdown=delay)
    transaction.on_commit(metrics.STEP_RETRIES.labels(capability=plan_step.capability_id).inc)


# `_locked` + `_record` (ORM path) in one statement: the execution row locked first (the InitPlans
# on `locked` gate the step-run scans, so the lock order stays execution → step runs), the step's
# conditional UPDATE, its timeline rows (only if the UPDATE took the row: a step lost to a takeover
# writes nothing) and the execution's other step runs — as of the statement's start, which may be
# before a wait on the lock: see `_lock_and_record`.
_LOCK_AND_RECORD_SQL = f"""
WITH locked AS (
    SELECT {", ".join(_LOCK_FIELDS)} FROM {Execution._meta.db_table}
     WHERE id = %(execution)s AND tenant_id = %(tenant)s FOR UPDATE
), done AS (
    UPDATE {StepRun._meta.db_table}
       SET status = %(status)s, result = %(result)s::jsonb, error = %(error)s::jsonb, input = %(input)s::jsonb,
           finished_at = %(finished_at)s, lease_until = NULL, calls = calls + %(calls)s, call_ms = call_ms + %(call_ms)s
     WHERE id = %(run)s AND tenant_id = %(tenant)s AND status = %(running)s AND attempts = %(attempts)s
       AND EXISTS (SELECT 1 FROM locked)
 RETURNING {_run_columns(fields=_RUN_STATE_FIELDS)}
), entries AS (
    INSERT INTO {TimelineEntry._meta.db_table} (tenant_id, execution_id, type, step_id, at, data)
    SELECT %(tenant)s, %(execution)s, e.type, %(step)s, e.at, e.data
      FROM unnest(%(types)s::text[], %(ats)s::timestamptz[], %(datas)s::jsonb[]) WITH ORDINALITY AS e(type, at, data, n)
     WHERE EXISTS (SELECT 1 FROM done)
     ORDER BY e.n
), others AS (
    SELECT {_run_columns(fields=_RUN_STATE_FIELDS)} FROM {StepRun._meta.db_table}
     WHERE tenant_id = %(tenant)s AND execution_id = %(execution)s AND id <> %(run)s AND EXISTS (SELECT 1 FROM locked)
)
SELECT runs.*, locked.* FROM (SELECT * FROM done UNION ALL SELECT * FROM others) AS runs, locked
"""


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value)


def _lock_and_record(execution: Execution, run: StepRun,
                     outcome: StepOutcome) -> tuple[Execution, dict[str, StepRun] | None]:
    """`_locked` and `_record` for a final outcome, in one statement (PostgreSQL). Updates `execution`."""
    fields, entries = _final(run, outcome, timezone.now())
    rows = _fetch_runs(_LOCK_AND_RECORD_SQL, {
        **fields, "result": _json(fields["result"]), "error": _json(fields["error"]), "input": _json(fields["input"]),
        "calls": outcome.calls, "call_ms": outcome.call_ms, "run": run.pk, "tenant": execution.tenant_id,
        "running": StepStatus.RUNNING, "attempts": run.attempts, "execution": execution.pk, "step": run.step_id,
        "types": [t for t, _, _ in entries], "ats": [at for _, _, at in entries],
        "datas": [json.dumps(data or {}) for _, data, _ in entries]}, fields=_RUN_STATE_FIELDS)
    if rows:
        status, needs_review, finished_at, error = rows[0][1]
        execution.status, execution.needs_review, execution.finished_at = status, needs_review, finished_at
        execution.error = None if error is None else json.loads(error)
    runs = sorted((r for r, _ in rows), key=lambda r: r.position)
    if not any(r.pk == run.pk for r in runs):  # the UPDATE did not take the row: the step was lost
        return execution, None
    if any(r.status in IN_FLIGHT for r in runs if r.pk != run.pk):
        # Another step was running or sent: it may have been recorded (or resumed) by a transaction
        # this statement waited for on the lock, after its snapshot. Read the runs again, now that
        # the lock is held. Otherwise nothing but a claim of a pending step can have changed them
        # meanwhile, and the dispatch UPDATE (pending rows only) re-checks that: a chain needs no re-read.
        runs = [r for r, _ in _fetch_runs(_RUNS_SQL, {"tenant": execution.tenant_id, "execution": execution.pk},
                                          fields=_RUN_STATE_FIELDS)]
    return execution, {r.step_id: r for r in runs}


_RUNS_SQL = (f"SELECT {_run_columns(fields=_RUN_STATE_FIELDS)} FROM {StepRun._meta.db_table} "
             "WHERE tenant_id = %(tenant)s AND execution_id = %(execution)s ORDER BY position")


_DONE_FOR_PROGRESS = (StepStatus.COMPLETED, StepStatus.SKIPPED, StepStatus.FAILED, StepStatus.UNKNOWN)


def _progress(execution: Execution, plan_step: PlanStep, runs: Mapping[str, StepRun]) -> None:
    if execution.conversation_id is None:
        return
    conversation_event(execution=execution, type="EXECUTION_PROGRESS", payload={
        "step_id": plan_step.step_id, "capability": plan_step.capability_id, "label": plan_step.label,
        "status": runs[plan_step.step_id].status, "total": len(runs),
        "done": sum(1 for r in runs.values() if r.status in _DONE_FOR_PROGRESS)})


# --- advance and settle ----------------------------------------------------------------------


def advance(execution_id: Any, *, locked: Execution | None = None, runs: dict[str, StepRun] | None = None,
            inline: bool = False) -> Claim | None:
    """Dispatch every ready step, cascade skips, stop on failure, settle when nothing is left.

    `locked`: the execution row the caller already holds FOR UPDATE in its open transaction, and
    `runs` its step runs read after that lock. `inline`: claim one ready step for the caller to run
    itself after the commit (returned) instead of sending it.
    """
    compensate = False
    claimed = None
    with transaction.atomic(savepoint=False):
        execution = locked if locked is not None else _locked(execution_id)
        if execution is None or execution.status != ExecutionStatus.RUNNING:
            return None
        runs = runs if runs is not None else _runs(execution)
        steps = plan_steps_cached(execution.tenant_id, execution.plan_id)
        failed = [r for r in runs.values() if r.status in (StepStatus.FAILED, StepStatus.UNKNOWN)]
        if failed and not execution.plan.allow_partial:
            compensate = _stop(execution, runs, steps, failed)
        else:
            _cascade_skips(execution, runs, steps)
            ready = [r for sid, r in runs.items() if r.status == StepStatus.PENDING
                     and all(runs[d].status == StepStatus.COMPLETED for d in steps[sid].depends_on)]
            claimed = _dispatch_ready(execution, ready, inline=inline)
            if not any(r.status in (StepStatus.PENDING, *IN_FLIGHT) for r in runs.values()):
                settle(execution, _final_status(execution, runs))
    if compensate:
        dispatch_compensation(execution_id)
    return claimed


def _dispatch_ready(execution: Execution, ready: list[StepRun], *, inline: bool) -> Claim | None:
    """Mark the ready steps dispatched (one UPDATE) and send each after the commit; with `inline`, the
    first is instead claimed here (running, lease, STEP_STARTED) and returned. Only pending rows change:
    a step a stray message claimed meanwhile is left to its holder."""
    if not ready:
        return None
    now = timezone.now()  # dispatched_at: when the step is marked dispatched, before it is sent or run
    own = ready[0] if inline else None
    if _fast_sql():
        claimed = _dispatch_one_statement(execution, ready, own, now)
    else:
        claimed = _dispatch_orm(execution, ready, own, now)
    for run in ready:
        if run is not own:
            run.status = StepStatus.DISPATCHED
            dispatch(execution.pk, run.step_id)
    if own is not None:
        own.status = StepStatus.RUNNING if claimed is not None else StepStatus.DISPATCHED
    return claimed


def _dispatch_orm(execution: Execution, ready: list[StepRun], own: StepRun | None, now) -> Claim | None:
    rows = StepRun.objects.for_tenant(execution.tenant_id).filter(status=StepStatus.PENDING)
    others = [r.pk for r in ready if r is not own]
    if others:
        rows.filter(pk__in=others).update(status=StepStatus.DISPATCHED, dispatched_at=now)
    if own is None or rows.filter(pk=own.pk).update(
            status=StepStatus.RUNNING, dispatched_at=now, started_at=now, attempts=F("attempts") + 1,
            lease_until=now + step_lease()) != 1:
        return None
    claimed = StepRun.objects.for_tenant(execution.tenant_id).get(pk=own.pk)
    timeline_add(execution=execution, type=TimelineType.STEP_STARTED, step_id=claimed.step_id, at=now,
                 data={"attempt": claimed.attempts, "inline": True})
    return Claim(claimed)


# `_dispatch_orm` in one statement: the ready rows to dispatched, the caller's own one to running with
# a lease, and its STEP_STARTED row.
_DISPATCH_SQL = f"""
WITH ready AS (
    UPDATE {StepRun._meta.db_table} AS s
       SET status = CASE WHEN s.id = %(own)s THEN %(running)s ELSE %(dispatched)s END,
           dispatched_at = %(now)s,
           started_at = CASE WHEN s.id = %(own)s THEN %(now)s ELSE s.started_at END,
           attempts = CASE WHEN s.id = %(own)s THEN s.attempts + 1 ELSE s.attempts END,
           lease_until = CASE WHEN s.id = %(own)s THEN %(lease)s ELSE s.lease_until END
     WHERE s.tenant_id = %(tenant)s AND s.execution_id = %(execution)s AND s.id = ANY(%(ids)s)
       AND s.status = %(pending)s
 RETURNING {_run_columns("s")}
), started AS (
    INSERT INTO {TimelineEntry._meta.db_table} (tenant_id, execution_id, type, step_id, at, data)
    SELECT tenant_id, execution_id, %(started)s, step_id, %(now)s,
           jsonb_build_object('attempt', attempts, 'inline', true)
      FROM ready WHERE id = %(own)s
)
SELECT *, {registry_version_sql()} FROM ready WHERE id = %(own)s
"""


def _dispatch_one_statement(execution: Execution, ready: list[StepRun], own: StepRun | None, now) -> Claim | None:
    rows = _fetch_runs(_DISPATCH_SQL, {
        "own": own.pk if own is not None else None, "running": StepStatus.RUNNING,
        "dispatched": StepStatus.DISPATCHED, "now": now, "lease": now + step_lease(), "tenant": execution.tenant_id,
        "execution": execution.pk, "ids": [r.pk for r in ready], "pending": StepStatus.PENDING,
        "started": TimelineType.STEP_STARTED})
    return Claim(rows[0][0], rows[0][1][0]) if rows else None


def _cascade_skips(execution: Execution, runs: dict[str, StepRun], steps: dict[str, PlanStep]) -> None:
    changed = True
    while changed:
        changed = False
        for step_id, run in runs.items():
            if run.status == StepStatus.PENDING and any(runs[d].status in FAILED_DEPS
                                                        for d in steps[step_id].depends_on):
                _skip(execution, run, "DEPENDENCY_NOT_COMPLETED")
                changed = True


def _skip(execution: Execution, run: StepRun, code: str) -> None:
    StepRun.objects.for_tenant(execution.tenant_id).filter(pk=run.pk, status=StepStatus.PENDING).update(
        status=StepStatus.SKIPPED, error={"code": code}, finished_at=timezone.now())
    run.status = StepStatus.SKIPPED
    timeline_add(execution=execution, type=TimelineType.STEP_SKIPPED, step_id=run.step_id, data={"code": code})


def _stop(execution: Execution, runs: dict[str, StepRun], steps: dict[str, PlanStep], failed: list[StepRun]) -> bool:
    """The plan cannot continue: skip what has not started; once nothing is in flight, compensate or fail."""
    for run in runs.values():
        if run.status == StepStatus.PENDING:
            _skip(execution, run, "PLAN_STOPPED")
    if any(r.status in IN_FLIGHT for r in runs.values()):
        return False
    codes = {(r.error or {}).get("code") for r in failed}
    unknown = any(r.status == StepStatus.UNKNOWN for r in failed)
    compensable = [r for r in runs.values() if r.status == StepStatus.COMPLETED and steps[r.step_id].compensation]
    first = min(failed, key=lambda r: r.finished_at or timezone.now())
    error = {"code": "STEP_UNKNOWN" if unknown else (first.error or {}).get("code"), "step_id": first.step_id,
             "step_error": first.error}
    if unknown or "KILL_SWITCH" in codes or not compensable:
        # UNKNOWN: a human decides (undoing around an unknown effect could make it worse).
        settle(execution, ExecutionStatus.FAILED, error=error, needs_review=unknown)
        return False
    Execution.objects.for_tenant(execution.tenant_id).filter(pk=execution.pk).update(
        status=ExecutionStatus.COMPENSATING, error=error)
    _plan_status(execution, "compensating")
    return True


def _final_status(execution: Execution, runs: dict[str, StepRun]) -> str:
    statuses = [r.status for r in runs.values()]
    if any(s in (StepStatus.FAILED, StepStatus.UNKNOWN) for s in statuses) or _items_failed(execution):
        return (ExecutionStatus.PARTIALLY_COMPLETED if StepStatus.COMPLETED in statuses
                else ExecutionStatus.FAILED)
    return ExecutionStatus.COMPLETED


def _items_failed(execution: Execution) -> bool:
    """A step with failed items (a batch, `for_each`) makes the execution partial: read once, when settling."""
    results = (StepRun.objects.for_tenant(execution.tenant_id).filter(execution=execution, result__has_key="failed")
               .values_list("result", flat=True))
    return any(isinstance(r, dict) and r.get("failed") for r in results)


_EVENT_FOR = {ExecutionStatus.COMPLETED: "EXECUTION_COMPLETED", ExecutionStatus.PARTIALLY_COMPLETED:
              "EXECUTION_COMPLETED", ExecutionStatus.FAILED: "EXECUTION_FAILED",
              ExecutionStatus.COMPENSATED: "EXECUTION_FAILED", ExecutionStatus.CANCELLED: "EXECUTION_CANCELLED"}
_ENTRY_FOR = {ExecutionStatus.COMPLETED: TimelineType.EXECUTION_COMPLETED,
              ExecutionStatus.PARTIALLY_COMPLETED: TimelineType.EXECUTION_PARTIALLY_COMPLETED,
              ExecutionStatus.FAILED: TimelineType.EXECUTION_FAILED,
              ExecutionStatus.COMPENSATED: TimelineType.EXECUTION_COMPENSATED,
              ExecutionStatus.CANCELLED: TimelineType.EXECUTION_CANCELLED}


def _plan_status(execution: Execution, status: str) -> None:
    from planning.services import IllegalTransition, plan_status_set

    plan = execution.plan
    plan.refresh_from_db(fields=["status"])
    try:
        plan_status_set(plan=plan, status=status)
    except IllegalTransition:
        log.warning("plan_status_not_mirrored", plan=str(plan.pk), status=status)


def settle(execution: Execution, status: str, *, error: dict[str, Any] | None = None,
           needs_review: bool = False) -> None:
    """The one place an execution ends: status, timeline, conversation event, plan mirror, hooks on commit."""
    from .hooks import run_completion_hooks

    now = timezone.now()
    # The runtime may have asked for human review already (resource gone, budget spent: PRD-034 §67, §116).
    asked = Execution.objects.for_tenant(execution.tenant_id).filter(pk=execution.pk, needs_review=True).exists()
    fields: dict[str, Any] = {"status": status, "finished_at": now, "needs_review": needs_review or asked}
    if error is not None:
        fields["error"] = error
    updated = (Execution.objects.for_tenant(execution.tenant_id)
               .filter(pk=execution.pk, finished_at__isnull=True).update(**fields))
    if updated != 1:
        return
    for key, value in fields.items():
        setattr(execution, key, value)
    _plan_status(execution, status)
    runtime_settle(execution=execution, status=status)
    timeline_add(execution=execution, type=_ENTRY_FOR[status], at=now,
                 data={"error": execution.error} if execution.error else {})
    conversation_event(execution=execution, type=_EVENT_FOR[status],
                       payload={"status": status, "error": execution.error, "needs_review": needs_review})
    execution_id = execution.pk
    transaction.on_commit(metrics.EXECUTIONS.labels(status=status).inc)
    transaction.on_commit(lambda: run_completion_hooks(execution_id))
