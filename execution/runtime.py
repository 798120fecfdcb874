"""What a step needs around the Tool Runtime: a reusable session per (user, tenant) in this process,
the fresh facts about a step's (or a whole plan's) targets, read through read capabilities
(ARCHITECTURE.md "policy is pure"), and navigation instructions built from the capability's
`navigation` block.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Mapping
from typing import Any

from django.contrib.auth import get_user_model

from planning.models import ExecutionPlan
from planning.selectors import plan_steps
from registry.selectors import CapabilitySpec, RegistrySnapshot, registry_snapshot
from tenancy.models import Tenant

from .tool_runtime import TOKEN_TTL, ToolResult, ToolSession

# Facts are read through each target type's read capability, found in the registry
# (RegistrySnapshot.reader_of). A type without one is not read: policy then denies a step
# targeting it with TARGET_FACTS_MISSING (fail closed).
READ_MANY_CHUNK = 200

_local = threading.local()
# A session's token lives TOKEN_TTL; reuse it for well under that.
_SESSION_REUSE_S = TOKEN_TTL.total_seconds() / 3


def session_for(*, user_id: int, tenant: Tenant) -> ToolSession:
    """One ToolSession per (user, tenant) per thread, renewed before its token expires."""
    sessions: dict[tuple[int, Any], tuple[float, ToolSession]] = getattr(_local, "sessions", None) or {}
    _local.sessions = sessions
    key = (user_id, tenant.pk)
    cached = sessions.get(key)
    if cached and time.monotonic() - cached[0] < _SESSION_REUSE_S:
        return cached[1]
    if cached:
        cached[1].close()
    session = ToolSession(user=get_user_model().objects.get(pk=user_id), tenant=tenant)
    sessions[key] = (time.monotonic(), session)
    return session


def sessions_close() -> None:
    for _, session in (getattr(_local, "sessions", None) or {}).values():
        session.close()
    _local.sessions = {}


def read_facts(*, session: ToolSession, snapshot: RegistrySnapshot, tenant: Tenant,
               targets: Iterable[Mapping[str, Any]], known: Mapping[str, Mapping[str, Any]] | None = None,
               ) -> tuple[dict[str, Any], list[ToolResult]]:
    """`{"<type>:<id>": {tenant, exists, status?, revision?}}` read now, and the raw results (for errors).

    `known`: rows the caller read through the same read capabilities within the same unit of work
    (a turn), by "<type>:<id>" — used instead of reading them again."""
    facts: dict[str, Any] = {}
    results: list[ToolResult] = []
    by_type: dict[str, list[Mapping[str, Any]]] = {}
    for target in targets:
        row = (known or {}).get(f"{target['type']}:{target['id']}")
        if row is not None:
            facts[f"{target['type']}:{target['id']}"] = _facts_of(tenant, row)
            continue
        by_type.setdefault(str(target["type"]), []).append(target)
    for entity_type, group in by_type.items():
        many = snapshot.reader_of(entity_type, tenant=tenant, many=True) if len(group) > 1 else None
        if many is not None:
            # A batch's targets: one call per 200 instead of one per target; a missing one is "not found".
            results += _read_many(session, many, tenant, group, facts)
            continue
        reader = snapshot.reader_of(entity_type, tenant=tenant)
        for target in group if reader else ():
            result = session.invoke(capability=reader[0], input={reader[1]: target["id"]})
            results.append(result)
            key = f"{target['type']}:{target['id']}"
            if result.status_code == 404:
                facts[key] = {"tenant": str(tenant.pk), "exists": False}
            elif result.outcome == "succeeded" and isinstance(result.body, Mapping):
                facts[key] = _facts_of(tenant, result.body)
    return facts, results


def plan_facts(*, plan: ExecutionPlan, actor: Any, tenant: Tenant) -> dict[str, Any]:
    """The facts policy needs about the plan's targets, read now through read capabilities
    (ARCHITECTURE.md: the caller reads, policy decides). For `decision_record` / `receipt_issue`."""
    targets: dict[str, dict[str, Any]] = {}
    for step in plan_steps(plan=plan):
        for target in step.targets:
            targets[f"{target['type']}:{target['id']}"] = target
    facts, _ = read_facts(session=session_for(user_id=actor.pk, tenant=tenant), snapshot=registry_snapshot(),
                          tenant=tenant, targets=targets.values())
    return facts


def _facts_of(tenant: Tenant, row: Mapping[str, Any]) -> dict[str, Any]:
    return {"tenant": str(tenant.pk), "exists": True, "status": row.get("status"), "revision": row.get("revision")}


def _read_many(session: ToolSession, reader: tuple[CapabilitySpec, str], tenant: Tenant,
               group: list[Mapping[str, Any]], facts: dict[str, Any]) -> list[ToolResult]:
    results = []
    for start in range(0, len(group), READ_MANY_CHUNK):
        chunk = group[start:start + READ_MANY_CHUNK]
        result = session.invoke(capability=reader[0], input={reader[1]: ",".join(str(t["id"]) for t in chunk)})
        results.append(result)
        if result.outcome != "succeeded" or not isinstance(result.body, list):
            continue
        found = {row.get("id"): row for row in result.body if isinstance(row, Mapping)}
        for target in chunk:
            row = found.get(target["id"])
            facts[f"{target['type']}:{target['id']}"] = (_facts_of(tenant, row) if row
                                                          else {"tenant": str(tenant.pk), "exists": False})
    return results


def navigation_instruction(spec: CapabilitySpec, values: Mapping[str, Any], *, label: str | None) -> dict[str, Any]:
    """`{route, entity: {type, id, label}, tab}` from the capability's declared route; no URL by hand."""
    nav = spec.navigation or {}
    route = str(nav.get("route", "")).format_map({k: str(v) for k, v in values.items()})
    id_field = next((f for f in spec.input_schema.get("required", []) if f.endswith("_id")), None)
    entity_id = values.get(id_field) if id_field else None
    tab_field = nav.get("tab")
    return {"route": route, "entity": {"type": nav.get("entity"), "id": str(entity_id) if entity_id is not None
                                       else None, "label": label},
            "tab": values.get(tab_field) if tab_field else None}
