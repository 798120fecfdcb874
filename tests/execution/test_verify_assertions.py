"""Business assertions after a write (issue 19 point 3, PRD-006 §27-§28, PRD-034 §83): what must hold
is declared in the capability's `verification` (capabilities/*.yaml), checked after a single step's
write and a batch item's, in the write's answer and in a re-read of the target. An API that answers
2xx without doing the change (the SST fault injector's silent no-op) fails verification."""

from __future__ import annotations

from dataclasses import replace

import pytest

from execution.models import BatchItem, StepRun, TimelineEntry
from execution.outcome import StepOutcome
from execution.tool_runtime import ToolResult
from execution.verify import verify
from planning.services import plan_from_steps
from sst.faults import fault_add
from sst.models import PermitComponent, PermitEvaluation, WorkPermit

from .batch_helpers import batch_steps, lanes, make_batch_world, start_inline  # noqa: F401 - fixture
from .helpers import make_world

pytestmark = pytest.mark.usefixtures("registry", "eager", "lanes")


class Reads:
    """A re-read answering `body` (or nothing, when None), remembering what it was asked."""

    def __init__(self, body=None):
        self.body, self.asked = body, []

    def invoke(self, *, capability, input, **_):  # noqa: A002 - ToolSession's name
        self.asked.append((capability.id, input))
        if self.body is None:
            raise AssertionError("no re-read expected")
        return ToolResult(outcome="succeeded", status_code=200, body=self.body, error_class=None, error_code=None,
                          latency_ms=1.0)


def _with(registry, capability_id: str, **verification):
    return replace(registry.require(capability_id), verification=verification)


def test_an_assertion_on_the_writes_answer_needs_no_reread(registry):
    spec = _with(registry, "workPermit.recordDecision", assertions=[
        {"subject": "response", "path": "checks.risk_level", "op": "equals", "value": "${input.risk_level}"}])
    values = {"permit_id": 1, "trained": True, "risk_level": "low", "compliant": True}
    assert verify(spec, Reads(), registry, values, {"checks": {"risk_level": "low"}}, StepOutcome("running")) is True
    outcome = StepOutcome("running")
    assert verify(spec, Reads(), registry, values, {"checks": {"risk_level": "high"}}, outcome) is False
    assert outcome.entries[-1][1]["failed"] == ["checks.risk_level"]


def test_greater_or_equal_and_absent_read_the_target_as_it_is_now(registry):
    spec = _with(registry, "workPermit.update", capability="workPermit.read", input={"permit_id": "${input.permit_id}"},
                 assertions=[{"path": "revision", "op": "gte", "value": "${result.revision}"},
                             {"path": "responsible", "op": "absent"}])
    values, body = {"permit_id": 7}, {"revision": 5}
    assert verify(spec, Reads({"revision": 5, "responsible": None}), registry, values, body,
                  StepOutcome("running")) is True
    assert verify(spec, Reads({"revision": 4, "responsible": None}), registry, values, body,
                  StepOutcome("running")) is False  # a read older than the write
    assert verify(spec, Reads({"revision": 6, "responsible": {"id": 3}}), registry, values, body,
                  StepOutcome("running")) is False


def test_without_a_declared_read_the_target_is_reread_through_its_entitys_reader(registry):
    spec = _with(registry, "workPermit.updateValidity",
                 assertions=[{"path": "validity_days", "op": "equals", "value": "${input.validity_days}"}])
    reads = Reads({"validity_days": 30})
    assert verify(spec, reads, registry, {"permit_id": 9, "validity_days": 30}, {}, StepOutcome("running")) is True
    (capability, read_input), = reads.asked
    reader, field = registry.reader_of("workPermit")
    assert (capability, read_input) == (reader.id, {field: 9})


def test_with_no_answer_only_the_reread_decides_and_what_names_the_answer_is_skipped(registry):
    spec = registry.require("workPermit.updateValidity")  # validity equals the input; revision ≥ the answer's
    reads = Reads({"validity_days": 30, "revision": 2})
    assert verify(spec, reads, registry, {"permit_id": 9, "validity_days": 30}, None, StepOutcome("running")) is True


