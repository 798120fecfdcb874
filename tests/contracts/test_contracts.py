"""The committed TypeScript contracts are exactly what the code generates (PRD-001 §28)."""

from __future__ import annotations

import json

from scripts import contracts


def test_the_committed_contracts_are_what_the_code_generates():
    diff = contracts.drift(contracts.render())
    assert not diff, "contracts/ is stale: run `make contracts` and commit.\n" + diff[:4000]


def test_the_websocket_contract_types_every_message_the_consumer_sends_and_accepts():
    text = contracts.websocket_ts()
    for name in ("EventEnvelope", "ExecutionProgressPayload", "TurnMessage", "ErrorMessage", "ServerMessage",
                 "ClientMessage", "UiContext", "AgentResponse", "Confirmation", "Clarification"):
        assert f"export interface {name} " in text or f"export type {name} = " in text, name


def test_the_rest_contract_types_the_turn_endpoints_and_leaves_out_test_control():
    text = contracts.rest_ts(contracts.openapi_document())
    assert '"/agent/conversations/{conversation_id}/messages"' in text
    assert "requestBody: MessageInput;" in text and "responses: { 200: Turn };" in text
    assert "/api/_test/" not in text


def test_a_stale_contract_is_reported_with_a_diff(tmp_path):
    stale = tmp_path / "websocket.ts"
    stale.write_text("// old\n", encoding="utf-8")
    diff = contracts.drift({stale: contracts.websocket_ts()})
    assert "-// old" in diff and "+export interface EventEnvelope" in diff


def test_the_schema_the_consumer_validates_against_is_the_one_the_types_come_from():
    from conversations.consumers import SCHEMA_PATH

    assert SCHEMA_PATH == contracts.WS_SCHEMA
    assert "ServerMessage" in json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))["$defs"]
