"""Planning services: intent → validated, hashed, stored plan (PRD-006 §5-§13).

`plan_from_intent` picks the deterministic path (a template or a single capability) and falls
back to the LLM planner only when neither fits and an LLM is configured (AC-15/AC-16). Both paths
end in `plan_from_steps`: validation, target pins, risk = MAX(step risks), confirmation need, the
canonical hash and one transaction storing the plan. A plan that fails validation raises
`PlanInvalid(reasons)` and stores nothing.
"""

from __future__ import annotations

import graphlib
import uuid
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection

from policy.canonical import CanonicalizationError, canonical_hash
from policy.rules import LEVEL_FOR_RISK, RISK_RANK, step_risk
from registry.selectors import RegistrySnapshot, registry_snapshot
from tenancy import clock
from tenancy.db import defer_write, write_in_one_statement
from tenancy.models import Tenant

from .compound import Part, compound_steps
from .exceptions import PlanInvalid
from .intents import StructuredIntent
from .labels import step_label
from .llm import LLMUnavailable, configured_planner
from .metrics import planning_observed
from .models import ExecutionPlan, PlanStatus, PlanStep
from .remaining import remaining_steps
from .selectors import stored_steps
from .templates import Draft, TemplateError, draft_for, sub_resource_change
from .validation import reason, validate_steps

HASHED_FIELDS = ("id", "capability", "version", "input", "depends_on", "for_each", "condition", "preconditions",
                 "postconditions", "targets")


def plan_ttl() -> timedelta:
    return timedelta(seconds=settings.PLAN_TTL_SECONDS)


def plan_hash(*, template: str, steps: Sequence[Mapping[str, Any]], allow_partial: bool) -> str:
    """Same intent, same targets, same capability versions → same hash (a retry reuses a soft confirmation)."""
    return canonical_hash({"template": template, "allow_partial": allow_partial,
                           "steps": [{k: s.get(k) for k in HASHED_FIELDS} for s in steps]})


@planning_observed
def plan_from_intent(*, tenant: Tenant, actor: Any, intent: StructuredIntent, conversation_id: uuid.UUID | None = None,
                     pins: Mapping[str, int] | None = None) -> ExecutionPlan:
    """The validated plan for `intent`. `pins` maps `"<type>:<id>"` → revision read at planning."""
    snapshot = registry_snapshot()
    try:
        draft = draft_for(intent, snapshot, tenant=tenant)
    except TemplateError as exc:
        raise PlanInvalid([reason(exc.code, None, **exc.detail)]) from exc
    planner = "deterministic"
    if draft is None:
        draft, planner = _llm_draft(intent, snapshot, tenant=tenant, actor=actor), "llm"
    return plan_from_steps(tenant=tenant, actor=actor, steps=draft.steps, template=draft.template, intent=intent,
                           allow_partial=draft.allow_partial, conversation_id=conversation_id, pins=pins,
                           planner=planner, snapshot=snapshot)


def plan_from_parts(*, tenant: Tenant, actor: Any, parts: Sequence[Part], text: str = "", language: str = "pt-BR",
                    conversation_id: uuid.UUID | None = None, pins: Mapping[str, int] | None = None) -> ExecutionPlan:
    """One validated plan for a compound request (planning.compound): the structure came from the LLM,
    each part is planned deterministically, and the whole is validated like any plan."""
    snapshot = registry_snapshot()
    steps = compound_steps(parts, snapshot, tenant=tenant)
    intent = StructuredIntent(name="compound", slots={"parts": [p.intent.name for p in parts]}, language=language,
                              text=text)
    return plan_from_steps(tenant=tenant, actor=actor, steps=steps, template="llm:compound", intent=intent,
                           allow_partial=False, conversation_id=conversation_id, pins=pins, planner="llm",
                           snapshot=snapshot)


def plan_remaining(*, tenant: Tenant, actor: Any, plan: ExecutionPlan, done: Mapping[str, Any],
                   conversation_id: uuid.UUID | None = None) -> ExecutionPlan:
    """A new plan of what `plan` did not complete (planning.remaining); `done`: step id → its result."""
    steps = remaining_steps(list(PlanStep.objects.for_tenant(tenant).filter(plan=plan)), done)
    if not steps:
        raise PlanInvalid([reason("NOTHING_LEFT", None)])
    intent = StructuredIntent(name=f"remaining:{plan.template}"[:100], slots={"of_plan": str(plan.pk)},
                              language=plan.language, text=str((plan.intent or {}).get("text", "")))
    return plan_from_steps(tenant=tenant, actor=actor, steps=steps, template=f"remaining:{plan.template}"[:100],
                           intent=intent, allow_partial=plan.allow_partial, conversation_id=conversation_id,
                           planner=plan.planner)


