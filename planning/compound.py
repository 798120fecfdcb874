"""Compound requests (PRD-006 §10.2, PRD-010): several intents arranged into one plan.

"Adicione X e depois aprove", "se estiver vencida, renove", "crie uma igual e abra" are several
intents with an order, a condition, or a reference from one to another's result. The structure comes
from the LLM (conversations asks it, as structured output); every part is still planned by the
deterministic path (`templates.draft_for`: a capability or a composite of the manifest) and the
whole plan goes through `plan_from_steps` like any other — an unknown capability, a bad reference,
a cycle or a missing permission refuses it, nothing is trusted because the model said it.

How parts become one plan:
- each part's steps are renamed `<part>_<step>` (references inside the part follow);
- a part's root steps depend on the last step of every part it depends on or refers to;
- a target given as `refs[role] = <part>` is the id in that part's last step's result: the part is
  drafted with a placeholder id, which becomes `${steps.<part's last step>.result.id}` and is never
  pinned (it does not exist yet at planning);
- a condition `{"part", "path", "op", "value"}` gates every step of its part on the earlier part's
  last result (`holds` in planning.conditions; a skipped step skips its dependants).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from registry.selectors import RegistrySnapshot

from .exceptions import PlanInvalid
from .intents import StructuredIntent, TargetRef
from .templates import Draft, TemplateError, draft_for
from .validation import reason

_PART_ID = re.compile(r"^[A-Za-z][A-Za-z0-9]{0,15}$")
_STEP_REF = re.compile(r"\$\{(\s*)steps\.([^.|}\s]+)\.")
MAX_PARTS = 6


@dataclass(frozen=True)
class Part:
    id: str
    intent: StructuredIntent
    depends_on: tuple[str, ...] = ()
    refs: Mapping[str, str] = field(default_factory=dict)  # target role → part whose result names it
    ref_types: Mapping[str, str] = field(default_factory=dict)  # target role → its entity type
    condition: Mapping[str, Any] | None = None  # {"part", "path", "op", "value"}


def _placeholder(part_id: str) -> str:
    return f"@result-of-{part_id}@"


def _renamed(value: Any, names: Mapping[str, str], placeholders: Mapping[str, str]) -> Any:
    """`value` with the part's own step references renamed and result placeholders made references."""
    if isinstance(value, str):
        if value in placeholders:
            return placeholders[value]
        return _STEP_REF.sub(lambda m: "${" + m.group(1) + "steps." + names.get(m.group(2), m.group(2)) + ".",
                             value)
    if isinstance(value, Mapping):
        return {k: _renamed(v, names, placeholders) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, names, placeholders) for v in value]
    return value


def _check(parts: Sequence[Part]) -> None:
    if not parts or len(parts) > MAX_PARTS:
        raise PlanInvalid([reason("COMPOUND_SIZE", None, parts=len(parts), most=MAX_PARTS)])
    seen: set[str] = set()
    for part in parts:
        earlier = set(part.depends_on) | set(part.refs.values())
        if part.condition is not None:
            earlier.add(str(part.condition.get("part")))
        if not _PART_ID.match(part.id) or part.id in seen:
            raise PlanInvalid([reason("COMPOUND_PART_ID", part.id)])
        unknown = earlier - seen  # only earlier parts: the order said is the order run, and no cycle
        if unknown:
            raise PlanInvalid([reason("COMPOUND_REFERENCE", part.id, unknown=sorted(unknown))])
        seen.add(part.id)


def _draft_part(part: Part, snapshot: RegistrySnapshot, tenant: Any) -> tuple[Draft, dict[str, str]]:
    placeholders = {}
    targets = dict(part.intent.targets)
    for role, source in part.refs.items():
        old = targets.get(role)
        targets[role] = TargetRef(type=old.type if old else part.ref_types.get(role, role), id=_placeholder(source))
        placeholders[_placeholder(source)] = source
    try:
        draft = draft_for(replace(part.intent, targets=targets), snapshot, tenant=tenant)
    except TemplateError as exc:
        raise PlanInvalid([reason(exc.code, part.id, **exc.detail)]) from exc
    if draft is None:
        raise PlanInvalid([reason("NO_PLAN_FOR_INTENT", part.id, intent=part.intent.name)])
    return draft, placeholders


def compound_steps(parts: Sequence[Part], snapshot: RegistrySnapshot, *, tenant: Any) -> list[dict[str, Any]]:
    """The plan steps of `parts` (see the module docstring); raises PlanInvalid for a bad structure."""
    _check(parts)
    last: dict[str, str] = {}
    steps: list[dict[str, Any]] = []
    written: set[str] = set()
    for part in parts:
        draft, placeholders = _draft_part(part, snapshot, tenant)
        names = {s["id"]: f"{part.id}_{s['id']}" for s in draft.steps}
        results = {p: "${steps." + last[source] + ".result.id}" for p, source in placeholders.items()}
        before = [last[p] for p in dict.fromkeys([*part.depends_on, *part.refs.values()])]
        condition = _condition(part.condition, last)
        for raw in draft.steps:
            step = _renamed({k: v for k, v in raw.items() if k != "targets"}, names, results)
            step["id"] = names[raw["id"]]
            step["targets"] = [t for t in raw.get("targets") or [] if str(t.get("id")) not in placeholders]
            own = [names[d] for d in raw.get("depends_on") or []]
            step["depends_on"] = own or list(before)
            if condition is not None and "condition" not in step:
                step["condition"] = condition
            _chain_revision(step, snapshot, tenant, written)
            steps.append(step)
        last[part.id] = names[draft.steps[-1]["id"]]
    return steps


def _condition(condition: Mapping[str, Any] | None, last: Mapping[str, str]) -> dict[str, Any] | None:
    if condition is None:
        return None
    path = str(condition.get("path") or "").strip(".")
    ref = "${steps." + last[str(condition["part"])] + ".result" + (f".{path}" if path else "") + "}"
    rule = {"ref": ref, "op": condition.get("op")}
    if "value" in condition:
        rule["value"] = condition["value"]
    return rule


def _chain_revision(step: dict[str, Any], snapshot: RegistrySnapshot, tenant: Any, written: set[str]) -> None:
    """A part writing an entity an earlier part wrote cannot know its revision at planning: it sends
    none (the executor still re-reads the facts and re-asks policy right before the call)."""
    keys = {f"{t.get('type')}:{t.get('id')}" for t in step["targets"]}
    if keys & written:
        step["input"].pop("expected_revision", None)
    spec = snapshot.get(step["capability"], tenant=tenant)
    if spec is not None and spec.kind == "write":
        written.update(keys)
