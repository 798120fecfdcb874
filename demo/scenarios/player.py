"""Plays one scenario through the public APIs and judges every turn (SCENARIOS.md).

Per scenario: a fresh world through test control, its facts as the baseline, then per turn the
directives (`fault`, `advance`), the message or button press as the turn's user in the named
conversation, the settle wait, the observation (turn response, settled state and execution,
events appended during the turn, world facts) and the judge. The world is deleted afterwards,
whatever happened.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .client import ApiClient, HarnessError, items, pending_confirmation_id
from .judge import Baseline, Mismatch, Observation, judge
from .kinds import EntityKind, kinds_named
from .loader import NEW, InvalidScenario, Scenario
from .observe import (
    BUSY,
    TERMINAL_EXECUTION,
    candidates_count,
    event_types,
    execution_seen,
    last_seq,
    mapping,
    navigation_seen,
    readable_strings,
)

MAIN = "main"
UNITS = {"s": 1, "m": 60, "h": 3600}
ACTION_PATHS = {"confirm": "confirm", "confirm-stale": "confirm", "cancel": "cancel", "undo": "undo",
                "resume": "resume"}


@dataclass(frozen=True)
class Outcome:
    scenario: str
    path: str
    passed: bool
    invalid: bool = False
    skipped: bool = False  # not played (a model script under --live): neither passed nor failed
    turn: int | None = None
    reason: str = ""


@dataclass
class ConversationPlay:
    owner_token: str
    id: str | None = None
    last_seq: int = 0
    confirmations: list[str] = field(default_factory=list)  # every confirmation id seen, oldest first
    last_response: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class ScenarioPlay:
    scenario: Scenario
    api: ApiClient
    settle_seconds: float
    tenant: str = ""
    tokens: dict[str, str] = field(default_factory=dict)
    other_tenant: str | None = None
    baseline: Baseline = field(default_factory=Baseline)
    conversations: dict[str, ConversationPlay] = field(default_factory=dict)
    executions_seen: set[str] = field(default_factory=set)
    kinds: dict[str, str] | None = None


def scenario_play(scenario: Scenario, api: ApiClient, *, settle_seconds: float = 30.0,
                  on_turn: Callable[[int], None] | None = None) -> Outcome:
    """`on_turn(i)` is told before turn i (0-based) starts: a model script answers by turn."""
    play = ScenarioPlay(scenario=scenario, api=api, settle_seconds=settle_seconds)
    try:
        _world_create(play)
    except InvalidScenario as exc:
        return Outcome(scenario.name, str(scenario.path), passed=False, invalid=True, reason="; ".join(exc.problems))
    except HarnessError as exc:
        return Outcome(scenario.name, str(scenario.path), passed=False, turn=0, reason=f"world: {exc}")
    try:
        for number, turn in enumerate(scenario.turns, start=1):
            if on_turn is not None:
                on_turn(number - 1)
            failure = _turn_failure(play, turn)
            if failure is not None:
                return Outcome(scenario.name, str(scenario.path), passed=False, turn=number, reason=failure)
        return Outcome(scenario.name, str(scenario.path), passed=True)
    finally:
        api.world_delete(play.tenant)


def _world_create(play: ScenarioPlay) -> None:
    result = play.api.world_create(play.scenario.data["world"])
    if result.status == 400:
        errors = mapping(mapping(result.body).get("errors")).get("world") or [str(result.body)]
        raise InvalidScenario(play.scenario.path, [f"world: {e}" for e in errors], play.scenario.name)
    if not result.ok:
        raise HarnessError(f"POST /api/_test/worlds answered HTTP {result.status}: {result.body!r}"[:1000])
    play.tenant = result.body["tenant"]
    play.tokens = {role: user["token"] for role, user in result.body["users"].items()}
    play.other_tenant = (result.body.get("other_tenant") or {}).get("tenant")
    facts = play.api.facts(play.tenant)
    play.baseline = Baseline(permit_ids=frozenset(p["id"] for p in facts["permits"]),
                             inspection_ids=frozenset(i["id"] for i in facts["inspections"]),
                             other_digest=facts.get("other_tenant_digest"))


def _turn_failure(play: ScenarioPlay, turn: Mapping[str, Any]) -> str | None:
    try:
        _directives(play, turn)
        observation = _turn_observe(play, turn)
    except HarnessError as exc:
        return str(exc)
    if isinstance(observation, Mismatch):
        return str(observation)
    mismatch = judge(turn.get("expect") or {}, observation, play.baseline)
    if mismatch is None:
        return None
    refused = f" (the API refused the turn: HTTP {observation.http_status})" if observation.http_status >= 400 else ""
    return f"{mismatch}{refused}"


def _directives(play: ScenarioPlay, turn: Mapping[str, Any]) -> None:
    fault = turn.get("fault")
    if fault == "clear":
        play.api.faults_clear(play.tenant)
    elif fault is not None:
        play.api.fault_add(play.tenant, fault)
    if "advance" in turn:
        play.api.clock_advance(advance_seconds(turn["advance"]))


def advance_seconds(text: str) -> int:
    """'6m' → 360 (the schema allows only digits followed by s, m or h)."""
    return int(text[:-1]) * UNITS[text[-1]]


def _conversation(play: ScenarioPlay, name: str, token: str) -> ConversationPlay:
    conversation = play.conversations.setdefault(name, ConversationPlay(owner_token=token))
    if conversation.id is None:
        result = play.api.conversation_start(conversation.owner_token)
        if result.ok and isinstance(result.body, Mapping) and result.body.get("id"):
            conversation.id = str(result.body["id"])
    return conversation


def _turn_observe(play: ScenarioPlay, turn: Mapping[str, Any]) -> Observation | Mismatch:
    token = play.tokens[turn.get("as", play.scenario.data["user"])]
    # A conversation is the scenario user's, whoever speaks first in it: a turn `as:` another user talks in it
    # as that user (refused with 404, SCENARIOS.md) and never takes it over for the turns after.
    conversation = _conversation(play, turn.get("conversation", MAIN), play.tokens[play.scenario.data["user"]])
    if conversation.id is None:
        return _refused(play, conversation, 404, {"detail": "the conversation could not be started"})
    result = _send(play, conversation, turn, token)
    if not result.ok:
        return _refused(play, conversation, result.status, result.body)
    return _settled(play, conversation, token, result.body)


def _send(play: ScenarioPlay, conversation: ConversationPlay, turn: Mapping[str, Any], token: str):
    if "say" in turn:
        body: dict[str, Any] = {"text": turn["say"], "client_message_id": str(uuid.uuid4())}
        if "ui" in turn:
            body["ui_context"] = ui_context(play, turn["ui"], token)
        return play.api.message(token, conversation.id, body)
    action = turn["action"]
    body = {}
    if action == "confirm":
        body = {"confirmation_id": _pending_id(play, conversation, token)}
    elif action == "confirm-stale":
        body = {"confirmation_id": _stale_id(play, conversation, token)}
    return play.api.action(token, conversation.id, ACTION_PATHS[action], body)


def _pending_id(play: ScenarioPlay, conversation: ConversationPlay, token: str) -> str | None:
    state = play.api.conversation_get(token, conversation.id)
    pending = pending_confirmation_id(state.body) if state.ok else None
    last = mapping(conversation.last_response.get("confirmation")).get("id")
    return pending or (None if last is None else str(last))


def _stale_id(play: ScenarioPlay, conversation: ConversationPlay, token: str) -> str:
    state = play.api.conversation_get(token, conversation.id)
    pending = pending_confirmation_id(state.body) if state.ok else None
    pending = pending or mapping(conversation.last_response.get("confirmation")).get("id")
    earlier = [c for c in conversation.confirmations if c != str(pending)]
    if not earlier:
        raise HarnessError("confirm-stale: no earlier confirmation was shown in this conversation")
    return earlier[-1]


def ui_context(play: ScenarioPlay, ui: Mapping[str, Any], token: str) -> dict[str, Any]:
    """API.md's ui_context from a scenario's `ui`, with names resolved to the world's real ids."""
    context: dict[str, Any] = {"applicationId": "sst"}
    if "page" in ui:
        context["page"] = {"id": ui["page"]}
    if "tab" in ui:
        context["tab"] = None if ui["tab"] is None else {"id": ui["tab"]}
    route = f"/{ui.get('page', '')}"
    if "selection" in ui:
        kind, entity_id = _selected(play, ui["selection"])
        context["selection"] = {"entityType": kind.entity_type, "entityId": str(entity_id)}
        route = f"{kind.route}/{entity_id}" + (f"/{ui['tab']}" if ui.get("tab") else "")
    context["route"] = route
    if "company" in ui.get("filters", {}):
        name = ui["filters"]["company"]
        company_id = play.api.company_id(token, name)
        if company_id is None:
            raise HarnessError(f"ui.filters.company: company {name!r} not found through the SST API")
        context["filters"] = {"company": str(company_id), "companyName": name}
    if "focus" in ui:
        context["focus"] = dict(ui["focus"])
    return context


