"""Plan validation before anything runs (PRD-006 §11). Every problem found is reported.

Checks: step ids well formed and unique; capability exists, is ACTIVE (not blocked for the tenant)
and at the version pinned; dependencies exist and form no cycle (stdlib `graphlib`); every
reference points to a step that runs earlier (a transitive dependency) and to a path its
capability declares in its output schema; `${item...}` only in a `for_each` step; the input,
with each reference replaced by a witness value of the referenced schema, matches the capability's
input JSON Schema; conditions/assertions use known ops; no forbidden operation (an input naming a
tenant or a user — those come from authentication only —, a navigation step given a route or URL,
a compensation the capability does not declare).
"""

from __future__ import annotations

import graphlib
import re
from collections.abc import Mapping, Sequence
from typing import Any

from registry.selectors import RegistrySnapshot

from .batch import batch_item_schema, batch_problems, is_batch
from .conditions import OPS
from .references import MISSING, REF, Ref, ReferenceError_, alternatives, get_path, refs_in, resolve

_STEP_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,99}$")
FORBIDDEN_INPUT_KEYS = frozenset({"tenant", "tenant_id", "tenantId", "actor", "user", "user_id", "userId"})
KINDS = frozenset({"read", "write", "navigation"})


def reason(code: str, step_id: str | None = None, **detail: Any) -> dict[str, Any]:
    return {"code": code, "step_id": step_id, **({"detail": detail} if detail else {})}


def _schema_at(schema: Any, path: str) -> tuple[bool, Any]:
    """(declared?, schema at `path`) in an output schema; undeclared depths below a free object are allowed."""
    node = schema if isinstance(schema, Mapping) else {}
    for segment in [s for s in path.split(".") if s] if path else []:
        name, _, rest = segment.partition("[")
        if name:
            props = node.get("properties")
            if isinstance(props, Mapping):
                if name not in props:
                    return False, None
                node = props[name]
            else:
                return True, {}
        for _ in range(segment.count("[")):
            items = node.get("items") if isinstance(node, Mapping) else None
            node = items if isinstance(items, Mapping) else {}
            if "[*]" in segment:
                node = {"type": "array", "items": node}
        del rest
    return True, node


def witness(schema: Any) -> Any:
    """A value that satisfies the simple type of `schema` (None when it says nothing)."""
    if not isinstance(schema, Mapping):
        return None
    if "enum" in schema and schema["enum"]:
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    minimum = schema.get("minimum", 1)
    return {"integer": max(1, int(minimum)), "number": max(1, minimum), "string": "x" * max(1, schema.get(
        "minLength", 1)), "boolean": True, "array": [], "object": {}}.get(kind)


class _Context:
    def __init__(self, steps: Sequence[Mapping[str, Any]], snapshot: RegistrySnapshot, tenant: Any) -> None:
        self.by_id = {s.get("id"): s for s in steps if isinstance(s.get("id"), str)}
        self.snapshot, self.tenant = snapshot, tenant
        self.ancestors: dict[str, set[str]] = {}

    def spec(self, step_id: str):
        step = self.by_id.get(step_id)
        return self.snapshot.get(step.get("capability", ""), tenant=self.tenant) if step else None