def _llm_draft(intent: StructuredIntent, snapshot: RegistrySnapshot, *, tenant: Tenant, actor: Any) -> Draft:
    llm = configured_planner()
    if llm is None:
        raise PlanInvalid([reason("NO_PLAN_FOR_INTENT", None, intent=intent.name)])
    from tenancy.selectors import membership_get

    membership = membership_get(user=actor, tenant_id=tenant.pk)
    capabilities = snapshot.discoverable_for(tenant=tenant, role=membership.role if membership else "")
    try:
        answer = llm.plan(intent=intent, capabilities=capabilities)
    except LLMUnavailable as exc:
        raise PlanInvalid([reason("LLM_PLAN_UNUSABLE", None, error=str(exc)[:200])]) from exc
    return Draft(f"llm:{intent.name}"[:100], answer["steps"], allow_partial=answer["allow_partial"])


def _order(steps: Sequence[Mapping[str, Any]]) -> list[str]:
    graph = {s["id"]: set(s.get("depends_on") or []) for s in steps}
    sorter = graphlib.TopologicalSorter(graph)
    return list(sorter.static_order())


def _derived_targets(step: Mapping[str, Any], spec: Any) -> list[dict[str, Any]]:
    """A step without targets acts on the entities its input names by id (the capability's reference slots)."""
    return spec.targets_in(step.get("input") or {}) if spec is not None else []


def _pin_targets(steps: list[dict[str, Any]], snapshot: RegistrySnapshot, tenant: Tenant,
                 pins: Mapping[str, int]) -> None:
    """A target keeps its planning revision until the first write on it; later steps see it changed by us."""
    by_id = {s["id"]: s for s in steps}
    written: set[str] = set()
    for step_id in _order(steps):
        step = by_id[step_id]
        spec = snapshot.get(step["capability"], tenant=tenant)
        is_write = spec is not None and spec.kind == "write"
        targets = []
        for target in step.get("targets") or _derived_targets(step, spec):
            key = f"{target['type']}:{target['id']}"
            target = {k: v for k, v in target.items() if k in ("type", "id", "revision", "args")}
            if key in pins:
                target["revision"] = pins[key]
            if key in written or (is_write and sub_resource_change(spec)):
                target.pop("revision", None)
            if is_write:
                written.add(key)
            targets.append(target)
        step["targets"] = targets


def _normalise(steps: Sequence[Mapping[str, Any]], snapshot: RegistrySnapshot, tenant: Tenant) -> list[dict]:
    normalised = []
    for raw in steps:
        step = dict(raw)
        spec = snapshot.get(step.get("capability", ""), tenant=tenant) if isinstance(step.get("capability"),
                                                                                      str) else None
        step.setdefault("depends_on", [])
        step.setdefault("input", {})
        if spec is not None:
            step.setdefault("version", spec.version)
            step["compensation"] = dict(spec.compensation) if spec.compensation else None
        step.setdefault("label", step_label(spec, str(step.get("id"))))
        normalised.append(step)
    return normalised


@planning_observed
def plan_from_steps(*, tenant: Tenant, actor: Any, steps: Sequence[Mapping[str, Any]], template: str,
                    intent: StructuredIntent | None = None, allow_partial: bool = False,
                    conversation_id: uuid.UUID | None = None, pins: Mapping[str, int] | None = None,
                    planner: str = "deterministic", snapshot: RegistrySnapshot | None = None) -> ExecutionPlan:
    snapshot = snapshot or registry_snapshot()
    drafts = _normalise(steps, snapshot, tenant)
    problems = validate_steps(drafts, snapshot=snapshot, tenant=tenant)
    if problems:
        raise PlanInvalid(problems)
    _pin_targets(drafts, snapshot, tenant, pins or {})
    risks = [_risk(s, snapshot, tenant) for s in drafts]
    risk = max(risks, key=RISK_RANK.__getitem__)
    try:
        digest = plan_hash(template=template, steps=drafts, allow_partial=allow_partial)
    except CanonicalizationError as exc:
        raise PlanInvalid([reason("INPUT_NOT_CANONICAL", None, error=str(exc))]) from exc
    intent = intent or StructuredIntent(name=template)
    requires_confirmation = LEVEL_FOR_RISK[risk] != "none"
    now = clock.now()
    plan = ExecutionPlan(
        tenant=tenant, intent_id=intent.id, intent=intent.to_dict(), template=template, planner=planner,
        actor=actor, conversation_id=conversation_id, language=intent.language, risk=risk,
        requires_confirmation=requires_confirmation, allow_partial=allow_partial, canonical_hash=digest,
        status=PlanStatus.AWAITING_CONFIRMATION if requires_confirmation else PlanStatus.APPROVED,
        created_at=now, validated_at=now, expires_at=now + plan_ttl(),
    )
    steps = [PlanStep(tenant=tenant, plan=plan, step_id=s["id"], position=i, capability_id=s["capability"],
                      capability_version=s["version"], kind=snapshot.require(s["capability"]).kind, risk=r,
                      depends_on=s["depends_on"], input=s["input"], for_each=s.get("for_each") or "",
                      condition=s.get("condition"), preconditions=s.get("preconditions") or [],
                      postconditions=s.get("postconditions") or [], compensation=s.get("compensation"),
                      targets=s["targets"], label=s["label"])
             for i, (s, r) in enumerate(zip(drafts, risks, strict=True))]
    # The plan and its steps in one statement (both or neither; inside a turn it rides on the turn's next
    # write: tenancy.db.coalesced_writes). The steps' own ids are left to the database: nothing reads them.
    write_in_one_statement([plan], steps)
    stored_steps.remember(tenant.pk, plan.pk, steps)
    return plan