def _single(capture, *, tenant, actor, step: dict) -> StepRun:
    plan = plan_from_steps(tenant=tenant, actor=actor, template="test.single", steps=[step])
    execution = start_inline(capture, plan, tenant=tenant, actor=actor)
    return StepRun.objects.for_tenant(tenant).get(execution=execution)


def _failed_paths(run: StepRun) -> list[str]:
    entry = TimelineEntry.objects.for_tenant(run.tenant_id).filter(
        execution_id=run.execution_id, type="VERIFICATION_FAILED").get()
    return entry.data["failed"]


def test_a_validity_change_the_api_answered_but_did_not_make_fails_verification(
        tenant, operator, settings, django_capture_on_commit_callbacks):
    settings.SST_FAULT_INJECTION = True
    world = make_world(tenant)
    fault_add(tenant=tenant, route="sst:permit-validity", method="POST", noop=True)
    run = _single(django_capture_on_commit_callbacks, tenant=tenant, actor=operator, step={
        "id": "validity", "capability": "workPermit.updateValidity",
        "input": {"permit_id": world.permit.pk, "validity_days": 40}})
    assert (run.status, run.error["code"]) == ("failed", "VERIFICATION_FAILED")
    assert run.result["validity_days"] == 40  # what the API said it did
    assert WorkPermit.objects.for_tenant(tenant).get(pk=world.permit.pk).validity_days == 15  # what it did
    assert set(_failed_paths(run)) == {"validity_days", "revision"}


def test_a_removed_component_still_on_the_permit_fails_verification(
        tenant, operator, settings, django_capture_on_commit_callbacks):
    settings.SST_FAULT_INJECTION = True
    world = make_world(tenant)
    component = PermitComponent.objects.for_tenant(tenant).filter(permit=world.permit).first()
    fault_add(tenant=tenant, route="sst:permit-component-detail", method="DELETE", noop=True)
    run = _single(django_capture_on_commit_callbacks, tenant=tenant, actor=operator, step={
        "id": "remove", "capability": "workPermit.components.remove",
        "input": {"permit_id": world.permit.pk, "component_id": component.pk}})
    assert (run.status, run.error["code"]) == ("failed", "VERIFICATION_FAILED")
    assert PermitComponent.objects.for_tenant(tenant).filter(pk=component.pk).exists()


def test_a_validity_change_that_happened_is_verified(tenant, operator, django_capture_on_commit_callbacks):
    world = make_world(tenant)
    run = _single(django_capture_on_commit_callbacks, tenant=tenant, actor=operator, step={
        "id": "validity", "capability": "workPermit.updateValidity",
        "input": {"permit_id": world.permit.pk, "validity_days": 40}})
    assert run.status == "completed", run.error
    assert TimelineEntry.objects.for_tenant(tenant).filter(execution_id=run.execution_id,
                                                           type="VERIFICATION_COMPLETED").exists()


def test_a_batch_decision_the_api_answered_but_did_not_record_fails_that_item_only(
        tenant, operator, settings, django_capture_on_commit_callbacks):
    settings.SST_FAULT_INJECTION = True
    ids = make_batch_world(tenant, 4)
    fault_add(tenant=tenant, route="sst:permit-evaluations", method="POST", noop=True, match={"permit": "B2"})
    plan = plan_from_steps(tenant=tenant, actor=operator, template="test.evaluateBatch", allow_partial=True,
                           steps=batch_steps(ids, "training", "risk", "compliance", decision=True))
    execution = start_inline(django_capture_on_commit_callbacks, plan, tenant=tenant, actor=operator)
    decisions = {i.target_id: i for i in BatchItem.objects.for_tenant(tenant).filter(execution=execution,
                                                                                      step_id="decision")}
    assert (decisions[ids[1]].status, decisions[ids[1]].error["code"]) == ("failed", "VERIFICATION_FAILED")
    assert {decisions[i].status for i in ids if i != ids[1]} == {"completed"}
    recorded = set(PermitEvaluation.objects.for_tenant(tenant).values_list("permit_id", flat=True))
    assert recorded == set(ids) - {ids[1]}
