"""The deterministic planner: structured intent → steps, with no LLM (PRD-006 §10.1).

An intent whose name is a composite of the manifest (`composites:` in capabilities/*.yaml, carried by
the registry snapshot) is built from that definition; an intent whose name is an ACTIVE capability id
becomes a single-step plan. This module only interprets definitions — it names no capability, slot or
field, so a new composite is manifest data — and every step it builds still goes through
`validation.validate_steps`.

How a definition is read (the keys are described in registry/manifest_schema.py):
- `requires` is checked first, in order: the first missing target or slot is the error.
- a step with `when: <slot>` exists only when the intent has that slot; whoever depended on it depends
  on what it depended on instead, so an optional step can sit in the middle of a chain;
- a `repeat: <slot>` step is emitted once per value, with `${each}` and `${each.number}`;
- `${intent.slots.<slot>}` and `${intent.targets.<role>.<attr>}` are filled now; `${steps.…}` and
  `${item.…}` are the executor's. A value that resolves to nothing (an absent slot, a step left out)
  drops its key, and `{first_of: [...]}` takes the first candidate that resolves;
- `batch` pins the ids of one slot as every step's targets and runs each step once per target.
"""

from __future__ import annotations

import re
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from registry.selectors import CapabilitySpec, RegistrySnapshot, composite_definitions

from .batch import BATCH_SOURCE, batch_targets
from .intents import StructuredIntent, TargetRef
from .references import MISSING

Step = dict[str, Any]
_REF = re.compile(r"\$\{([^}]*)\}")
_STEP_NAMED = re.compile(r"^\s*steps\.([^.|]+)\.")
_TARGET_ATTRIBUTES = ("id", "revision", "type", "label")


class TemplateError(ValueError):
    """The intent lacks what the template needs (a slot or a target)."""

    def __init__(self, code: str, **detail: Any) -> None:
        super().__init__(code)
        self.code, self.detail = code, detail


@dataclass
class Draft:
    template: str
    steps: list[Step]
    allow_partial: bool = False
    meta: dict[str, Any] = field(default_factory=dict)


class _CompositeNames(Container[str]):
    """`name in TEMPLATES`: whether the manifest defines a composite of that name (no database read)."""

    def __contains__(self, name: object) -> bool:
        return name in composite_definitions()


TEMPLATES = _CompositeNames()


def _present(value: Any) -> bool:
    return value is not None and not (isinstance(value, str | list) and not value)


def sub_resource_change(spec: CapabilitySpec) -> bool:
    """Adding/removing a child (`<entity>.<children>.add`) cannot conflict with another such change."""
    parts = spec.id.split(".")
    return len(parts) >= 3 and parts[-1] in ("add", "remove")


def single(intent: StructuredIntent, spec: CapabilitySpec) -> Draft:
    """One capability: input = slots + the targets' ids under the capability's slot fields."""
    properties = spec.input_schema.get("properties", {})
    values = {k: v for k, v in intent.slots.items() if k in properties}
    targets = []
    for slot in spec.language.get("slots", []) if isinstance(spec.language, dict) else []:
        target = intent.targets.get(slot.get("name"))
        field_name = slot.get("field") or slot.get("name")
        if target is not None and field_name in properties:
            values.setdefault(field_name, target.id)
            targets.append(target)
    if spec.kind == "write" and "expected_revision" in properties and not sub_resource_change(spec):
        for target in targets:
            if target.revision is not None:
                values["expected_revision"] = target.revision
    step = {"id": "s1", "capability": spec.id, "input": values, "depends_on": [],
            "targets": [t.to_dict() for t in targets]}
    return Draft(spec.id, [step])


@dataclass(frozen=True)
class _Scope:
    """What a definition's values are resolved against: the intent, the steps left out, the repetition."""

    intent: StructuredIntent
    omitted: frozenset[str]
    each: Any = MISSING
    number: int | None = None


def _check_requires(rules: Sequence[Mapping[str, Any]], intent: StructuredIntent) -> None:
    for rule in rules:
        if "target" in rule and intent.targets.get(rule["target"]) is None:
            raise TemplateError("TARGET_MISSING", role=rule["target"])
        if "slot" in rule and not _present(intent.slots.get(rule["slot"])):
            raise TemplateError("SLOT_MISSING", slot=rule["slot"])
        if "any_slot" in rule and not any(_present(intent.slots.get(s)) for s in rule["any_slot"]):
            raise TemplateError("SLOT_MISSING", slot="|".join(rule["any_slot"]))


def _value(expression: str, scope: _Scope) -> Any:
    """A planning-time value, the executor's reference left as text, or MISSING."""
    root, _, rest = expression.strip().partition(".")
    if root == "each":
        return scope.number if rest == "number" else scope.each
    if root != "intent":
        named = {m[1] for alternative in expression.split("|") if (m := _STEP_NAMED.match(alternative))}
        return MISSING if named & scope.omitted else f"${{{expression}}}"
    kind, _, path = rest.partition(".")
    if kind == "slots":
        found = scope.intent.slots.get(path)
        return found if _present(found) else MISSING
    role, _, attribute = path.partition(".")
    target = scope.intent.targets.get(role)
    found = getattr(target, attribute) if target is not None and attribute in _TARGET_ATTRIBUTES else None
    return MISSING if found is None else found


