"""The rules a JSON Schema cannot express about the manifest's `composites:` (planning.templates).

A composite only arranges registered capabilities, so what is checked here is that its arrangement
can be built for any intent that meets its `requires`: every capability exists, step ids are unique,
dependencies and `${steps.<id>...}` references name its own steps, `${each}` appears only in a
`repeat` step, and every intent target it reads is one it requires. Whether the capabilities are
ACTIVE, and whether inputs fit their schemas, is decided at planning, as for any plan.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import jsonschema

from .manifest_schema import COMPOSITE

# Only the `composites:` of a file, so that the planner's read validates nothing else.
COMPOSITES_FILE = jsonschema.Draft202012Validator(
    {"type": "object", "properties": {"composites": {"type": "array", "items": COMPOSITE}}})
_REFERENCE = re.compile(r"\$\{([^}]*)\}")
_NAME = r"[a-z][a-zA-Z0-9_]*"
_INTENT = re.compile(rf"^intent\.(?:slots\.{_NAME}|targets\.({_NAME})\.(?:id|revision|type|label))$")
_STEP = re.compile(r"^steps\.([^.|]+)\.result")

Problem = tuple[str, str]  # (field, message)


def composite_problems(entry: Mapping[str, Any], capability_ids: set[str]) -> list[Problem]:
    """Every rule `entry` (schema-valid) breaks, as (field, message)."""
    found: list[Problem] = []
    if entry["name"] in capability_ids:
        found.append(("name", "a composite cannot share its name with a capability"))
    roles = {rule["target"] for rule in entry.get("requires") or () if "target" in rule}
    ids = {step["id"] for step in entry["steps"]}
    if len(ids) != len(entry["steps"]):
        found.append(("steps", "step ids repeat"))
    earlier: set[str] = set()
    for index, step in enumerate(entry["steps"]):
        found += [(f"steps[{index}].{f}", m) for f, m in _step_problems(step, entry, capability_ids, roles, ids,
                                                                            earlier)]
        earlier.add(step["id"])
    return found


def _step_problems(step: Mapping[str, Any], entry: Mapping[str, Any], capability_ids: set[str], roles: set[str],
                   ids: set[str], earlier: set[str]) -> list[Problem]:
    found: list[Problem] = []
    if step["capability"] not in capability_ids:
        found.append(("capability", f"unknown capability {step['capability']!r}"))
    found += [("depends_on", f"{dep!r} is not an earlier step") for dep in step.get("depends_on") or ()
              if dep not in earlier]
    found += [("targets", f"target {role!r} is not required") for role in step.get("targets") or ()
              if role not in roles]
    if "${each.number}" in step["id"] and "repeat" not in step:
        found.append(("id", "only a repeat step numbers its id"))
    if entry.get("batch") and {"repeat", "targets", "for_each"} & set(step):
        found.append(("batch", "a batch step takes its targets and for_each from the batch"))
    values = [step.get(key) for key in ("input", "condition", "postconditions", "for_each")]
    for expression in _references(values):
        found += [("input", m) for m in _reference_problems(expression, step, roles, ids)]
    return found


def _reference_problems(expression: str, step: Mapping[str, Any], roles: set[str], ids: set[str]) -> list[str]:
    if expression in ("each", "each.number"):
        return [] if "repeat" in step else ["${each} outside a repeat step"]
    if expression.startswith("intent"):
        match = _INTENT.match(expression)
        if match is None:
            return [f"malformed ${{{expression}}}"]
        return [f"target {match[1]!r} is not required"] if match[1] and match[1] not in roles else []
    steps = [m[1] for alternative in expression.split("|") if (m := _STEP.match(alternative.strip()))]
    return [f"${{{expression}}} names no step of the composite" for s in steps if s not in ids]


def _references(values: Iterable[Any]) -> Iterable[str]:
    for value in values:
        if isinstance(value, str):
            yield from _REFERENCE.findall(value)
        elif isinstance(value, Mapping):
            yield from _references(value.values())
        elif isinstance(value, list):
            yield from _references(value)
