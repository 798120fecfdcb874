"""The player against a scripted stand-in of the conversation API (API.md shapes), over the real SST and test control.

The stand-in answers a few phrasings, keeps one pending confirmation per conversation, answers a
confirmation while its execution still runs (so the runner must settle and re-read), appends the
completion event after its answer, and refuses other users' conversations with 404 — what the
player must cope with, without depending on the real runtime being written in parallel.
"""

from __future__ import annotations

import copy
import itertools
import re
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from demo.scenarios.client import ApiClient
from demo.scenarios.loader import Scenario, scenario_load
from demo.scenarios.player import scenario_play
from demo.scenarios.transport import HttpResult, in_process

FIXTURE = Path(settings.BASE_DIR) / "tests" / "scenarios" / "fake_agent" / "validity.yaml"
INSPECTIONS = Path(__file__).parent / "scenarios" / "fake_agent" / "inspections.yaml"
_seq = itertools.count(1)


class FakeAgent:
    """Routes /agent/conversations and /agent/executions to a script; everything else to the real app."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.conversations: dict[str, dict[str, Any]] = {}
        self.executions: dict[str, dict[str, Any]] = {}
        self.sent: list[dict[str, Any]] = []

    def request(self, method: str, path: str, *, token: str | None = None, control: bool = False,
                json_body: Any = None, params: Mapping[str, Any] | None = None) -> HttpResult:
        if path.startswith("/agent/executions/"):
            return self._execution(path.rsplit("/", 1)[1])
        if not path.startswith("/agent/conversations"):
            return self.inner.request(method, path, token=token, control=control, json_body=json_body,
                                      params=params)
        if path == "/agent/conversations":
            cid = str(uuid.uuid4())
            self.conversations[cid] = {"owner": token, "status": "IDLE", "pending": None, "events": [], "ui": {},
                                       "execution": None, "reads": 0}
            return HttpResult(201, {"id": cid, "status": "IDLE", "version": 1})
        cid, _, rest = path.removeprefix("/agent/conversations/").partition("/")
        conversation = self.conversations.get(cid)
        if conversation is None or conversation["owner"] != token:
            return HttpResult(404, {"code": "not_found", "detail": "Not found."})
        if method == "GET" and rest == "":
            return HttpResult(200, self._state(conversation))
        if method == "GET" and rest == "events":
            after = int((params or {}).get("after", 0))
            return HttpResult(200, [e for e in conversation["events"] if e["seq"] > after])
        self.sent.append({"path": rest, **(json_body or {})})
        return HttpResult(200, self._turn(conversation, token, rest, json_body or {}))

    def _state(self, conversation: dict[str, Any]) -> dict[str, Any]:
        if conversation["status"] == "EXECUTING":
            conversation["reads"] += 1
            if conversation["reads"] > 1:  # still running on the first look
                conversation["status"] = "SUCCESS"
                self.executions[conversation["execution"]]["status"] = "completed"
                self._event(conversation, "EXECUTION_COMPLETED")
                conversation["last_response"] = {"type": "execution", "message": "Validade alterada."}
        pending = conversation["pending"]
        return {"id": "…", "status": conversation["status"], "version": 3,
                "last_response": conversation.get("last_response"),
                "pending_confirmation": None if pending is None else {"id": pending["id"], "status": "PENDING"}}

    def _execution(self, execution_id: str) -> HttpResult:
        execution = self.executions.get(execution_id)
        return HttpResult(404, None) if execution is None else HttpResult(200, execution)

    def _event(self, conversation: dict[str, Any], kind: str) -> None:
        conversation["events"].append({"seq": next(_seq), "type": kind, "payload": {}})

    def _turn(self, conversation: dict[str, Any], token: str, action: str, body: dict[str, Any]) -> dict[str, Any]:
        if "ui_context" in body:
            conversation["ui"] = body["ui_context"]
        self._event(conversation, "MESSAGE_RECEIVED")
        text = body.get("text", "")
        if action == "confirm" or text == "sim":
            response = self._confirm(conversation, token, body.get("confirmation_id"))
        elif match := re.match(r"Abra a permissão (\S+)", text):
            response = self._open(conversation, token, match.group(1))
        elif match := re.match(r"Abra a inspeção (\S+)", text):
            response = self._open_inspection(token, match.group(1))
        elif match := re.match(r"Mude a validade para (\d+) dias", text):
            response = self._ask(conversation, token, int(match.group(1)))
        else:
            response = {"type": "answer", "message": "Olá!"}
        return {"turn_id": "t", "status": conversation["status"], "version": 2, "response": response,
                "events": [], "metrics": {"llm_calls": 0, "fast_path": True}}

    def _open(self, conversation: dict[str, Any], token: str, number: str) -> dict[str, Any]:
        permits = self.inner.request("GET", "/api/sst/permits", token=token, params={"number": number}).body
        if len(permits) > 1:
            conversation["status"] = "CLARIFICATION_REQUIRED"
            candidates = [{"id": str(p["id"]), "label": f"{p['number']} — {p['company']['name']}"} for p in permits]
            return {"type": "clarification", "message": "Qual delas?", "clarification": {"candidates": candidates}}
        conversation["status"] = "IDLE"
        tab = (conversation["ui"].get("tab") or {}).get("id")
        return {"type": "navigation", "message": f"Abrindo a permissão {number}.",
                "navigation": {"route": f"/work-permits/{permits[0]['id']}", "tab": tab,
                               "entity": {"type": "workPermit", "id": str(permits[0]["id"]), "label": number}}}

    def _open_inspection(self, token: str, number: str) -> dict[str, Any]:
        found = self.inner.request("GET", "/api/sst/inspections", token=token, params={"number": number}).body[0]
        return {"type": "navigation", "message": f"Abrindo a inspeção {number}.",
                "navigation": {"route": f"/inspections/{found['id']}", "tab": None,
                               "entity": {"type": "inspection", "id": str(found["id"]), "label": number}}}

    def _ask(self, conversation: dict[str, Any], token: str, days: int) -> dict[str, Any]:
        permit_id = (conversation["ui"].get("selection") or {}).get("entityId")
        permit = self.inner.request("GET", f"/api/sst/permits/{permit_id}", token=token)
        if not permit.ok:
            conversation["status"] = "FAILED"
            return {"type": "error", "message": "Não encontrei essa permissão.", "error": {"code": "NOT_FOUND"}}
        conversation["status"] = "CONFIRMATION_REQUIRED"
        conversation["pending"] = {"id": str(uuid.uuid4()), "permit": permit_id, "days": days}
        summary = f"Alterar a validade da permissão {permit.body['number']} para {days} dias?"
        return {"type": "confirmation", "message": summary,
                "confirmation": {"id": conversation["pending"]["id"], "summary": summary, "level": "soft"}}

    def _confirm(self, conversation: dict[str, Any], token: str, confirmation_id: str | None) -> dict[str, Any]:
        pending = conversation["pending"]
        if pending is None or (confirmation_id is not None and confirmation_id != pending["id"]):
            return {"type": "error", "message": "Essa confirmação não está mais pendente.",
                    "error": {"code": "NOTHING_PENDING"}}
        self._event(conversation, "CONFIRMATION_RECEIVED")
        self.inner.request("POST", f"/api/sst/permits/{pending['permit']}/validity", token=token,
                           json_body={"validity_days": pending["days"]})
        execution_id = str(uuid.uuid4())
        self.executions[execution_id] = {"id": execution_id, "status": "running", "steps": [
            {"id": "s1", "capability": "workPermit.updateValidity", "status": "completed",
             "label": "Validando permissão"}]}
        conversation.update(pending=None, status="EXECUTING", execution=execution_id, reads=0)
        return {"type": "execution", "message": "Executando…",
                "execution": {"id": execution_id, "status": "running", "steps": []}}


@pytest.fixture
def agent(db):
    with in_process() as transport:
        yield FakeAgent(transport)


def play(agent: FakeAgent, scenario: Scenario):
    return scenario_play(scenario, ApiClient(agent), settle_seconds=5)


def with_expect(turn: int, **expect: Any) -> Scenario:
    scenario = scenario_load(FIXTURE)
    data = copy.deepcopy(dict(scenario.data))
    data["turns"][turn - 1]["expect"] = expect
    return Scenario(path=scenario.path, name=scenario.name, data=data)


def test_the_player_plays_a_whole_conversation_and_every_expectation_holds(agent):
    outcome = play(agent, scenario_load(FIXTURE))
    assert (outcome.passed, outcome.turn, outcome.reason) == (True, None, "")


def test_the_ui_context_carries_the_worlds_real_ids_and_persists_nothing_client_side(agent):
    play(agent, scenario_load(FIXTURE))
    contexts = [m["ui_context"] for m in agent.sent if "ui_context" in m]
    assert contexts[0] == {"applicationId": "sst", "page": {"id": "work-permit"}, "tab": {"id": "components"},
                           "route": "/work-permit"}
    selection = contexts[1]["selection"]
    assert selection["entityType"] == "workPermit" and selection["entityId"].isdigit()
    assert contexts[2]["selection"]["entityId"] != selection["entityId"]  # the other tenant's permit
    assert sum("ui_context" in m for m in agent.sent) == 3  # turns without `ui` send none


def test_confirm_sends_the_pending_id_and_confirm_stale_an_earlier_one(agent):
    play(agent, scenario_load(FIXTURE))
    stale, confirm = (m["confirmation_id"] for m in agent.sent if m["path"] == "confirm")
    assert stale != confirm and stale and confirm


def test_a_settled_turn_is_judged_on_the_re_read_execution_not_the_running_one(agent):
    outcome = play(agent, with_expect(7, execution={"status": "running"}))
    assert outcome.turn == 7 and outcome.reason.startswith("execution: expected {'status': 'running'}")


def test_events_appended_after_the_answer_count_and_order_matters(agent):
    outcome = play(agent, with_expect(7, events=["EXECUTION_COMPLETED", "CONFIRMATION_RECEIVED"]))
    assert outcome.turn == 7 and outcome.reason.startswith("events:")
    assert "EXECUTION_COMPLETED" in outcome.reason


def test_a_refused_turn_is_an_error_reply_without_execution_or_navigation(agent):
    outcome = play(agent, with_expect(6, type="answer"))
    assert outcome.turn == 6 and "HTTP 404" in outcome.reason


def test_a_write_reported_by_the_turn_fails_execution_none(agent):
    outcome = play(agent, with_expect(7, execution="none"))
    assert outcome.turn == 7 and outcome.reason.startswith("execution: expected 'none'")


def test_the_world_is_deleted_even_when_a_turn_fails(agent):
    from demo.testcontrol.services import WORLD_SLUG_PREFIX
    from tenancy.models import Tenant

    play(agent, with_expect(1, status="CLOSED"))
    assert not Tenant.objects.filter(slug__startswith=WORLD_SLUG_PREFIX).exists()


def test_an_inspection_selection_is_sent_as_entity_type_inspection_with_the_worlds_real_id(agent):
    outcome = play(agent, scenario_load(INSPECTIONS))
    assert (outcome.passed, outcome.reason) == (True, "")
    mine, theirs = (m["ui_context"] for m in agent.sent if "ui_context" in m)
    assert mine["selection"]["entityType"] == theirs["selection"]["entityType"] == "inspection"
    assert mine["route"] == f"/inspections/{mine['selection']['entityId']}/findings"
    assert theirs["selection"]["entityId"] != mine["selection"]["entityId"]  # the other tenant's inspection "8"


def test_navigation_to_the_wrong_inspection_or_to_a_permit_fails(agent):
    scenario = scenario_load(INSPECTIONS)
    data = copy.deepcopy(dict(scenario.data))
    data["turns"][0]["expect"] = {"navigation": {"inspection": "8"}}
    data["turns"][1]["expect"] = {"navigation": {"inspection": "8"}}
    outcome = play(agent, Scenario(path=scenario.path, name=scenario.name, data=data))
    assert outcome.turn == 1 and outcome.reason.startswith("navigation: expected {'inspection': '8'}")
    data["turns"][0]["expect"] = {}
    outcome = play(agent, Scenario(path=scenario.path, name=scenario.name, data=data))
    assert outcome.turn == 2 and "'permit': '8'" in outcome.reason


def test_the_conversation_is_the_scenario_users_whoever_speaks_first(agent):
    """A first turn `as:` another user talks in the scenario user's conversation (refused: not theirs) and never
    takes it over: the user's own turns after it are answered."""
    scenario = scenario_load(FIXTURE)
    data = copy.deepcopy(dict(scenario.data))
    first = {"say": "Abra a permissão 123", "as": "viewer", "expect": {"type": "error", "execution": "none"}}
    data["turns"] = [first, *data["turns"]]
    outcome = play(agent, Scenario(path=scenario.path, name=scenario.name, data=data))
    assert outcome.passed, outcome
    owners = {c["owner"] for c in agent.conversations.values()}
    assert len(agent.conversations) == 1 and len(owners) == 1