def _resolve(value: Any, scope: _Scope) -> Any:
    """`value` with its planning-time references filled (a whole reference keeps the value's type)."""
    if isinstance(value, str):
        whole = _REF.fullmatch(value)
        if whole:
            return _value(whole[1], scope)
        parts = [(m, _value(m[1], scope)) for m in _REF.finditer(value)]
        if any(found is MISSING for _, found in parts):
            return MISSING
        for match, found in reversed(parts):
            value = value[:match.start()] + str(found) + value[match.end():]
        return value
    if isinstance(value, Mapping):
        if set(value) == {"first_of"}:
            return next((found for candidate in value["first_of"]
                         if (found := _resolve(candidate, scope)) is not MISSING), MISSING)
        return {k: found for k, v in value.items() if (found := _resolve(v, scope)) is not MISSING}
    if isinstance(value, list):
        return [found for item in value if (found := _resolve(item, scope)) is not MISSING]
    return value


def _dependencies(names: Sequence[str], by_id: Mapping[str, Mapping[str, Any]], omitted: frozenset[str]) -> list[str]:
    """`names`, each step left out replaced by its own dependencies (in order, once each)."""
    found: list[str] = []
    for name in names:
        for dependency in (_dependencies(by_id[name].get("depends_on") or (), by_id, omitted)
                           if name in omitted else [name]):
            if dependency not in found:
                found.append(dependency)
    return found


def _targets(roles: Sequence[str], intent: StructuredIntent) -> list[dict[str, Any]]:
    found: list[TargetRef] = []
    for role in roles:
        target = intent.targets.get(role)
        if target is None:
            raise TemplateError("TARGET_MISSING", role=role)
        found.append(target)
    return [t.to_dict() for t in found]


def _build(raw: Mapping[str, Any], scope: _Scope, by_id: Mapping[str, Mapping[str, Any]]) -> Step:
    step: Step = {"id": _resolve(raw["id"], scope), "capability": raw["capability"],
                  "input": _resolve(raw["input"], scope),
                  "depends_on": _dependencies(raw.get("depends_on") or (), by_id, scope.omitted),
                  "targets": _targets(raw.get("targets") or (), scope.intent)}
    if "label" in raw:
        step["label"] = dict(raw["label"])
    for key in ("for_each", "condition"):
        if key in raw:
            step[key] = _resolve(raw[key], scope)
    if "postconditions" in raw:
        kept = [{k: v for k, v in rule.items() if k != "when"} for rule in raw["postconditions"]
                if "when" not in rule or _present(scope.intent.slots.get(rule["when"]))]
        step["postconditions"] = _resolve(kept, scope)
    return step


def _repeated(raw: Mapping[str, Any], scope: _Scope) -> list[_Scope]:
    if "repeat" not in raw:
        return [scope]
    values = scope.intent.slots.get(raw["repeat"])
    values = values if isinstance(values, list) else [] if values is None else [values]
    return [_Scope(scope.intent, scope.omitted, each, number) for number, each in enumerate(values, 1)]


def _batch_targets(batch: Mapping[str, Any], intent: StructuredIntent) -> list[dict[str, Any]]:
    """The batch's scope, resolved before planning, pinned so the runtime can never widen or change it."""
    ids = intent.slots.get(batch["slot"])
    if not _present(ids):
        raise TemplateError("SLOT_MISSING", slot=batch["slot"])
    if not isinstance(ids, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
        raise TemplateError("SLOT_INVALID", slot=batch["slot"])
    return batch_targets(sorted(set(ids)), batch["type"])


def composite_draft(definition: Mapping[str, Any], intent: StructuredIntent) -> Draft:
    """The draft a composite definition of the manifest gives for `intent`."""
    _check_requires(definition.get("requires") or (), intent)
    batch = _batch_targets(definition["batch"], intent) if definition.get("batch") else None
    by_id = {raw["id"]: raw for raw in definition["steps"]}
    omitted = frozenset(raw["id"] for raw in definition["steps"]
                        if "when" in raw and not _present(intent.slots.get(raw["when"])))
    scope = _Scope(intent, omitted)
    steps = [_build(raw, each, by_id) for raw in definition["steps"] if raw["id"] not in omitted
             for each in _repeated(raw, scope)]
    meta: dict[str, Any] = {}
    if batch is not None:
        for step in steps:
            step.update(for_each=BATCH_SOURCE, targets=[dict(t) for t in batch])
        meta["batch"] = len(batch)
    partial = definition.get("allow_partial", False)
    return Draft(definition["name"], steps, allow_partial=len(steps) > 1 if partial == "several" else bool(partial),
                 meta=meta)


def draft_for(intent: StructuredIntent, snapshot: RegistrySnapshot, *, tenant: Any) -> Draft | None:
    """The deterministic draft for `intent`, or None when no composite or capability fits."""
    definition = snapshot.composites.get(intent.name)
    if definition is not None:
        return composite_draft(definition, intent)
    spec = snapshot.get(intent.name, tenant=tenant)
    return single(intent, spec) if spec is not None else None