def validate_steps(steps: Sequence[Mapping[str, Any]], *, snapshot: RegistrySnapshot, tenant: Any) -> list[dict]:
    if not steps:
        return [reason("PLAN_EMPTY")]
    ctx = _Context(steps, snapshot, tenant)
    reasons = _structure(steps, ctx)
    graph = {s["id"]: set(s.get("depends_on") or []) for s in steps if s.get("id") in ctx.by_id}
    try:
        order = list(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as exc:
        return [*reasons, reason("DEPENDENCY_CYCLE", None, cycle=list(exc.args[1]))]
    for step_id in order:
        deps = graph.get(step_id, set())
        ctx.ancestors[step_id] = set(deps).union(*(ctx.ancestors.get(d, set()) for d in deps))
    for step in steps:
        if step.get("id") in ctx.by_id:
            reasons += _step(step, ctx)
    return reasons


def _structure(steps: Sequence[Mapping[str, Any]], ctx: _Context) -> list[dict]:
    reasons: list[dict] = []
    seen: set[str] = set()
    for index, step in enumerate(steps):
        step_id = step.get("id")
        if not isinstance(step_id, str) or not _STEP_ID.match(step_id):
            reasons.append(reason("STEP_ID_INVALID", None, index=index))
            continue
        if step_id in seen:
            reasons.append(reason("STEP_ID_DUPLICATE", step_id))
        seen.add(step_id)
        deps = step.get("depends_on") or []
        if not isinstance(deps, list) or not all(isinstance(d, str) for d in deps):
            reasons.append(reason("DEPENDS_ON_INVALID", step_id))
            continue
        for dep in deps:
            if dep not in ctx.by_id:
                reasons.append(reason("DEPENDENCY_UNKNOWN", step_id, depends_on=dep))
    return reasons


def _step(step: Mapping[str, Any], ctx: _Context) -> list[dict]:
    step_id, capability = step["id"], step.get("capability")
    spec = ctx.snapshot.get(capability, tenant=ctx.tenant) if isinstance(capability, str) else None
    if spec is None:
        return [reason("CAPABILITY_UNAVAILABLE", step_id, capability=capability)]
    reasons: list[dict] = []
    version = step.get("version")
    if version is not None and version != spec.version:
        reasons.append(reason("CAPABILITY_VERSION_STALE", step_id, pinned=version, active=spec.version))
    if spec.kind not in KINDS:
        reasons.append(reason("FORBIDDEN_OPERATION", step_id, kind=spec.kind))
    step_input = step.get("input", {})
    if not isinstance(step_input, Mapping):
        return [*reasons, reason("INPUT_INVALID", step_id, error="input must be an object")]
    forbidden = FORBIDDEN_INPUT_KEYS & set(step_input)
    if forbidden:
        reasons.append(reason("FORBIDDEN_OPERATION", step_id, fields=sorted(forbidden)))
    if spec.kind == "navigation" and {"route", "url", "href"} & set(step_input):
        reasons.append(reason("FORBIDDEN_OPERATION", step_id, fields=["route"]))
    if step.get("compensation") not in (None, spec.compensation):
        reasons.append(reason("FORBIDDEN_OPERATION", step_id, compensation="not declared by the capability"))
    item_schema, for_each_reasons = _for_each(step, ctx)
    reasons += for_each_reasons
    refs_ok, ref_reasons = _references(step, ctx, item_schema)
    reasons += ref_reasons
    reasons += _conditions(step)
    if refs_ok:
        reasons += _schema(step, spec, ctx, item_schema)
    return reasons


def _ref_schema(ref: Ref, ctx: _Context, item_schema: Any) -> tuple[bool, Any]:
    if ref.root == "item":
        return (True, {}) if item_schema is None else _schema_at(item_schema, ref.path)
    spec = ctx.spec(ref.step_id or "")
    if spec is None:
        return False, None
    if ctx.by_id[ref.step_id].get("for_each"):
        return _schema_at(for_each_output(spec.output_schema), ref.path)
    return _schema_at(spec.output_schema, ref.path)


def for_each_output(item_schema: Any) -> dict[str, Any]:
    """A `for_each` step's result: every call's result, how many, and the last parent revision seen."""
    return {"type": "object", "properties": {"items": {"type": "array", "items": item_schema},
                                             "count": {"type": "integer"}, "revision": {"type": "integer"}}}


def _for_each(step: Mapping[str, Any], ctx: _Context) -> tuple[Any, list[dict]]:
    source = step.get("for_each")
    if not source:
        return None, []
    if is_batch(step):
        problems = batch_problems(step)
        if problems:
            return None, [reason(code, step["id"]) for code in problems]

        def output_schema_of(step_id: str) -> Any:
            spec = ctx.spec(step_id)
            return spec.output_schema if spec is not None else None

        return batch_item_schema(step, ctx.by_id, output_schema_of), []
    match = REF.fullmatch(source) if isinstance(source, str) else None
    try:
        ref = parse_single(match.group(1)) if match else None
    except ReferenceError_:
        ref = None
    if ref is None or ref.root != "steps":
        return None, [reason("FOR_EACH_INVALID", step["id"])]
    problem = _ref_problem(step["id"], ref, ctx)
    if problem:
        return None, [problem]
    _, schema = _ref_schema(ref, ctx, None)
    items = schema.get("items") if isinstance(schema, Mapping) else None
    if not isinstance(schema, Mapping) or (schema and schema.get("type") not in ("array", None)):
        return None, [reason("FOR_EACH_NOT_A_LIST", step["id"], ref=ref.text)]
    return items if isinstance(items, Mapping) else {}, []


def parse_single(expression: str) -> Ref:
    refs = alternatives(expression)
    if len(refs) != 1:
        raise ReferenceError_("one reference expected")
    return refs[0]


def _ref_problem(step_id: str, ref: Ref, ctx: _Context) -> dict | None:
    if ref.root != "steps":
        return None
    if ref.step_id not in ctx.by_id:
        return reason("REFERENCE_UNKNOWN_STEP", step_id, ref=ref.text)
    if ref.step_id not in ctx.ancestors.get(step_id, set()):
        return reason("REFERENCE_NOT_EARLIER", step_id, ref=ref.text)
    declared, _ = _ref_schema(ref, ctx, None)
    if not declared:
        return reason("REFERENCE_UNDECLARED_OUTPUT", step_id, ref=ref.text)
    return None


def _references(step: Mapping[str, Any], ctx: _Context, item_schema: Any) -> tuple[bool, list[dict]]:
    reasons: list[dict] = []
    values = [step.get("input", {}), step.get("condition"), step.get("postconditions"), step.get("preconditions")]
    try:
        refs = [r for v in values for r in refs_in(v)]
    except ReferenceError_ as exc:
        return False, [reason("REFERENCE_MALFORMED", step["id"], error=str(exc))]
    for ref in refs:
        if ref.root == "item" and item_schema is None:
            reasons.append(reason("REFERENCE_ITEM_OUTSIDE_FOR_EACH", step["id"]))
        elif ref.root in ("input", "result"):
            reasons.append(reason("REFERENCE_MALFORMED", step["id"], ref=ref.text))
        else:
            problem = _ref_problem(step["id"], ref, ctx)
            if problem:
                reasons.append(problem)
    return not reasons, reasons


def _conditions(step: Mapping[str, Any]) -> list[dict]:
    rules = [*(step.get("preconditions") or []), *(step.get("postconditions") or [])]
    if step.get("condition") is not None:
        rules.append(step["condition"])
    for rule in rules:
        if not isinstance(rule, Mapping) or rule.get("op") not in OPS:
            return [reason("CONDITION_INVALID", step["id"])]
    condition = step.get("condition")
    if condition is not None and not (isinstance(condition.get("ref"), str) and REF.fullmatch(condition["ref"])):
        return [reason("CONDITION_INVALID", step["id"], error="a condition needs a ${...} ref")]
    return []


def _schema(step: Mapping[str, Any], spec: Any, ctx: _Context, item_schema: Any) -> list[dict]:
    """The input against the capability's schema; a batch step whose input reads its targets' own
    `args` is checked once per target, with that target's values (a witness cannot stand for them)."""
    reads_args = is_batch(step) and any(r.root == "item" and r.path.split(".")[0] == "args"
                                        for r in refs_in(step.get("input", {})))
    for target in step.get("targets") or [] if reads_args else [None]:
        found = _schema_of(step, spec, ctx, item_schema, target)
        if found:
            return found
    return []


def _schema_of(step: Mapping[str, Any], spec: Any, ctx: _Context, item_schema: Any,
               target: Mapping[str, Any] | None) -> list[dict]:
    properties = spec.input_schema.get("properties", {}) if isinstance(spec.input_schema, Mapping) else {}

    def lookup_for(field: str):
        def lookup(ref: Ref) -> Any:
            if target is not None and ref.root == "item" and ref.path.split(".")[0] == "args":
                value = get_path(target, ref.path)
                return None if value is MISSING else value  # absent: the field is missing, as it would be
            _, schema = _ref_schema(ref, ctx, item_schema)
            value = witness(schema)
            return value if value is not None else witness(properties.get(field))
        return lookup

    candidate = {k: resolve(v, lookup_for(k)) for k, v in step.get("input", {}).items()}
    candidate = {k: v for k, v in candidate.items() if v is not None}
    errors = sorted(spec.input_validator.iter_errors(candidate), key=lambda e: list(e.path))
    return [reason("INPUT_INVALID", step["id"], field=".".join(map(str, e.path)) or None, error=e.message)
            for e in errors]