def _selected(play: ScenarioPlay, selection: Mapping[str, Any]) -> tuple[EntityKind, int]:
    """The kind and real id of the permit or inspection a selection names (the loader checked it names one)."""
    kind = kinds_named(selection)[0]
    other = selection.get("tenant") == "other"
    if other and play.other_tenant is None:
        raise HarnessError("ui.selection: tenant: other, but the world has no other_tenant")
    rows = play.api.facts(play.other_tenant if other else play.tenant)[kind.plural]
    if selection[kind.key] == NEW and not other:
        matching = [row for row in rows if row["id"] not in play.baseline.ids(kind)]
    else:
        matching = [row for row in rows if row["number"] == selection[kind.key]
                    and selection.get("company", row["company"]) == row["company"]]
    if len(matching) != 1:
        raise HarnessError(f"ui.selection {dict(selection)}: {len(matching)} {kind.plural} match")
    return kind, matching[0]["id"]


def _settle(play: ScenarioPlay, conversation: ConversationPlay, token: str, status: Any) -> tuple[Any, Any]:
    """Poll the conversation until its status is not a busy one; (status, state) or a Mismatch on timeout."""
    deadline, pause = time.monotonic() + play.settle_seconds, 0.05
    while True:
        state = play.api.conversation_get(token, conversation.id)
        if not state.ok:
            return status, {}
        status = mapping(state.body).get("status")
        if status not in BUSY:
            return status, state.body
        if time.monotonic() >= deadline:
            return Mismatch("status", f"settled within {play.settle_seconds:g} s", status), state.body
        time.sleep(pause)
        pause = min(pause * 2, 0.5)


