"""The deterministic planner: structured intent → steps, with no LLM (PRD-006 §10.1).

An intent whose name is an ACTIVE capability id becomes a single-step plan. Composite intents use
the templates below (PRD-006 §41's five scenarios, "add these N components", the conditional
renewal of §5.3 and "create and open" of §30). Templates only *arrange* registered capabilities:
every step still goes through `validation.validate_steps`.

Revisions (PRD-006 §26): the plan's first write to an existing target sends the revision pinned at
planning as If-Match; each later write to the same entity sends the revision the previous write
returned (`${steps.<prev>.result.revision}`). Sub-resource additions/removals cannot conflict with
each other and send none, so N independent additions never fail each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from registry.selectors import CapabilitySpec, RegistrySnapshot

from .batch import BATCH_SOURCE, batch_targets
from .intents import StructuredIntent, TargetRef

Step = dict[str, Any]


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


def step(step_id: str, capability: str, input: dict[str, Any], *, depends_on: list[str] | None = None,  # noqa: A002
         targets: list[TargetRef] | None = None, label: tuple[str, str] | None = None, **extra: Any) -> Step:
    """A draft step; its label comes from the capability (planning.labels) unless the template names one."""
    labelled = {"label": {"pt-BR": label[0], "en": label[1]}} if label else {}
    return {"id": step_id, "capability": capability, "input": input, "depends_on": depends_on or [],
            "targets": [t.to_dict() for t in targets or []], **labelled, **extra}


def _target(intent: StructuredIntent, role: str = "permit") -> TargetRef:
    target = intent.targets.get(role)
    if target is None:
        raise TemplateError("TARGET_MISSING", role=role)
    return target


def _slot(intent: StructuredIntent, name: str) -> Any:
    if intent.slots.get(name) in (None, "", []):
        raise TemplateError("SLOT_MISSING", slot=name)
    return intent.slots[name]


def _pin(target: TargetRef) -> dict[str, Any]:
    return {"expected_revision": target.revision} if target.revision is not None else {}


def sub_resource_change(spec: CapabilitySpec) -> bool:
    """Adding/removing a child (component, worker) cannot conflict with another such change."""
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
            values.update(_pin(target))
    return Draft(spec.id, [step("s1", spec.id, values, targets=targets)])


def open_permit(intent: StructuredIntent) -> Draft:
    permit = _target(intent)
    return Draft("workPermit.open", [
        step("read", "workPermit.read", {"permit_id": permit.id}, targets=[permit]),
        step("open", "navigation.workPermit.open", {"permit_id": "${steps.read.result.id}"}, depends_on=["read"]),
    ])


def add_components(intent: StructuredIntent) -> Draft:
    permit, keys = _target(intent), _slot(intent, "components")
    if not isinstance(keys, list):
        keys = [keys]
    steps = [step(f"add{i + 1}", "workPermit.components.add", {"permit_id": permit.id, "component": key},
                  targets=[permit]) for i, key in enumerate(keys)]
    return Draft("workPermit.components.addMany", steps, allow_partial=len(steps) > 1)


def _clone_steps(source: TargetRef, *, resolve_employee: Any = None) -> list[Step]:
    steps = [step("read", "workPermit.read", {"permit_id": source.id}, targets=[source])]
    create_deps = ["read"]
    if resolve_employee is not None:
        steps.append(step("resolve", "employee.read", {"employee_id": resolve_employee}))
        create_deps.append("resolve")
    steps += [
        step("create", "workPermit.create", {
            "company": "${steps.read.result.company.id}", "validity_days": "${steps.read.result.validity_days}",
            "responsible": "${steps.read.result.responsible.id}"}, depends_on=create_deps),
        step("copy", "workPermit.components.add",
             {"permit_id": "${steps.create.result.id}", "component": "${item.key}"},
             depends_on=["create"], for_each="${steps.read.result.components}",
             label=("Copiando componentes…", "Copying components…")),
    ]
    return steps


def _verify(after: str, assertions: list[dict[str, Any]]) -> Step:
    return step("verify", "workPermit.read", {"permit_id": "${steps.create.result.id}"}, depends_on=[after],
                postconditions=assertions)


def clone(intent: StructuredIntent) -> Draft:
    steps = _clone_steps(_target(intent))
    steps.append(_verify("copy", [
        {"path": "components", "op": "count_equals", "value": "${steps.read.result.components}"},
        {"path": "company.id", "op": "equals", "value": "${steps.read.result.company.id}"}]))
    return Draft("workPermit.clone", steps)


def clone_with_changes(intent: StructuredIntent) -> Draft:
    source = _target(intent)
    responsible, validity = intent.slots.get("responsible"), intent.slots.get("validity_days")
    if responsible is None and validity is None:
        raise TemplateError("SLOT_MISSING", slot="responsible|validity_days")
    steps = _clone_steps(source, resolve_employee=responsible)
    previous, revision = "copy", "${steps.copy.result.revision|steps.create.result.revision}"
    assertions: list[dict[str, Any]] = [
        {"path": "components", "op": "count_equals", "value": "${steps.read.result.components}"}]
    if responsible is not None:
        steps.append(step("update_responsible", "workPermit.update", {
            "permit_id": "${steps.create.result.id}", "responsible": "${steps.resolve.result.id}",
            "expected_revision": revision}, depends_on=[previous, "resolve"]))
        previous, revision = "update_responsible", "${steps.update_responsible.result.revision}"
        assertions.append({"path": "responsible.id", "op": "equals", "value": "${steps.resolve.result.id}"})
    if validity is not None:
        steps.append(step("update_validity", "workPermit.updateValidity", {
            "permit_id": "${steps.create.result.id}", "validity_days": validity, "expected_revision": revision},
            depends_on=[previous]))
        previous = "update_validity"
        assertions.append({"path": "validity_days", "op": "equals", "value": validity})
    steps.append(_verify(previous, assertions))
    return Draft("workPermit.cloneWithChanges", steps)


def renew_if_expired(intent: StructuredIntent) -> Draft:
    """PRD-006 §5.3: read, then renew the validity only if the permit is expired."""
    permit, validity = _target(intent), _slot(intent, "validity_days")
    revision = permit.revision if permit.revision is not None else "${steps.read.result.revision}"
    return Draft("workPermit.renewIfExpired", [
        step("read", "workPermit.read", {"permit_id": permit.id}, targets=[permit]),
        step("renew", "workPermit.updateValidity",
             {"permit_id": permit.id, "validity_days": validity, "expected_revision": revision},
             depends_on=["read"], targets=[permit], condition={"ref": "${steps.read.result}", "op": "expired"}),
    ])


def create_and_open(intent: StructuredIntent) -> Draft:
    """PRD-006 §30: create, then open it through the navigation capability (never a hand-built URL)."""
    fields = ("company", "number", "validity_days", "responsible", "components", "workers")
    values = {k: intent.slots[k] for k in fields if intent.slots.get(k) not in (None, "", [])}
    _slot(intent, "company")
    return Draft("workPermit.createAndOpen", [
        step("create", "workPermit.create", values),
        step("open", "navigation.workPermit.open", {"permit_id": "${steps.create.result.id}"}, depends_on=["create"]),
    ])


def evaluate_batch(intent: StructuredIntent) -> Draft:
    """PRD-034 §110: training, risk and compliance of every permit (independent), then each decision.

    `slots.permit_ids` is the scope resolved before planning (e.g. every DRAFT permit, read through
    `workPermit.search`); it becomes each batch step's pinned `targets`, so the runtime can never
    widen or change it. A permit whose checks fail is left out and reported (partial success).
    """
    ids = _slot(intent, "permit_ids")
    if not isinstance(ids, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
        raise TemplateError("SLOT_INVALID", slot="permit_ids")
    targets = batch_targets(sorted(set(ids)), "workPermit")
    item = {"permit_id": "${item.id}"}

    def batch_step(step_id: str, capability: str, input: dict[str, Any],  # noqa: A002
                   depends_on: list[str] | None = None) -> Step:
        return {**step(step_id, capability, input, depends_on=depends_on), "for_each": BATCH_SOURCE,
                "targets": [dict(t) for t in targets]}

    return Draft("workPermit.evaluateBatch", [
        batch_step("training", "workPermit.checkTraining", item),
        batch_step("risk", "workPermit.assessRisk", item),
        batch_step("compliance", "workPermit.checkCompliance", item),
        batch_step("decision", "workPermit.recordDecision", {
            **item, "trained": "${item.results.training.trained}", "risk_level": "${item.results.risk.level}",
            "compliant": "${item.results.compliance.compliant}"}, depends_on=["training", "risk", "compliance"]),
    ], allow_partial=True, meta={"batch": len(targets)})


TEMPLATES: dict[str, Callable[[StructuredIntent], Draft]] = {
    "workPermit.evaluateBatch": evaluate_batch,
    "workPermit.open": open_permit,
    "workPermit.components.addMany": add_components,
    "workPermit.clone": clone,
    "workPermit.cloneWithChanges": clone_with_changes,
    "workPermit.renewIfExpired": renew_if_expired,
    "workPermit.createAndOpen": create_and_open,
}


def draft_for(intent: StructuredIntent, snapshot: RegistrySnapshot, *, tenant: Any) -> Draft | None:
    """The deterministic draft for `intent`, or None when no template or capability fits."""
    if intent.name in TEMPLATES:
        return TEMPLATES[intent.name](intent)
    spec = snapshot.get(intent.name, tenant=tenant)
    return single(intent, spec) if spec is not None else None
