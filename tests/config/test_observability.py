from __future__ import annotations

import copy
import json
import logging

import pytest
import structlog
from django.test import Client


@pytest.mark.django_db
def test_metrics_are_hidden_without_the_token_or_a_staff_session(settings, operator):
    settings.METRICS_TOKEN = "scrape-secret"
    client = Client()
    assert client.get("/metrics").status_code == 404
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 404
    client.force_login(operator)  # a tenant operator is not staff
    assert client.get("/metrics").status_code == 404
    response = Client().get("/metrics", HTTP_AUTHORIZATION="Bearer scrape-secret")
    assert response.status_code == 200 and b"python_info" in response.content


def test_a_nested_in_process_request_gives_the_caller_its_log_context_back(rf):
    from django.http import HttpResponse

    from config.observability import RequestContextMiddleware

    structlog.contextvars.bind_contextvars(conversationId="c-9")
    try:
        RequestContextMiddleware(lambda request: HttpResponse())(rf.get("/"))
        assert structlog.contextvars.get_contextvars() == {"conversationId": "c-9"}
    finally:
        structlog.contextvars.clear_contextvars()


@pytest.mark.django_db
def test_each_request_gets_an_id_and_honours_a_safe_incoming_one():
    client = Client()
    generated = client.get("/api/tenancy/me")["X-Request-ID"]
    assert len(generated) == 32
    assert client.get("/api/tenancy/me", HTTP_X_REQUEST_ID="abc-123")["X-Request-ID"] == "abc-123"
    assert client.get("/api/tenancy/me", HTTP_X_REQUEST_ID="<script>")["X-Request-ID"] != "<script>"


def test_log_lines_are_json_with_the_bound_context(capsys):
    from django.conf import settings

    handler = logging.StreamHandler()
    # configure_formatter pops "()" from the dict it is given: hand it a copy, never settings.LOGGING itself.
    formatter_config = copy.deepcopy(settings.LOGGING["formatters"]["json"])
    handler.setFormatter(logging.config.dictConfigClass(copy.deepcopy(settings.LOGGING)).configure_formatter(
        formatter_config))
    logger = logging.getLogger("test.observability")
    logger.addHandler(handler)
    structlog.contextvars.bind_contextvars(conversationId="c-1", tenantId="t-1")
    try:
        structlog.get_logger("test.observability").warning("turn_settled", status="SUCCESS")
    finally:
        structlog.contextvars.clear_contextvars()
        logger.removeHandler(handler)
    line = json.loads(capsys.readouterr().err.strip().splitlines()[-1])
    assert (line["event"], line["conversationId"], line["tenantId"], line["status"]) == (
        "turn_settled", "c-1", "t-1", "SUCCESS")


def test_the_console_handler_writes_from_its_own_thread_and_loses_nothing(monkeypatch):
    import io
    import logging.config

    from django.conf import settings

    from config import logqueue

    monkeypatch.setattr(logqueue, "SYNCHRONOUS", False)
    stream = io.StringIO()
    handler = logqueue.BackgroundConsoleHandler(stream)
    handler.setFormatter(logging.config.dictConfigClass(copy.deepcopy(settings.LOGGING)).configure_formatter(
        copy.deepcopy(settings.LOGGING["formatters"]["json"])))
    logger = logging.getLogger("tests.logqueue")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        with structlog.contextvars.bound_contextvars(requestId="req-bg"):
            for n in range(200):
                structlog.get_logger("tests.logqueue").info("bg_line", n=n)
            logger.warning("plain %s", "stdlib")  # rendered in the caller's thread (its context)
        handler.flush()
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [line["n"] for line in lines if line["event"] == "bg_line"] == list(range(200))
    assert all(line["requestId"] == "req-bg" for line in lines)
    assert lines[-1]["event"] == "plain stdlib"
