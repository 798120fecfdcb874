"""A step's work between its claim and its record (PRD-006 §15-§26): the condition, fresh facts
about its targets, the live policy revalidation, then the call through the Tool Runtime and its
classification — success (verified), retryable, conflict, unknown — or a navigation instruction.

Batch steps (`for_each: ${targets}`) are handed to the adaptive controller (execution/batch.py);
a `for_each` over an earlier step's result calls once per item here, each with its own key.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from planning.batch import BATCH_SOURCE
from planning.conditions import holds
from planning.models import PlanStep
from planning.references import MISSING, Ref, drop_nulls, get_path, resolve
from policy.services import revalidate
from registry.selectors import CapabilitySpec, RegistrySnapshot, registry_snapshot

from .batch import perform_batch
from .envelope import (
    CIRCUIT_OPEN,
    CONCURRENCY_LIMIT,
    DEADLINE_EXCEEDED,
    EnvelopeSession,
    call_resource,
    step_caller,
    was_refused,
)
from .errors import ErrorClass, Outcome
from .facts import read_facts
from .messages import both
from .models import Execution, StepRun, StepStatus
from .outcome import StepOutcome, step_error
from .replan_triggers import contract_replanned
from .retry import IN_PROGRESS_CODE
from .routing import route_for
from .runtime import navigation_instruction
from .tool_runtime import ToolResult
from .verify import postconditions, unknown_outcome, verify


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
    spec = snapshot.get(plan_step.capability_id, tenant=execution.tenant)
    if spec is None or spec.version != plan_step.capability_version:  # a batch step replans (replan_triggers.py)
        return contract_replanned(execution, plan_step, spec, StepOutcome("failed", error=_changed(plan_step, spec)))
    if plan_step.for_each == BATCH_SOURCE:
        return perform_batch(execution, run, plan_step, spec, snapshot, StepOutcome("running"))
    uses_results = bool(plan_step.for_each or plan_step.condition or plan_step.postconditions
                        or "${steps." in json.dumps(plan_step.input))
    results = _results(execution) if uses_results else {}
    lookup = step_lookup(results)
    if plan_step.condition:
        condition = plan_step.condition
        if not holds(resolve(condition["ref"], lookup), condition["op"], resolve(condition.get("value"), lookup)):
            return StepOutcome("skipped", result={"condition": False})
    session = EnvelopeSession.for_execution(execution, snapshot)  # every call of the step under the envelope
    outcome = StepOutcome("running")
    checked = _authorized(execution, plan_step, session, snapshot, spec, outcome)
    if checked is None:
        return outcome
    if checked[0] is not snapshot:
        session = replace(session, snapshot=checked[0])
    snapshot, spec = checked
    if plan_step.for_each:
        return _perform_each(execution, plan_step, spec, session, snapshot, results, outcome)
    values = drop_nulls(resolve(plan_step.input, lookup))
    outcome.input = values
    if spec.kind == "navigation":
        outcome.status = "completed"
        outcome.result = navigation_instruction(spec, values, label=_label_for(results, values))
        return outcome
    return _call(execution, plan_step, spec, session, snapshot, values, _key(execution, plan_step), outcome, lookup)


def _changed(plan_step: PlanStep, spec: CapabilitySpec | None) -> dict[str, Any]:
    return step_error("CAPABILITY_CHANGED", pinned=plan_step.capability_version,
                      active=spec.version if spec else None)


def _authorized(execution: Execution, plan_step: PlanStep, session: EnvelopeSession, snapshot: RegistrySnapshot,
                spec: CapabilitySpec, outcome: StepOutcome) -> tuple[RegistrySnapshot, CapabilitySpec] | None:
    """Fresh facts, then the live policy checks: the snapshot and spec to call (those the checks ran
    against), or None when refused or the facts could not be read (`outcome` says which)."""
    tenant = execution.tenant
    facts, fact_results = read_facts(session=session, snapshot=snapshot, tenant=tenant, targets=plan_step.targets)
    for result in fact_results:
        if not was_refused(result):
            outcome.count(result)
        if result.error_code == DEADLINE_EXCEEDED:
            # The execution's time is spent before the step could be checked: a retry would be refused alike.
            outcome.status, outcome.error = "failed", step_error(DEADLINE_EXCEEDED, error_class=result.error_class,
                                                                 facts=True)
            return None
        if result.retryable:
            # A reader the envelope refused keeps its code: "try again in a moment" (conversations/messages.py).
            code = result.error_code if result.error_code in (CIRCUIT_OPEN, CONCURRENCY_LIMIT) else "FACTS_UNAVAILABLE"
            outcome.status, outcome.error = "retry", step_error(code, error_class=result.error_class, facts=True)
            return None
    check = revalidate_step(execution, plan_step, facts, resources=route_for(spec))  # kill switches: routing.py
    if not check.ok:
        outcome.status = "failed"
        outcome.error = step_error(check.code, policy=True, reasons=[r.to_dict() for r in check.reasons],
                                   check=check.check_id)
        return None
    if check.registry_version is None or check.registry_version == snapshot.version:
        return snapshot, spec
    # The live checks ran against a newer registry than the one this step started with: call the
    # spec that was checked, not the one read before (and still the pinned version).
    snapshot = registry_snapshot()
    spec = snapshot.get(plan_step.capability_id, tenant=tenant)
    if spec is None or spec.version != plan_step.capability_version:
        outcome.status, outcome.error = "failed", _changed(plan_step, spec)
        return None
    return snapshot, spec


def revalidate_step(execution: Execution, plan_step: PlanStep, facts: dict[str, Any], resources=None):
    """`policy.services.revalidate` (receipt, live checks, the recorded check).

    The recorded check is the authorization of the step's effect, so its commit is durable (the
    server's `synchronous_commit`, never relaxed here) before the call is made: a crash at or after
    the call cannot lose the record that authorized an effect that did happen (issue 16;
    tests/execution/test_check_durable.py). Inside a caller's transaction (eager) it commits with it.
    """
    return revalidate(receipt_id=execution.receipt_id, actor=execution.actor, tenant=execution.tenant,
                      plan_id=execution.plan_id, step_id=plan_step.step_id,
                      capability=(plan_step.capability_id, plan_step.capability_version), input=plan_step.input,
                      facts=facts, execution_started_at=execution.started_at, execution_id=execution.pk,
                      resources=resources)


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
    return step_error("INPUT_INVALID", errors=errors[:5]) if errors else None


def _call(execution: Execution, plan_step: PlanStep, spec: CapabilitySpec, session: EnvelopeSession,
          snapshot: RegistrySnapshot, values: dict[str, Any], key: str, outcome: StepOutcome, lookup) -> StepOutcome:
    invalid = _invalid_input(spec, values)
    if invalid:
        outcome.status, outcome.error = "failed", invalid
        return outcome
    caller = step_caller(execution, spec, snapshot)
    result = call_resource(caller, values, key=key)  # the envelope, as a batch item's call (execution/envelope.py)
    outcome.calls += caller.calls
    outcome.call_ms += caller.call_ms
    if result.outcome == Outcome.SUCCEEDED:
        outcome.result = result.body
        verdict = verify(spec, EnvelopeSession.of(caller), snapshot, values, result.body, outcome)
        if verdict is not True:
            outcome.status = "failed" if verdict is False else "unknown"
            outcome.error = step_error("VERIFICATION_FAILED" if verdict is False else "VERIFICATION_UNAVAILABLE")
            return outcome
        if plan_step.postconditions and not postconditions(plan_step, result.body, lookup, outcome):
            outcome.status, outcome.error = "failed", step_error("VERIFICATION_FAILED", postconditions=True)
            return outcome
        outcome.status = "completed"
        return outcome
    if result.outcome == Outcome.UNKNOWN and not spec.idempotent:
        return unknown_outcome(spec, EnvelopeSession.of(caller), snapshot, values, result, outcome)
    return _failure(spec, session, snapshot, plan_step, values, result, outcome)


def _failure(spec: CapabilitySpec, session: EnvelopeSession, snapshot: RegistrySnapshot, plan_step: PlanStep,
             values: Mapping[str, Any], result: ToolResult, outcome: StepOutcome) -> StepOutcome:
    error = step_error(result.error_code or str(result.error_class), error_class=result.error_class,
                   status=result.status_code)
    if result.error_code == DEADLINE_EXCEEDED:
        # The execution's time is spent: a retry would be refused the same way (nothing was sent).
        outcome.status, outcome.error = "failed", error
    elif result.error_code == IN_PROGRESS_CODE:
        # Another request with our key is still running (a crashed worker's): wait, never a conflict.
        outcome.status, outcome.error = "retry", error
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


def _conflict(spec: CapabilitySpec, session: EnvelopeSession, snapshot: RegistrySnapshot, values: Mapping[str, Any],
              error: dict[str, Any]) -> dict[str, Any]:
    """PRD-006 §26: never retried; tell the user what changed (the revision now, read through the
    registered reader of the entity the step named, under the envelope: past the execution's
    deadline, or with the reader's breaker open, nothing is read and the revision now is unknown)."""
    current = None
    for target in spec.targets_in(values)[:1]:
        reader = snapshot.reader_of(target["type"])
        if reader is not None:
            fresh = session.invoke(capability=reader[0], input={reader[1]: target["id"]})
            current = fresh.body.get("revision") if fresh.outcome == Outcome.SUCCEEDED and isinstance(
                fresh.body, Mapping) else None
    expected = values.get("expected_revision")
    return {**error, "code": "CONFLICT", "expected_revision": expected, "current_revision": current,
            "message": both("error.CONFLICT", expected=expected, current=current)}


def _perform_each(execution: Execution, plan_step: PlanStep, spec: CapabilitySpec, session: EnvelopeSession,
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
            outcome.input = {"items": inputs}
            outcome.result = {"items": bodies, "count": len(bodies), "revision": revision}
            return outcome
        bodies.append(single.result)
        if isinstance(single.result, Mapping):
            revision = _parent_revision(single.result, revision)
    outcome.status, outcome.input = "completed", {"items": inputs}
    outcome.result = {"items": bodies, "count": len(bodies), "revision": revision}
    return outcome


