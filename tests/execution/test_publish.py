"""execution.publish: a step's message as Celery's protocol 2 on the routed queue, sent from the
process's sender thread after the commit; a failed send is logged and left to the watchdog."""

from __future__ import annotations

import base64
import json
import uuid

import pytest
import redis
from django.conf import settings

from config.celery import app
from execution import publish
from execution.tasks import run_step_task

pytestmark = pytest.mark.skipif(not str(settings.CELERY_BROKER_URL).startswith("redis"),
                                reason="needs the Redis broker")


@pytest.fixture
def broker():
    saved, app.conf.task_always_eager = app.conf.task_always_eager, False
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    queue = f"test-publish-{uuid.uuid4().hex[:8]}"
    yield client, queue
    client.delete(queue)
    app.conf.task_always_eager = saved


def _messages(client, queue: str) -> list[dict]:
    return [json.loads(raw) for raw in client.lrange(queue, 0, -1)]


def test_task_send_publishes_celery_protocol_2_on_the_queue_the_router_picks(broker, monkeypatch):
    client, queue = broker
    monkeypatch.setattr(app.amqp.router, "route", lambda options, name, *a, **k: {"queue": app.amqp.queues[queue]})
    app.amqp.queues.select_add(queue)  # a queue the app knows, as CELERY_TASK_QUEUES would declare
    execution_id = str(uuid.uuid4())
    task_id = publish.task_send(run_step_task, (execution_id, "s1"), countdown=3)
    [message] = _messages(client, queue)
    headers = message["headers"]
    assert (headers["task"], headers["id"], headers["argsrepr"]) == ("execution.run_step", task_id,
                                                                     repr((execution_id, "s1")))
    assert headers["eta"] is not None  # the countdown became an eta, as apply_async does
    args, kwargs, _embed = json.loads(base64.b64decode(message["body"]))
    assert (args, kwargs) == ([execution_id, "s1"], {})


def test_send_soon_returns_at_once_and_the_sender_thread_publishes(broker, monkeypatch):
    client, queue = broker
    sent: list[tuple] = []
    original = publish.task_send

    def slow_send(task, args, countdown=None):
        sent.append(args)
        return original(task, args, countdown=countdown, queue=None)

    monkeypatch.setattr(app.amqp.router, "route", lambda options, name, *a, **k: {"queue": app.amqp.queues[queue]})
    app.amqp.queues.select_add(queue)
    monkeypatch.setattr(publish, "task_send", slow_send)
    ids = [str(uuid.uuid4()) for _ in range(20)]
    for execution_id in ids:
        publish.send_soon(run_step_task, (execution_id, "s1"))
    assert publish.flush(10)
    assert [tuple(a) for a in sent] == [(i, "s1") for i in ids]  # in order
    published = [json.loads(base64.b64decode(m["body"]))[0][0] for m in _messages(client, queue)]
    assert sorted(published) == sorted(ids)


def test_a_failed_send_is_logged_and_the_sender_goes_on(broker, monkeypatch, caplog):
    calls: list[tuple] = []

    def failing(task, args, countdown=None):
        calls.append(args)
        if len(calls) == 1:
            raise ConnectionError("broker down")

    monkeypatch.setattr(publish, "task_send", failing)
    publish.send_soon(run_step_task, ("a", "s1"))
    publish.send_soon(run_step_task, ("b", "s1"))
    assert publish.flush(10)
    assert calls == [("a", "s1"), ("b", "s1")]
    assert any("task_send_failed" in str(record.msg) for record in caplog.records)


def test_eager_runs_the_task_now(monkeypatch):
    ran: list[tuple] = []
    monkeypatch.setattr(run_step_task, "apply_async", lambda args, countdown=None: ran.append(args))
    saved, app.conf.task_always_eager = app.conf.task_always_eager, True
    try:
        publish.send_soon(run_step_task, ("x", "s1"))
    finally:
        app.conf.task_always_eager = saved
    assert ran == [("x", "s1")]
