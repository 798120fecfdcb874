"""Cancelling a running execution, driven in-process as a worker would run it (autocommit, messages
captured instead of sent): what a cancel skips, what it lets end, what it never starts again, and
the tenant's rule (policy/cancel.py). The real-worker cases are in test_cancel_worker.py."""

# ruff: noqa: F811 - the tests take as arguments the fixtures imported from test_dispatch_inline

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone

from execution import engine
from execution.claim import claim_step
from execution.engine import run_step
from execution.models import Execution, StepRun, TimelineEntry
from execution.outcome import StepOutcome
from execution.services import execution_cancel, execution_resume
from policy.cancel import in_flight_rule

from .test_dispatch_inline import _runs, _start, permit, sent  # noqa: F401 - fixtures and helpers

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("registry")]


def _cancel(execution, actor):
    return execution_cancel(execution_id=execution.pk, tenant=execution.tenant, actor=actor, reason="user")


def _while_calling(monkeypatch, step_id: str, meanwhile, outcome: StepOutcome | None = None) -> None:
    """Run `meanwhile()` while `step_id` is in its call (claimed, not recorded); then it ends with `outcome`."""
    perform = engine.perform

    def calling(execution, run, plan_step, **kwargs):
        if run.step_id == step_id:
            meanwhile()
            if outcome is not None:
                return outcome
        return perform(execution, run, plan_step, **kwargs)

    monkeypatch.setattr(engine, "perform", calling)


def _types(execution, step_id: str) -> list[str]:
    return list(TimelineEntry.objects.for_tenant(execution.tenant_id).filter(
        execution=execution, step_id=step_id).order_by("id").values_list("type", flat=True))


def test_a_sent_step_the_cancel_skipped_does_nothing_when_its_message_arrives(tenant, operator, permit, sent,
                                                                            monkeypatch):
    execution = _start(tenant, operator, permit, {"a": [], "b": [], "c": ["a"]})
    _while_calling(monkeypatch, "a", lambda: _cancel(execution, operator))
    run_step(*sent.pop(0), continue_for=60)  # a: the cancel comes during its call
    execution.refresh_from_db()
    assert execution.status == "cancelled"
    assert (execution.error["cancelled"], execution.error["in_flight"]) == (["b", "c"], ["a"])
    assert sent == [(str(execution.pk), "b")], "b's message was out before the cancel"
    assert run_step(*sent.pop(0), continue_for=60) is None
    runs = _runs(execution)
    assert {sid: (r.status, r.attempts) for sid, r in runs.items()} == {
        "a": ("completed", 1), "b": ("skipped", 0), "c": ("skipped", 0)}
    assert _types(execution, "b") == ["STEP_SKIPPED"] and sent == []


def test_a_calling_step_that_asks_for_a_retry_after_the_cancel_is_not_started_again(tenant, operator, permit,
                                                                                    sent, monkeypatch):
    execution = _start(tenant, operator, permit, {"a": [], "b": ["a"]})
    refused = StepOutcome("retry", error={"code": "HTTP_503", "class": "TEMPORARY_UNAVAILABLE", "status": 503})
    _while_calling(monkeypatch, "a", lambda: _cancel(execution, operator), outcome=refused)
    run_step(*sent.pop(0), continue_for=60)
    execution.refresh_from_db()
    runs = _runs(execution)
    assert (execution.status, runs["a"].status, runs["b"].status) == ("cancelled", "failed", "skipped")
    assert "RETRY_SCHEDULED" not in _types(execution, "a") and sent == []


def test_a_calling_write_that_timed_out_after_the_cancel_is_repeated_to_learn_how_it_ended(
        tenant, operator, permit, sent, monkeypatch):
    """A timeout says nothing of whether the write happened: the repeat (the same idempotency key
    replays the first answer) finishes the step; marked failed, a done write would be left out."""
    execution = _start(tenant, operator, permit, {"a": [], "b": ["a"]})
    timeout = StepOutcome("retry", error={"code": "TIMEOUT", "class": "TIMEOUT"})
    _while_calling(monkeypatch, "a", lambda: _cancel(execution, operator), outcome=timeout)
    run_step(*sent.pop(0), continue_for=60)
    monkeypatch.undo()
    assert "RETRY_SCHEDULED" in _types(execution, "a") and sent and sent[0][1] == "a"
    run_step(*sent.pop(0), continue_for=60)  # the repeat, as the worker would run it
    execution.refresh_from_db()
    runs = _runs(execution)
    assert (execution.status, runs["a"].status, runs["b"].status) == ("cancelled", "completed", "skipped")
    assert sent == []  # nothing new was started


def test_a_step_the_cancel_found_calling_is_finished_by_a_resume_when_its_worker_died(tenant, operator, permit,
                                                                                   sent):
    execution = _start(tenant, operator, permit, {"a": [], "b": ["a"]})
    sent.clear()
    assert claim_step(execution, "a") is not None  # a worker took it, then died mid-call
    _cancel(execution, operator)
    execution.refresh_from_db()
    assert execution.status == "running" and execution.error["in_flight"] == ["a"]
    StepRun.objects.for_tenant(tenant).filter(execution=execution, step_id="a").update(
        lease_until=timezone.now() - timedelta(seconds=1))
    execution_resume(execution_id=execution.pk, tenant=tenant)
    assert sent == [(str(execution.pk), "a")], "it may have had its effect: it ends, with the same key"
    run_step(*sent.pop(0), continue_for=60)
    execution.refresh_from_db()
    runs = _runs(execution)
    assert (execution.status, runs["a"].status, runs["a"].attempts, runs["b"].status) == (
        "cancelled", "completed", 2, "skipped")


def test_a_second_cancel_changes_nothing(tenant, operator, permit, sent):
    execution = _start(tenant, operator, permit, {"a": [], "b": ["a"]})
    claim_step(execution, "a")
    first = dict(_cancel(execution, operator).error)
    assert _cancel(execution, operator).error == first
    assert Execution.objects.for_tenant(tenant).get(pk=execution.pk).error == first


def test_nothing_calling_settles_at_once(tenant, operator, permit, sent):
    execution = _start(tenant, operator, permit, {"a": [], "b": ["a"]})
    execution = _cancel(execution, operator)
    assert (execution.status, execution.error["code"], execution.error["cancelled"]) == (
        "cancelled", "CANCELLED", ["a", "b"])


def test_the_rule_is_finish_unless_the_setting_or_the_tenant_says_compensate(tenant, other_tenant, settings):
    assert in_flight_rule(tenant=tenant) == "finish"
    settings.AGENT_CANCEL_IN_FLIGHT_BY_TENANT = {tenant.slug: "compensate"}
    assert (in_flight_rule(tenant=tenant), in_flight_rule(tenant=other_tenant)) == ("compensate", "finish")
    settings.AGENT_CANCEL_IN_FLIGHT_BY_TENANT = {tenant.slug: "rollback"}
    with pytest.raises(ImproperlyConfigured):
        in_flight_rule(tenant=tenant)


def test_under_finish_a_cancel_that_finds_only_calling_steps_changes_nothing(tenant, operator, permit, sent,
                                                                             settings):
    execution = _start(tenant, operator, permit, {"a": []})
    claim_step(execution, "a")
    execution = _cancel(execution, operator)
    assert (execution.status, execution.error) == ("running", None), "a ends as it would have"
    settings.AGENT_CANCEL_IN_FLIGHT = "compensate"
    execution = _cancel(execution, operator)
    assert (execution.status, execution.error["in_flight"], execution.error["cancelled"]) == ("running", ["a"], [])
