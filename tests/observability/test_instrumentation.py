"""Turns and steps leave metrics on /metrics and ids on every log line they emit (PRD-010 §51-§52)."""

from __future__ import annotations

import copy
import json
import logging
import logging.config
from collections.abc import Iterator

import pytest
import structlog
from django.conf import settings as django_settings
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from tests.conversations.conftest import selection

# Steps run as (eager) Celery tasks that reuse the connection outside the test transaction: commit for real.
executes = pytest.mark.django_db(transaction=True)


def _scrape(settings) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    settings.METRICS_TOKEN = "scrape-secret"
    response = Client().get("/metrics", HTTP_AUTHORIZATION="Bearer scrape-secret")
    assert response.status_code == 200
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(response.content.decode())
            for sample in family.samples}


def _total(samples, name: str, **labels: str) -> float:
    return sum(value for (sample, pairs), value in samples.items()
               if sample == name and all((k, v) in pairs for k, v in labels.items()))


@pytest.fixture
def json_lines() -> Iterator[list[dict]]:
    """Every log record rendered by the project's JSON formatter, as parsed dicts."""
    parsed: list[dict] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            parsed.append(json.loads(self.format(record)))

    handler = Collect()
    # A copy: dictConfig pops "()" from the dict it is given, which would leave the next test a plain Formatter.
    config = copy.deepcopy(django_settings.LOGGING)
    handler.setFormatter(logging.config.dictConfigClass(config).configure_formatter(config["formatters"]["json"]))
    # On the apps' loggers, so this handler renders each record before it propagates to the root's console
    # handler (a second ProcessorFormatter on an already-rendered record sees the dict, not the event).
    loggers = [logging.getLogger(name) for name in ("conversations", "execution")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    try:
        yield parsed
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.removeHandler(handler)
            logger.setLevel(level)


def test_a_turn_counts_on_metrics_and_observes_its_latency(settings, world, operator_client, start, talk):
    before = _scrape(settings)
    conversation = start(operator_client)
    turn = talk(operator_client, conversation, "abra a permissao 802")
    after = _scrape(settings)
    outcome = turn["response"]["type"]
    labels = {"kind": "message", "outcome": outcome, "fast_path": "true"}
    assert _total(after, "sst_agent_turns_total", **labels) == _total(before, "sst_agent_turns_total", **labels) + 1
    assert _total(after, "sst_agent_turn_latency_seconds_count", kind="message") == _total(
        before, "sst_agent_turn_latency_seconds_count", kind="message") + 1
    assert _total(after, "sst_agent_turn_llm_calls_bucket", kind="message", le="0.0") == _total(
        before, "sst_agent_turn_llm_calls_bucket", kind="message", le="0.0") + 1
    assert _total(after, "sst_agent_conversation_state_seconds_count", op="update") > _total(
        before, "sst_agent_conversation_state_seconds_count", op="update")


def test_metrics_labels_never_carry_conversation_or_tenant_ids(settings, world, operator_client, start, talk):
    conversation = start(operator_client)
    talk(operator_client, conversation, "abra a permissao 802")
    exposition = "\n".join(str(key) for key in _scrape(settings))
    assert conversation not in exposition and str(world.tenant.pk) not in exposition


def test_a_turns_log_line_carries_its_conversation_and_tenant(world, operator_client, start, talk, json_lines):
    conversation = start(operator_client)
    talk(operator_client, conversation, "abra a permissao 802")
    answered = [line for line in json_lines if line.get("event") == "turn_answered"]
    assert answered and all((line["conversationId"], line["tenantId"]) == (conversation, str(world.tenant.pk))
                            for line in answered)
    assert "requestId" in answered[0]  # the request's ids stay bound underneath the turn's


def test_turn_ids_do_not_leak_into_lines_logged_after_the_turn(world, operator_client, start, talk, json_lines):
    conversation = start(operator_client)
    talk(operator_client, conversation, "abra a permissao 802")
    structlog.get_logger("test.after").warning("after_the_turn")
    assert "conversationId" not in structlog.contextvars.get_contextvars()


@executes
def test_a_step_tasks_log_lines_carry_the_execution_and_plan(settings, world, operator_client, start, talk,
                                                              json_lines):
    before = _scrape(settings)
    conversation = start(operator_client)
    talk(operator_client, conversation, "inclua solda eletrica", ui=selection(world.p802))
    done = talk(operator_client, conversation, "pode seguir")
    assert done["status"] == "SUCCESS"
    execution_id = done["state"]["last_result"]["execution_id"] if done["state"].get("last_result") else None
    steps = [line for line in json_lines if line.get("event") == "step_finished"]
    assert steps and all(line["executionId"] and line["planId"] and line["stepId"] for line in steps)
    assert all(line["tenantId"] == str(world.tenant.pk) and line["conversationId"] == conversation for line in steps)
    if execution_id:
        assert {line["executionId"] for line in steps} == {execution_id}
    # The step's ids are gone once the task ends: the turn's line after it carries none of them.
    answered = [line for line in json_lines if line.get("event") == "turn_answered"][-1]
    assert "executionId" not in answered and answered["conversationId"] == conversation
    after = _scrape(settings)
    assert _total(after, "sst_agent_step_latency_seconds_count", outcome="completed") > _total(
        before, "sst_agent_step_latency_seconds_count", outcome="completed")
    assert _total(after, "sst_agent_executions_total", status="completed") == _total(
        before, "sst_agent_executions_total", status="completed") + 1
    assert _total(after, "sst_agent_conversation_signals_total", signal="confirmation_received") > _total(
        before, "sst_agent_conversation_signals_total", signal="confirmation_received")
    assert _total(after, "sst_agent_policy_revalidate_seconds_count", outcome="ok") > _total(
        before, "sst_agent_policy_revalidate_seconds_count", outcome="ok")
