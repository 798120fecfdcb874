"""What is left of a plan ("tente novamente" after a partial failure, PRD-010 §41): the steps that did
not complete, as a new plan, with every reference to a completed step replaced by the result it
returned — a completed write is never repeated (a copy is not created twice), and what depended on
it still gets its id or revision. The new plan is validated, hashed and authorised like any other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .models import PlanStep
from .references import MISSING, REF, alternatives, get_path, resolve

COPIED = ("capability", "input", "for_each", "condition", "preconditions", "postconditions", "targets", "label")


def _only_done(value: Any, done: Mapping[str, Any]) -> bool:
    """Whether every reference inside `value` names a completed step (so it can be filled in now)."""
    if isinstance(value, str):
        refs = [ref for m in REF.finditer(value) for ref in alternatives(m.group(1))]
        return bool(refs) and all(r.root == "steps" and r.step_id in done for r in refs)
    return False


def _fill(value: Any, done: Mapping[str, Any]) -> Any:
    if isinstance(value, str):
        if not _only_done(value, done):
            return value

        def lookup(ref):
            return get_path(done[ref.step_id], ref.path) if ref.step_id in done else MISSING

        return resolve(value, lookup)
    if isinstance(value, Mapping):
        return {k: _fill(v, done) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, done) for v in value]
    return value


def _through_done(depends_on: Sequence[str], by_id: Mapping[str, PlanStep], done: Mapping[str, Any]) -> list[str]:
    """A done dependency is replaced by what it depended on: the order it kept is kept."""
    found: list[str] = []
    for name in depends_on:
        for dependency in (_through_done(by_id[name].depends_on or [], by_id, done) if name in done else [name]):
            if dependency not in found:
                found.append(dependency)
    return found


def remaining_steps(steps: Sequence[PlanStep], done: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The plan steps not in `done` (step id → its result), references to done steps filled in."""
    left = []
    # A target a completed write changed has moved on from the revision pinned at planning.
    written = {f"{t.get('type')}:{t.get('id')}" for s in steps if s.step_id in done and s.kind == "write"
               for t in s.targets or []}
    by_id = {s.step_id: s for s in steps}
    for step in sorted(steps, key=lambda s: s.position):
        if step.step_id in done:
            continue
        raw = {"id": step.step_id, "depends_on": _through_done(step.depends_on or [], by_id, done)}
        for key in COPIED:
            value = step.capability_id if key == "capability" else getattr(step, key)
            if value not in (None, "", []):
                raw[key] = _fill(value, done)
        raw["targets"] = [{k: v for k, v in t.items() if k != "revision" or f"{t.get('type')}:{t.get('id')}"
                           not in written} for t in raw.get("targets") or []]
        left.append(raw)
    return left
