"""GET /agent/executions/{id} answers the full trace of PRD-010 §52 / PRD-006 §32-§33: every id from the
user's message to the response, the policy decisions, each step's attempts, calls, latency, errors,
checks and verification, and a labelled timeline — to the actor or a supervisor of the tenant only."""

from __future__ import annotations

import pytest

from conftest import client_for, make_user
from sst.faults import fault_add
from tenancy.models import Role
from tests.conversations.conftest import selection

pytestmark = pytest.mark.django_db(transaction=True)  # steps run as eager Celery tasks that commit


@pytest.fixture
def confirmed(world, operator_client, start, talk, settings):
    """An operator adds a component and confirms; the first call of the write answers 503 once."""
    settings.SST_FAULT_INJECTION = True
    fault_add(tenant=world.tenant, route="sst:permit-components", method="POST", status=503, times=1)
    conversation = start(operator_client)
    asked = talk(operator_client, conversation, "inclua solda eletrica", ui=selection(world.p802))
    done = talk(operator_client, conversation, "pode seguir")
    assert done["status"] == "SUCCESS", done["response"]
    return {"conversation": conversation, "asked": asked, "done": done,
            "execution": done["state"]["last_result"]["execution_id"]}


def _trace(client, execution_id: str) -> dict:
    response = client.get(f"/agent/executions/{execution_id}")
    assert response.status_code == 200, response.content[:300]
    return response.json()


def test_the_trace_carries_every_id_from_message_to_response(operator_client, confirmed):
    trace = _trace(operator_client, confirmed["execution"])
    last = confirmed["done"]["state"]["last_result"]
    assert (trace["id"], trace["conversation_id"], trace["plan_id"]) == (
        confirmed["execution"], confirmed["conversation"], last["plan_id"])
    assert trace["operation_id"] == last["operation_id"] and trace["operation_id"] is not None
    assert trace["intent_id"] == trace["intent"]["id"] == last["intent"]["id"]
    assert trace["message"]["text"] == "inclua solda eletrica"
    assert "workPermit.components.add" in [c["id"] for c in trace["capabilities"]]
    assert trace["response"]["message"]["pt-BR"] and trace["response"]["message"]["en"]
    assert trace["response"]["result"]["status"] == "completed"
    events = [e["type"] for e in trace["conversation_events"]]
    for expected in ("PLAN_CREATED", "CONFIRMATION_REQUIRED", "CONFIRMATION_RECEIVED", "EXECUTION_STARTED",
                     "EXECUTION_COMPLETED"):
        assert expected in events, events
    assert events.index("PLAN_CREATED") < events.index("EXECUTION_STARTED") < events.index("EXECUTION_COMPLETED")


def test_the_trace_shows_the_policy_decision_the_receipt_and_the_confirmation(operator_client, confirmed):
    trace = _trace(operator_client, confirmed["execution"])
    policy = trace["policy"]
    assert (policy["decision"]["stage"], policy["decision"]["decision"]) == ("PLANNING", "REQUIRE_CONFIRMATION")
    assert (policy["receipt"]["id"], policy["receipt"]["decision"]) == (trace["receipt_id"], "ALLOW")
    assert trace["confirmation"]["id"] == confirmed["asked"]["response"]["confirmation"]["id"]
    assert trace["confirmation"]["receipt_id"] == trace["receipt_id"]
    write = next(s for s in trace["steps"] if s["capability"] == "workPermit.components.add")
    assert write["checks"] and all(check["ok"] for check in write["checks"])  # re-authorised before each attempt


def test_each_step_reports_attempts_calls_latency_errors_and_verification(operator_client, confirmed):
    trace = _trace(operator_client, confirmed["execution"])
    write = next(s for s in trace["steps"] if s["capability"] == "workPermit.components.add")
    assert (write["status"], write["attempts"], write["retries"]) == ("completed", 2, 1)
    assert write["calls"] >= 2 and write["call_ms"] > 0 and write["duration_ms"] >= 0
    assert len(write["errors"]) == 1 and write["error"] is None  # the 503 of the first attempt, then success
    assert write["input"] and write["targets"][0]["type"] == "workPermit"
    assert [v["type"] for v in write["verification"]][-1] == "VERIFICATION_COMPLETED"
    assert [v["step_id"] for v in trace["verification"]] == [write["id"]] * len(trace["verification"])
    assert trace["compensation"] is None


def test_the_timeline_is_in_order_and_labelled_in_both_languages(operator_client, confirmed):
    trace = _trace(operator_client, confirmed["execution"])
    timeline = trace["timeline"]
    types = [e["type"] for e in timeline]
    assert types[:4] == ["PLAN_CREATED", "PLAN_VALIDATED", "CONFIRMATION_RECEIVED", "EXECUTION_STARTED"]
    assert types[-1] == "EXECUTION_COMPLETED" and "RETRY_SCHEDULED" in types
    assert [e["at"] for e in timeline] == sorted(e["at"] for e in timeline)
    write = next(s for s in trace["steps"] if s["capability"] == "workPermit.components.add")
    started = next(e for e in timeline if e["type"] == "STEP_STARTED" and e["step_id"] == write["id"])
    assert started["label"] == {"pt-BR": "Etapa iniciada: Adicionando componente",
                                "en": "Step started: Adding component"}
    assert next(e for e in timeline if e["type"] == "PLAN_CREATED")["label"] == {"pt-BR": "Plano criado",
                                                                                 "en": "Plan created"}
    assert all(e["label"]["pt-BR"] and e["label"]["en"] for e in timeline)


def test_only_the_actor_or_a_supervisor_of_the_tenant_sees_it(world, operator_client, supervisor_client, viewer_client,
                                                              other_client, confirmed):
    execution = confirmed["execution"]
    assert supervisor_client.get(f"/agent/executions/{execution}").status_code == 200
    assert viewer_client.get(f"/agent/executions/{execution}").status_code == 404  # same tenant, another user
    assert other_client.get(f"/agent/executions/{execution}").status_code == 404  # another tenant
    other_supervisor = client_for(make_user(other_client.tenant, Role.SUPERVISOR), other_client.tenant)
    assert other_supervisor.get(f"/agent/executions/{execution}").status_code == 404
