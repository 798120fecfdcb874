"""From raw API answers to an `Observation` (pure): texts, navigation, candidates, execution.

`says` searches "every string of the turn response" the user could read — message, question,
candidates' labels, confirmation summary and affected labels, step labels, error details,
citations — so machine fields (ids, routes, template ids, codes, timestamps, statuses) are left
out: a `says: ["3"]` must not be satisfied by a UUID.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .judge import ExecutionSeen, NavigationSeen

MACHINE_KEYS = frozenset({
    "id", "route", "template", "code", "status", "type", "risk", "level", "version", "seq", "capability",
    "entityType", "entityId", "fieldName", "missing_fields", "source", "timestamp", "actor", "operation_id",
    "state_version", "hash", "plan_hash", "idempotency_key", "tab", "focus",
})
BUSY = frozenset({"UNDERSTANDING", "PLANNING", "EXECUTING", "CANCELLING", "RESUMING"})
TERMINAL_EXECUTION = frozenset({"completed", "partially_completed", "failed", "cancelled", "compensated"})
FAILED_STEP = "failed"
WRITE_KINDS_UNKNOWN = "unknown"


def readable_strings(value: Any, key: str = "") -> Iterator[str]:
    """Every string a person could read in a JSON value, skipping machine fields."""
    if key in MACHINE_KEYS or key.endswith(("_id", "_at", "_ids")):
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for child_key, child in value.items():
            yield from readable_strings(child, str(child_key))
    elif isinstance(value, list):
        for child in value:
            yield from readable_strings(child, key)


def mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def navigation_seen(response: Mapping[str, Any]) -> NavigationSeen | None:
    navigation = response.get("navigation")
    if not isinstance(navigation, Mapping):
        return None
    entity = mapping(navigation.get("entity"))
    entity_id = entity.get("id")
    return NavigationSeen(entity_id=None if entity_id is None else str(entity_id),
                          label=None if entity.get("label") is None else str(entity["label"]),
                          tab=navigation.get("tab"),
                          entity_type=None if entity.get("type") is None else str(entity["type"]))


def candidates_count(response: Mapping[str, Any]) -> int:
    candidates = mapping(response.get("clarification")).get("candidates")
    return len(candidates) if isinstance(candidates, list) else 0


def step_capability(step: Mapping[str, Any]) -> str:
    capability = step.get("capability")
    if isinstance(capability, Mapping):
        capability = capability.get("id")
    return str(capability or "")


def execution_seen(execution: Mapping[str, Any] | None, kinds: Mapping[str, str]) -> ExecutionSeen | None:
    """The execution's outcome; `wrote` unless every step is a capability known to be read or navigation."""
    if not execution:
        return None
    steps = [s for s in execution.get("steps") or [] if isinstance(s, Mapping)]
    wrote = not steps or any(kinds.get(step_capability(s), WRITE_KINDS_UNKNOWN) not in ("read", "navigation")
                             for s in steps)
    failed = sum(1 for s in steps if s.get("status") == FAILED_STEP)
    return ExecutionSeen(status=execution.get("status"), failed=failed, wrote=wrote)


def event_types(events: list[Mapping[str, Any]]) -> tuple[str, ...]:
    return tuple(str(e.get("type")) for e in sorted(events, key=lambda e: e.get("seq") or 0))


def last_seq(events: list[Mapping[str, Any]], default: int) -> int:
    return max([default, *(int(e["seq"]) for e in events if isinstance(e.get("seq"), int))])
