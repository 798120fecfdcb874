"""Property tests of the input-hygiene layer (tenancy.parsers) at every JSON entry point.

Hypothesis builds a plausible body, puts one hostile value of one class at one place in it (a
string leaf, a number leaf, an object key, a nested level), and sends it to every REST operation
that takes a body (from the OpenAPI document, so a new endpoint is covered without editing this
file), to the test-control API, and to the websocket as every message type. Expected every time: a
400 (REST) naming the field path, or an `invalid_input` error frame then close 4400 (websocket);
never a 5xx or a 1011, and nothing written. `make test` runs a few examples per test; `make
reliability` (RELIABILITY=1) thousands, and the report counts each class.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.db.models import Max
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from conversations.models import Conversation, Turn
from demo.testcontrol.services import sst_digest
from events.models import ConversationEvent
from sst.models import FaultRule
from tenancy.models import Tenant
from tenancy.parsers import CLOSE_INVALID_INPUT, MAX_DEPTH, MAX_KEY_CHARS, MAX_SAFE_INTEGER, MAX_STRING_CHARS

from .conftest import FULL, Victim, call, fill

CONTROL = [chr(c) for c in range(0x20) if chr(c) not in "\t\n\r"] + ["\x7f", "\x85", "\x9b"]
SURROGATES = st.integers(0xD800, 0xDFFF).map(chr)
CLEAN = st.text(st.characters(codec="utf-8", exclude_categories=["Cc", "Cs"]), max_size=8)


def _wrap(bad: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """A hostile character somewhere inside otherwise clean text."""
    return st.tuples(CLEAN, bad, CLEAN).map("".join)


STRING_CLASSES: dict[str, st.SearchStrategy[str]] = {
    "lone surrogate": _wrap(SURROGATES),
    "NUL byte": _wrap(st.just("\x00")),
    "control character": _wrap(st.sampled_from(CONTROL)),
    "oversized string": st.integers(MAX_STRING_CHARS + 1, MAX_STRING_CHARS + 500).map(lambda n: "x" * n),
}
NUMBER_CLASSES: dict[str, st.SearchStrategy[Any]] = {
    "oversized number": st.one_of(st.integers(MAX_SAFE_INTEGER + 1, 2**70),
                                  st.integers(-(2**70), -MAX_SAFE_INTEGER - 1),
                                  st.just(2**64), st.sampled_from([1e300, -1e300, 2.0**60])),
    "non-finite number": st.sampled_from([float("inf"), float("-inf")]),  # sent as 1e400 / -1e400
}
KEY_CLASSES: dict[str, st.SearchStrategy[str]] = {
    "NUL or control character in a key": _wrap(st.sampled_from(["\x00", "\t", "\n", *CONTROL])),
    "lone surrogate in a key": _wrap(SURROGATES),
    "oversized key": st.integers(MAX_KEY_CHARS + 1, MAX_KEY_CHARS + 100).map(lambda n: "k" * n),
}
CLASSES = [*STRING_CLASSES, *NUMBER_CLASSES, *KEY_CLASSES, "too deep"]

UI_CONTEXT = {"route": "/work-permits/1", "page": {"id": "work-permit", "title": "Permissão"},
              "focus": {"fieldName": "validity", "label": "Validade"},
              "selection": {"entityType": "workPermit", "entityId": "1"}, "filters": {"status": "DRAFT", "page": 1},
              "visibleArea": {"componentIds": ["a", "b"]}}
CARRIER = {"text": "qual a validade?", "ui_context": UI_CONTEXT, "client_message_id": "c-1", "reason": "motivo",
           "validity_days": 10, "number": "777", "notes": "nota", "description": "guarda-corpo", "site": "Galpão",
           "components": [{"key": "workingAtHeight", "notes": "n"}], "expected_version": 1}
WORLD_CARRIER = {"companies": ["Alfa"], "employees": [{"name": "Ana", "company": "Alfa"}],
                 "components": [{"key": "workingAtHeight", "name": "Trabalho em Altura"}],
                 "permits": [{"number": "1", "company": "Alfa", "validity_days": 5, "components": ["workingAtHeight"]}]}


@dataclass(frozen=True)
class Hostile:
    kind: str
    body: Any
    path: str  # the field path the refusal must name (a prefix of it, for keys)


def _leaves(value: Any, path: tuple = ()) -> list[tuple[tuple, Any]]:
    if isinstance(value, dict):
        return [leaf for key, child in value.items() for leaf in _leaves(child, (*path, key))]
    if isinstance(value, list):
        return [leaf for index, child in enumerate(value) for leaf in _leaves(child, (*path, index))]
    return [(path, value)]


def _containers(value: Any, path: tuple = ()) -> list[tuple]:
    found = [path] if isinstance(value, dict) else []
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    return found + [c for key, child in children for c in _containers(child, (*path, key))]


def _render(path: tuple) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path).lstrip(".")


def _replace(document: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    copy = dict(document) if isinstance(document, dict) else list(document)
    copy[path[0]] = _replace(document[path[0]], path[1:], value)
    return copy


def _deep(levels: int) -> Any:
    value: Any = "fundo"
    for index in range(levels):
        value = {"n": value} if index % 2 else [value]
    return value


@st.composite
def hostile(draw: st.DrawFn, carrier: Any, kinds: list[str] = CLASSES) -> Hostile:
    leaves = _leaves(carrier)
    types = {type(value) for _, value in leaves}
    kind = draw(st.sampled_from([k for k in kinds if (k not in STRING_CLASSES or str in types)
                                 and (k not in NUMBER_CLASSES or int in types)]))
    if kind in STRING_CLASSES or kind in NUMBER_CLASSES:
        wanted = str if kind in STRING_CLASSES else int
        path, _ = draw(st.sampled_from([(p, v) for p, v in leaves if isinstance(v, wanted)]))
        bad = draw((STRING_CLASSES | NUMBER_CLASSES)[kind])
        return Hostile(kind, _replace(carrier, path, bad), _render(path) or "(root)")
    if kind == "too deep":
        path, _ = draw(st.sampled_from(leaves))
        return Hostile(kind, _replace(carrier, path, _deep(MAX_DEPTH + draw(st.integers(1, 20)))), _render(path))
    path = draw(st.sampled_from(_containers(carrier)))
    container = _get(carrier, path)
    bad_key = draw(KEY_CLASSES[kind])
    return Hostile(kind, _replace(carrier, path, {**container, bad_key: "valor"}), _render(path))


def _get(document: Any, path: tuple) -> Any:
    for part in path:
        document = document[part]
    return document


def _encode(body: Any) -> bytes:
    # ensure_ascii: a surrogate travels as the escape `\ud800` (the way a browser's JSON.stringify
    # sends one); infinities as 1e400, a number JSON allows and Python reads as inf.
    text = json.dumps(body, ensure_ascii=True, allow_nan=True)
    return text.replace("-Infinity", "-1e400").replace("Infinity", "1e400").encode()


def _refused_naming(response, case: Hostile) -> None:
    assert response.status_code == 400, (case.kind, case.path, response.status_code, response.content[:300])
    body = response.json()
    assert body["code"] == "invalid", body
    assert any(path.startswith(case.path) for path in body["errors"]), (case.path, list(body["errors"]))


def _written(victim: Victim) -> tuple[Any, ...]:
    every = [model.objects.all_tenants() for model in (Conversation, Turn, ConversationEvent, FaultRule)]
    return (sst_digest(tenant=victim.tenant), sst_digest(tenant=victim.other), Tenant.objects.count(),
            *(rows.count() for rows in every), every[2].aggregate(Max("seq")))


def _examples(fast: int, full: int):
    return hypothesis_settings(max_examples=full if FULL else fast, deadline=None, derandomize=True,
                               suppress_health_check=list(HealthCheck))


@pytest.fixture
def operations(victim) -> list[tuple[str, str]]:
    from rest_framework.test import APIClient

    schema = APIClient().get("/api/schema/?format=json").json()
    found = [(method.upper(), path) for path, item in schema["paths"].items() for method, operation in item.items()
             if method in {"post", "put", "patch"} and "requestBody" in operation]
    assert len(found) >= 20, found
    return found


def _token_and_session(victim: Victim, role: str):
    client = victim.worlds.client(role)
    client.force_login(get_user_model().objects.get(username=victim.worlds.created.users[role]["username"]))
    return client


def test_every_rest_operation_refuses_each_class_with_its_field_path_and_writes_nothing(
        victim, operations, reliability_cases):
    # The operator owns the victim's conversation; the supervisor may do everything else (reviews,
    # cancellations); both also hold a session, for the session-only endpoints (tenancy/switch).
    clients = {role: _token_and_session(victim, role) for role in ("operator", "supervisor")}
    before = _written(victim)

    @_examples(fast=40, full=4000)
    @given(operation=st.sampled_from(operations), case=hostile(CARRIER))
    def check(operation, case):
        method, path = operation
        client = clients["operator" if path.startswith("/agent/conversations") else "supervisor"]
        response = call(client, method, fill(path, victim.ids), _encode(case.body))
        reliability_cases(f"hygiene (REST): {case.kind}")
        _refused_naming(response, case)

    check()
    assert _written(victim) == before


@pytest.fixture
def control(settings, db):
    from rest_framework.test import APIClient

    settings.AGENT_TEST_CONTROL = True
    settings.AGENT_TEST_CONTROL_TOKEN = "hygiene-control-token"
    settings.SST_FAULT_INJECTION = True
    client = APIClient()
    client.credentials(HTTP_X_TEST_CONTROL_TOKEN="hygiene-control-token")
    return client


CONTROL_OPERATIONS = [("/api/_test/worlds", WORLD_CARRIER),
                      ("/api/_test/faults", {"tenant": "{tenant}", "capability": "workPermit.read", "status": 503,
                                             "times": 1, "match": {"number": "123"}}),
                      ("/api/_test/clock", {"advance_seconds": 1})]


def test_the_test_control_api_refuses_each_class_with_its_field_path_and_writes_nothing(
        victim, control, reliability_cases):
    before = _written(victim)
    carriers = [(path, json.loads(json.dumps(body).replace("{tenant}", str(victim.tenant.pk))))
                for path, body in CONTROL_OPERATIONS]

    @_examples(fast=15, full=600)
    @given(data=st.data())
    def check(data):
        path, carrier = data.draw(st.sampled_from(carriers))
        case = data.draw(hostile(carrier))
        response = call(control, "POST", path, _encode(case.body))
        reliability_cases(f"hygiene (test control): {case.kind}")
        _refused_naming(response, case)

    check()
    assert _written(victim) == before


@pytest.mark.parametrize(("label", "world", "field"), [
    ("a NUL in a name", {**WORLD_CARRIER, "companies": ["Al\x00fa"]}, "companies[0]"),
    ("a 2^64 number", {**WORLD_CARRIER, "permits": [{"number": "1", "company": "Alfa", "validity_days": 2**64}]},
     "permits[0].validity_days"),
    ("a number the column cannot hold", {**WORLD_CARRIER, "permits": [{"number": "1", "company": "Alfa",
                                                                      "validity_days": 2**40}]},
     "permits[0].validity_days"),
    ("two components with the same key", {**WORLD_CARRIER, "components": [
        {"key": "workingAtHeight", "name": "Trabalho em Altura"}, {"key": "workingAtHeight", "name": "Outro"}]},
     "components[1].key"),
    ("a 10,000-character name", {**WORLD_CARRIER, "employees": [{"name": "a" * 10_000, "company": "Alfa"}]},
     "employees[0].name"),
    ("a 300-character company", {**WORLD_CARRIER, "companies": ["b" * 300]}, "companies[0]"),
    ("a schedule a million days away", {**WORLD_CARRIER, "inspections": [
        {"number": "1", "company": "Alfa", "scheduled_in_days": 1_000_000}]}, "inspections[0].scheduled_in_days"),
])
def test_a_world_the_database_cannot_hold_is_a_400_naming_the_field(control, label, world, field,
                                                                       reliability_cases):
    users = get_user_model().objects.count()
    response = call(control, "POST", "/api/_test/worlds", _encode(world))
    reliability_cases("hygiene (test control): issue #16 cases")
    assert response.status_code == 400, (label, response.status_code, response.content[:300])
    assert field in json.dumps(response.json()), (label, response.json())
    assert (Tenant.objects.count(), get_user_model().objects.count()) == (0, users)


def test_a_fault_repeated_more_times_than_the_column_holds_is_a_400(control, reliability_cases):
    world = call(control, "POST", "/api/_test/worlds", WORLD_CARRIER).json()
    response = call(control, "POST", "/api/_test/faults", {"tenant": world["tenant"], "capability": "workPermit.read",
                                                           "status": 503, "times": 2**40})
    reliability_cases("hygiene (test control): issue #16 cases")
    assert response.status_code == 400, response.content
    assert FaultRule.objects.all_tenants().count() == 0


# --- websocket -----------------------------------------------------------------------------

WS_CARRIERS = [{"type": "message", "text": "qual a validade?", "ui_context": UI_CONTEXT, "client_message_id": "c-1",
                "expected_version": 1},
               {"type": "confirm", "confirmation_id": "x", "client_message_id": "c-2", "expected_version": 2},
               {"type": "ping", "payload": {"n": 1, "label": "x"}}]
NOT_JSON = st.one_of(st.just("not json"), st.just('{"type": "message", "text": "si'), st.just(""),
                     st.just("[" * 20_000), st.just("NaN"), st.just('{"text": Infinity}'),
                     st.text(max_size=20).filter(lambda t: not _is_json(t)))


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


@pytest.mark.django_db(transaction=True)  # the consumer's thread must see the world: committed rows
def test_every_socket_message_type_refuses_each_class_with_an_error_frame_then_4400(victim, reliability_cases):
    from config.asgi import application

    token = victim.worlds.token("operator")
    conversation = victim.ids["conversation_id"]
    before = _written(victim)

    async def exchange(frame: dict[str, Any]) -> tuple[dict[str, Any] | None, int | None]:
        socket = WebsocketCommunicator(application, f"/ws/agent/conversations/{conversation}/?after=999999",
                                       headers=[(b"origin", b"http://testserver"),
                                                (b"authorization", f"Token {token}".encode())])
        connected, _ = await socket.connect()
        assert connected
        await socket.send_input({"type": "websocket.receive", **frame})
        first = await socket.receive_output(timeout=5)
        error = json.loads(first["text"]) if first["type"] == "websocket.send" else None
        closed = first if error is None else await socket.receive_output(timeout=5)
        await socket.disconnect()
        return error, closed.get("code") if closed["type"] == "websocket.close" else None

    @_examples(fast=12, full=600)
    @given(data=st.data())
    def check(data):
        shape = data.draw(st.sampled_from(["hostile", "not json", "binary"]))
        if shape == "hostile":
            case = data.draw(hostile(data.draw(st.sampled_from(WS_CARRIERS))))
            frame, kind, path = {"text": _encode(case.body).decode()}, case.kind, case.path
        elif shape == "not json":
            frame, kind, path = {"text": data.draw(NOT_JSON)}, "not JSON", "(root)"
        else:
            frame, kind, path = {"bytes": data.draw(st.binary(max_size=64))}, "binary frame", "(root)"
        error, code = async_to_sync(exchange)(frame)
        reliability_cases(f"hygiene (websocket): {kind}")
        assert error is not None and error["type"] == "error" and error["code"] == "invalid_input", (kind, error)
        assert any(key.startswith(path) for key in error["errors"]), (kind, path, error["errors"])
        assert set(error["detail"]) == {"pt-BR", "en"}
        assert code == CLOSE_INVALID_INPUT, (kind, code)

    check()
    assert _written(victim) == before