def _risk(step: Mapping[str, Any], snapshot: RegistrySnapshot, tenant: Tenant) -> str:
    spec = snapshot.require(step["capability"], tenant=tenant)
    risk, _ = step_risk(declared=spec.risk_level, capability_key=spec.id, target_count=len(step.get("targets", [])))
    return risk


_PLAN_TRANSITIONS: dict[str, set[str]] = {
    PlanStatus.AWAITING_CONFIRMATION: {PlanStatus.APPROVED, PlanStatus.RUNNING, PlanStatus.CANCELLED},
    PlanStatus.APPROVED: {PlanStatus.RUNNING, PlanStatus.CANCELLED},
    PlanStatus.RUNNING: {PlanStatus.VERIFYING, PlanStatus.COMPLETED, PlanStatus.PARTIALLY_COMPLETED,
                         PlanStatus.FAILED, PlanStatus.CANCELLED, PlanStatus.COMPENSATING},
    PlanStatus.VERIFYING: {PlanStatus.RUNNING, PlanStatus.COMPLETED, PlanStatus.FAILED,
                           PlanStatus.PARTIALLY_COMPLETED, PlanStatus.CANCELLED, PlanStatus.COMPENSATING},
    PlanStatus.COMPENSATING: {PlanStatus.COMPENSATED, PlanStatus.FAILED},
}


# The statuses a plan waits in before it runs (a VERIFYING plan goes back to RUNNING, but it has started).
_WAITING = (PlanStatus.AWAITING_CONFIRMATION, PlanStatus.APPROVED)


class IllegalTransition(RuntimeError):
    pass


def plan_start(*, plan: ExecutionPlan, defer: bool = False) -> bool:
    """Move a waiting plan to RUNNING in one conditional UPDATE; False if it is not waiting any more
    (already started by a concurrent confirmation, cancelled or settled).

    `defer` (inside `tenancy.db.coalesced_writes`): queue the UPDATE to ride on the transaction's
    next write and answer True now; if it then changes no row, that write raises
    `DeferredCheckFailed("PLAN_NOT_WAITING")` and the caller redoes its transaction without `defer`."""
    if connection.vendor == "postgresql":  # the hot path of a confirmation: no query to compile
        sql = (f"UPDATE {ExecutionPlan._meta.db_table} SET status = %s "
               "WHERE tenant_id = %s AND id = %s AND status = ANY(%s)")
        params = [PlanStatus.RUNNING.value, plan.tenant_id, plan.pk, [s.value for s in _WAITING]]
        if defer and defer_write(sql, params, ExecutionPlan._meta.db_table, expect="PLAN_NOT_WAITING"):
            plan.status = PlanStatus.RUNNING
            return True
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            updated = cursor.rowcount
    else:
        updated = ExecutionPlan.objects.for_tenant(plan.tenant_id).filter(pk=plan.pk, status__in=_WAITING).update(
            status=PlanStatus.RUNNING)
    if updated == 1:
        plan.status = PlanStatus.RUNNING
    return updated == 1


def plan_status_move(*, tenant_id: Any, plan_id: Any, status: str) -> bool:
    """Move a plan to `status` in one conditional UPDATE, from any status its table lets reach it; False when the
    plan was in none of them (already there, or moved where it cannot follow). Settling mirrors every
    execution's end with it: a read of the status first was one statement more per execution."""
    sources = [s for s, targets in _PLAN_TRANSITIONS.items() if status in targets]
    return ExecutionPlan.objects.for_tenant(tenant_id).filter(pk=plan_id, status__in=sources).update(
        status=status) == 1


def plan_status_set(*, plan: ExecutionPlan, status: str) -> ExecutionPlan:
    """Move a plan along its state machine with a conditional UPDATE; an illegal move raises."""
    if status == plan.status:
        return plan
    if status not in _PLAN_TRANSITIONS.get(plan.status, set()):
        raise IllegalTransition(f"plan {plan.status} → {status}")
    updated = ExecutionPlan.objects.for_tenant(plan.tenant_id).filter(pk=plan.pk, status=plan.status).update(
        status=status)
    if updated != 1:
        raise IllegalTransition(f"plan {plan.pk} changed concurrently")
    plan.status = status
    return plan
