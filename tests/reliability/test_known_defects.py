"""Defects this suite found (and that were fixed), one focused regression test each."""

from __future__ import annotations

import pytest

from .worlds import worlds_create


@pytest.mark.parametrize("decision", ["approve", "reject"])
def test_a_review_decision_on_a_malformed_confirmation_id_is_a_404_not_a_server_error(db, decision,
                                                                                      reliability_cases):
    reliability_cases("known defects")
    client = worlds_create().client("supervisor")
    client.raise_request_exception = False
    response = client.post(f"/agent/reviews/not-a-uuid/{decision}", {}, format="json")
    assert response.status_code == 404


def test_resume_while_an_execution_runs_is_answered_not_a_server_error(db, settings, reliability_cases):
    from config.celery import app
    from demo.testcontrol.services import world_facts

    reliability_cases("known defects")
    settings.AGENT_READ_WAIT_SECONDS = 0
    worlds = worlds_create()
    client = worlds.client("operator")
    client.raise_request_exception = False
    permit = next(p for p in world_facts(tenant_id=worlds.created.tenant)["permits"] if p["number"] == "123")
    conversation = client.post("/agent/conversations", {}, format="json").json()["id"]
    ui = {"selection": {"entityType": "workPermit", "entityId": str(permit["id"])}}
    asked = client.post(f"/agent/conversations/{conversation}/messages",
                        {"text": "Mude a validade para 45 dias", "ui_context": ui}, format="json").json()
    assert asked["status"] == "CONFIRMATION_REQUIRED"
    saved = app.conf.task_always_eager
    app.conf.task_always_eager = False  # nobody consumes the step: the conversation stays EXECUTING
    try:
        running = client.post(f"/agent/conversations/{conversation}/messages", {"text": "sim"}, format="json")
        assert running.json()["status"] == "EXECUTING"
        response = client.post(f"/agent/conversations/{conversation}/resume", {}, format="json")
    finally:
        app.conf.task_always_eager = saved
        app.control.purge()
    assert response.status_code == 200
    assert (response.json()["status"], response.json()["response"]["error"]["code"]) == ("EXECUTING", "BUSY")
