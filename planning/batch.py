"""Batch steps (PRD-034 §110-§111): one capability applied to each of the plan's pinned targets.

A step whose `for_each` is exactly `${targets}` is a batch step: it runs once per entry of its own
`targets` list, which is fixed at planning, hashed with the plan and bound by the policy receipt —
the runtime may change *how* the items run (chunk size, concurrency, timeout, registered fallback),
never *which* items (ARCHITECTURE.md invariant 12). Inside it, `${item.id}` is the target's id and
`${item.results.<step>.<path>}` the result the same item got from an earlier batch step (a decision
step of an item reads that item's own checks).

A pinned target may carry `args`: values of its own call that are not the target's id (the undo of a
batch removes, on each target, the very row that target's write created). `${item.args.<name>}`
reads them. They are fixed at planning like the target itself and hashed with it, so the runtime
can no more change them than the targets; validation checks each target's call with its own args.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

BATCH_SOURCE = "${targets}"
MAX_BATCH_TARGETS = 200


def is_batch(step: Mapping[str, Any] | Any) -> bool:
    source = step.get("for_each") if isinstance(step, Mapping) else getattr(step, "for_each", None)
    return source == BATCH_SOURCE


def batch_item_schema(step: Mapping[str, Any], by_id: Mapping[str, Mapping[str, Any]],
                      output_schema_of: Any) -> dict[str, Any]:
    """The schema of `${item}` in a batch step: the target, plus the results of earlier batch steps."""
    results = {dep: output_schema_of(dep) or {} for dep in step.get("depends_on") or []
               if dep in by_id and is_batch(by_id[dep])}
    return {"type": "object", "properties": {
        "type": {"type": "string"}, "id": {"type": "integer", "minimum": 1},
        "results": {"type": "object", "properties": results}, "args": {"type": "object"}}}


def batch_problems(step: Mapping[str, Any]) -> list[str]:
    targets = step.get("targets") or []
    if not targets:
        return ["BATCH_EMPTY"]
    if len(targets) > MAX_BATCH_TARGETS:
        return ["BATCH_TOO_LARGE"]
    if len({(t.get("type"), t.get("id")) for t in targets if isinstance(t, Mapping)}) != len(targets):
        return ["BATCH_TARGETS_DUPLICATE"]
    if any(not isinstance(t.get("args", {}), Mapping) for t in targets):
        return ["BATCH_TARGET_ARGS_INVALID"]
    return []


def item_view(target: Mapping[str, Any], results: Mapping[str, Any]) -> dict[str, Any]:
    """What `${item...}` reads for one pinned target: its type and id, its own args, and the results
    the same target got from earlier batch steps."""
    return {"type": target.get("type"), "id": target.get("id"), "results": dict(results),
            "args": dict(target.get("args") or {})}


def batch_targets(ids: Sequence[int], entity: str,
                  args: Mapping[int, Mapping[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The pinned targets of a batch over `ids` of one entity type, each with its own `args` if given."""
    return [{"type": entity, "id": target_id, **({"args": dict(args[target_id])} if args and target_id in args
                                                  else {})} for target_id in ids]


def batch_entity(steps: Sequence[Mapping[str, Any]]) -> str:
    """The entity type a plan's batch steps are pinned to ("" when it has none)."""
    return next((str(t.get("type")) for s in steps if is_batch(s) for t in s.get("targets") or ()
                 if isinstance(t, Mapping)), "")