def _settled(play: ScenarioPlay, conversation: ConversationPlay, token: str, turn: Any) -> Observation | Mismatch:
    turn = mapping(turn)
    response = mapping(turn.get("response"))
    conversation.last_response = response
    status, state = _settle(play, conversation, token, turn.get("status"))
    if isinstance(status, Mismatch):
        return status
    _remember_confirmations(conversation, response, state)
    execution, extra = _execution(play, token, turn, response, state)
    facts = play.api.facts(play.tenant)
    return Observation(
        status=status,
        type=response.get("type"),
        texts=tuple(readable_strings(response)) + tuple(readable_strings(extra)),
        candidates=candidates_count(response),
        navigation=navigation_seen(response),
        execution=execution_seen(execution, _kinds(play)),
        events=_events(play, conversation, token),
        llm_calls=mapping(turn.get("metrics")).get("llm_calls"),
        permits=tuple(facts["permits"]),
        inspections=tuple(facts["inspections"]),
        other_digest=facts.get("other_tenant_digest"),
    )


def _remember_confirmations(conversation: ConversationPlay, response: Mapping[str, Any], state: Any) -> None:
    for confirmation_id in (mapping(response.get("confirmation")).get("id"), pending_confirmation_id(state)):
        if confirmation_id and str(confirmation_id) not in conversation.confirmations:
            conversation.confirmations.append(str(confirmation_id))


def _execution(play: ScenarioPlay, token: str, turn: Mapping[str, Any], response: Mapping[str, Any],
               state: Any) -> tuple[Mapping[str, Any] | None, Any]:
    """The turn's execution as it ended, and what else the user was told once it settled (for `says`).

    A turn answered while it still ran is stale: the settled state's `last_response` (and
    `last_result`) hold the final reply, and the execution is re-read until it is terminal.
    """
    state = mapping(state)
    stale = turn.get("status") in BUSY
    settled_reply = [state.get("last_response"), state.get("last_result")] if stale else []
    execution = mapping(response.get("execution")) or None
    if execution is None and stale:
        for source in settled_reply:
            found = mapping(mapping(source).get("execution"))
            if found and str(found.get("id")) not in play.executions_seen:
                execution = found
                break
    if execution is None:
        return None, settled_reply
    if execution.get("status") not in TERMINAL_EXECUTION and execution.get("id"):
        reread = _execution_settled(play, token, str(execution["id"]))
        if reread:
            execution = reread
            settled_reply = [*settled_reply, reread]
    if execution.get("id"):
        play.executions_seen.add(str(execution["id"]))
    return execution, settled_reply


def _execution_settled(play: ScenarioPlay, token: str, execution_id: str) -> Mapping[str, Any] | None:
    deadline, pause = time.monotonic() + play.settle_seconds, 0.05
    body: Mapping[str, Any] | None = None
    while time.monotonic() < deadline:
        result = play.api.execution_get(token, execution_id)
        if not result.ok:
            return body
        body = mapping(result.body)
        if body.get("status") in TERMINAL_EXECUTION:
            return body
        time.sleep(pause)
        pause = min(pause * 2, 0.5)
    return body


def _kinds(play: ScenarioPlay) -> dict[str, str]:
    if play.kinds is None:
        # The broadest role discovers the most capabilities; an unlisted one counts as a write.
        play.kinds = play.api.capability_kinds(play.tokens["supervisor"])
    return play.kinds


def _events(play: ScenarioPlay, conversation: ConversationPlay, token: str) -> tuple[str, ...]:
    events = play.api.events(token, conversation.id, conversation.last_seq)
    conversation.last_seq = last_seq(events, conversation.last_seq)
    return event_types(events)


def _refused(play: ScenarioPlay, conversation: ConversationPlay, http_status: int, body: Any) -> Observation:
    """An HTTP-level refusal: a reply of type `error`, no execution, no navigation (SCENARIOS.md)."""
    status, events = None, ()
    if conversation.id is not None:
        state = play.api.conversation_get(conversation.owner_token, conversation.id)
        status = mapping(state.body).get("status") if state.ok else None
        events = _events(play, conversation, conversation.owner_token)
    facts = play.api.facts(play.tenant)
    detail = items(body) or [mapping(body).get("detail") or body]
    return Observation(status=status, type="error", texts=tuple(readable_strings(detail)), events=events,
                       llm_calls=0, permits=tuple(facts["permits"]), inspections=tuple(facts["inspections"]),
                       other_digest=facts.get("other_tenant_digest"), http_status=http_status)
