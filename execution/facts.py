"""The fresh facts about a step's (or a whole plan's) targets, read now through read capabilities
(ARCHITECTURE.md "policy is pure": the caller reads, policy decides), each read under its
capability's adaptive envelope (execution/envelope.py): a reader whose breaker is open, or past the
execution's deadline, is refused without a call (CIRCUIT_OPEN / DEADLINE_EXCEEDED in the results),
and the caller decides (execution/perform.py fails or retries the step).

Facts are read through each target type's read capability, found in the registry
(RegistrySnapshot.reader_of). A type without one is not read: policy then denies a step targeting
it with TARGET_FACTS_MISSING (fail closed).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from planning.models import ExecutionPlan
from planning.selectors import plan_steps
from registry.selectors import CapabilitySpec, RegistrySnapshot, registry_snapshot
from tenancy.models import Tenant

from .envelope import EnvelopeSession
from .tool_runtime import ToolResult, ToolSession

READ_MANY_CHUNK = 200


def _fact_reader(session: ToolSession | EnvelopeSession, snapshot: RegistrySnapshot,
                 tenant: Tenant) -> EnvelopeSession:
    """Facts are a check before the work, and the retry policy (or the turn) decides what a refusal
    means: an open breaker refuses them at once, it is not waited out (as a step's own call waits)."""
    if not isinstance(session, EnvelopeSession):
        session = EnvelopeSession.outside(actor_id=session.user.pk, tenant=tenant, snapshot=snapshot)
    return replace(session, wait_open=False)


def read_facts(*, session: ToolSession | EnvelopeSession, snapshot: RegistrySnapshot, tenant: Tenant,
               targets: Iterable[Mapping[str, Any]], known: Mapping[str, Mapping[str, Any]] | None = None,
               ) -> tuple[dict[str, Any], list[ToolResult]]:
    """`{"<type>:<id>": {tenant, exists, status?, revision?}}` read now, and the raw results (for errors).

    `known`: rows the caller read through the same read capabilities within the same unit of work
    (a turn), by "<type>:<id>" — used instead of reading them again.

    `session`: an EnvelopeSession (an execution's), or a raw ToolSession (a conversation's reader),
    whose (user, tenant) calls are then made under the envelope too, as calls outside an execution."""
    reader_session = _fact_reader(session, snapshot, tenant)
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
            results += _read_many(reader_session, many, tenant, group, facts)
            continue
        reader = snapshot.reader_of(entity_type, tenant=tenant)
        for target in group if reader else ():
            result = reader_session.invoke(capability=reader[0], input={reader[1]: target["id"]})
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
    snapshot = registry_snapshot()
    session = EnvelopeSession.outside(actor_id=actor.pk, tenant=tenant, snapshot=snapshot)
    facts, _ = read_facts(session=session, snapshot=snapshot, tenant=tenant, targets=targets.values())
    return facts


def _facts_of(tenant: Tenant, row: Mapping[str, Any]) -> dict[str, Any]:
    return {"tenant": str(tenant.pk), "exists": True, "status": row.get("status"), "revision": row.get("revision")}


def _read_many(session: EnvelopeSession, reader: tuple[CapabilitySpec, str], tenant: Tenant,
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
