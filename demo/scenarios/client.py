"""The calls the runner makes, by name, over a Transport: test control, conversations, SST look-ups.

Response shapes the runner reads beyond API.md's turn response are read tolerantly here (a list or
a `{results|events: [...]}` page; the pending confirmation under `pending_confirmation` or
`confirmation`), so the rest of the runner sees one shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .transport import HttpResult, Transport

CONVERSATIONS = "/agent/conversations"


class HarnessError(Exception):
    """A step of the harness itself failed (seeding, a fault, the clock): the turn could not be played."""


def _require(result: HttpResult, what: str) -> Any:
    if not result.ok:
        raise HarnessError(f"{what} answered HTTP {result.status}: {result.body!r}"[:1000])
    return result.body


def items(body: Any, *keys: str) -> list[Any]:
    """The list in a list-or-page answer."""
    if isinstance(body, list):
        return body
    if isinstance(body, Mapping):
        for key in (*keys, "results", "items"):
            if isinstance(body.get(key), list):
                return body[key]
    return []


class ApiClient:
    def __init__(self, transport: Transport) -> None:
        self.transport = transport

    # Test control (API.md "Test control").
    def world_create(self, world: Mapping[str, Any]) -> HttpResult:
        return self.transport.request("POST", "/api/_test/worlds", control=True, json_body=dict(world))

    def world_delete(self, tenant: str) -> HttpResult:
        return self.transport.request("DELETE", f"/api/_test/worlds/{tenant}", control=True)

    def facts(self, tenant: str) -> dict[str, Any]:
        return _require(self.transport.request("GET", f"/api/_test/worlds/{tenant}/facts", control=True), "facts")

    def fault_add(self, tenant: str, fault: Mapping[str, Any]) -> None:
        body = {"tenant": tenant, **fault}
        _require(self.transport.request("POST", "/api/_test/faults", control=True, json_body=body), "fault")

    def faults_clear(self, tenant: str) -> None:
        _require(self.transport.request("DELETE", "/api/_test/faults", control=True, params={"tenant": tenant}),
                 "fault: clear")

    def clock_advance(self, seconds: int) -> None:
        _require(self.transport.request("POST", "/api/_test/clock", control=True,
                                        json_body={"advance_seconds": seconds}), "advance")

    # The conversation API (API.md "Conversations").
    def conversation_start(self, token: str) -> HttpResult:
        return self.transport.request("POST", CONVERSATIONS, token=token, json_body={})

    def message(self, token: str, conversation: str, body: Mapping[str, Any]) -> HttpResult:
        return self.transport.request("POST", f"{CONVERSATIONS}/{conversation}/messages", token=token,
                                      json_body=dict(body))

    def action(self, token: str, conversation: str, action: str, body: Mapping[str, Any]) -> HttpResult:
        return self.transport.request("POST", f"{CONVERSATIONS}/{conversation}/{action}", token=token,
                                      json_body=dict(body))

    def conversation_get(self, token: str, conversation: str) -> HttpResult:
        return self.transport.request("GET", f"{CONVERSATIONS}/{conversation}", token=token)

    def events(self, token: str, conversation: str, after: int) -> list[Mapping[str, Any]]:
        result = self.transport.request("GET", f"{CONVERSATIONS}/{conversation}/events", token=token,
                                        params={"after": after})
        return [e for e in items(result.body, "events") if isinstance(e, Mapping)] if result.ok else []

    def execution_get(self, token: str, execution: str) -> HttpResult:
        return self.transport.request("GET", f"/agent/executions/{execution}", token=token)

    def capability_kinds(self, token: str) -> dict[str, str]:
        result = self.transport.request("GET", "/agent/capabilities", token=token)
        return {str(c.get("id")): str(c.get("kind")) for c in items(result.body, "capabilities")
                if isinstance(c, Mapping)} if result.ok else {}

    # The SST API, for ids the facts do not carry.
    def company_id(self, token: str, name: str) -> int | None:
        result = self.transport.request("GET", "/api/sst/companies", token=token, params={"q": name})
        return next((c["id"] for c in items(result.body) if c.get("name") == name), None)


def pending_confirmation_id(state: Any) -> str | None:
    """The id of the confirmation a conversation state shows as pending, if any."""
    if not isinstance(state, Mapping):
        return None
    for key in ("pending_confirmation", "confirmation"):
        pending = state.get(key)
        if isinstance(pending, Mapping) and pending.get("id") and pending.get("status", "PENDING") in (
                "PENDING", "pending"):
            return str(pending["id"])
    return None
