"""Runtime replanning (PRD-034 §55-§60, §65-§69, §115-§116): local adaptation is not enough for a
batch step any more. Three triggers (§56; when each fires: execution/replan_triggers.py):

- RESOURCE_UNAVAILABLE — the step's resource is gone (breaker open) and no registered fallback is
  left, after waiting `RUNTIME_REPLAN_AFTER_SECONDS` (a local, safe adaptation first, §57);
- RATE_LIMITED — the same, but what closed the route was the API refusing with 429s, persistently:
  the execution's retry budget is spent on them, so waiting out the window is not tried first;
- CONTRACT_CHANGED — the capability's pinned version is no longer the registry's ACTIVE one (a
  version's definition and its hash are immutable once approved, so a changed contract is a new
  version): the alternative is the same remaining work on the ACTIVE version (UPGRADE), always
  material — the user confirms the new contract.

The runtime asks the planner (planning.replan) for an alternative over what is left and classifies
the change with a PlanChangeImpact (§59):

- **non-material** — the alternative is part of the approved plan (same steps, capabilities,
  versions, inputs and resources; no risk or scope increase; dropping items only where the plan
  allows partial success): the execution goes on under the same receipt (CONTINUED) and the blocked
  items are deferred, reported as such.
- **material** — anything else (changed or new steps, new resources or capabilities, more risk or
  scope, or a partial result the plan did not allow): a new plan is stored, policy evaluates it anew
  and the user must confirm it (REAPPROVAL_REQUIRED, §60). The conversation asks when this execution
  settles (conversations.batch.batch_replan_ask, a completion hook); "sim" starts the new plan under
  its own receipt. Nothing of it runs before.
- **none** — WAITING_RESOURCE until `RUNTIME_MAX_WAIT_SECONDS`, then human review (§116).

Limits (§65-§69): a replan is counted against the execution's `max_replans`, a planner LLM call
against `max_llm_calls`, and a replacement plan may be at most `max_depth` replans away from the
user's own plan; past a limit the replan is REFUSED and a person reviews (never silent continuation).
Every replan is an append-only RuntimeReplan row (its `trigger` says which), a REPLAN_REQUESTED and a
REPLAN_DECIDED event.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from django.conf import settings

from planning.batch import is_batch
from planning.models import PlanStep
from planning.replan import Alternative, Progress, deferral, llm_alternative, remaining_targets, standalone, steps_risk
from policy.rules import RISK_RANK
from registry.selectors import registry_snapshot
from tenancy import clock

from .facts import plan_facts
from .models import BatchItem, Execution, ItemStatus, ReplanOutcome, RuntimeReplan, RuntimeStatus, TimelineType
from .runtime_state import llm_call_take, replan_take, runtime_ensure, runtime_transition


@dataclass(frozen=True)
class PlanChangeImpact:
    changed_steps: tuple[str, ...]
    changed_resources: tuple[str, ...]
    risk_delta: int
    scope_delta: int
    authorization_impact: bool
    deferred_steps: tuple[str, ...] = ()
    partial_not_allowed: bool = False

    @property
    def requires_reapproval(self) -> bool:
        """Material: anything but a part of the approved work (§57, §59-§60)."""
        return bool(self.changed_steps or self.changed_resources or self.risk_delta > 0 or self.scope_delta > 0
                    or self.authorization_impact or self.partial_not_allowed)

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "requires_reapproval": self.requires_reapproval}


def _sig(step: dict[str, Any]) -> tuple:
    return (step.get("capability"), step.get("version"), json.dumps(step.get("input"), sort_keys=True),
            tuple(sorted(step.get("depends_on") or [])), step.get("for_each") or "")


def _targets(steps: list[dict[str, Any]]) -> set[tuple[str, Any]]:
    return {(t["type"], t["id"]) for s in steps for t in s.get("targets", [])}


def plan_change_impact(old: list[dict[str, Any]], new: list[dict[str, Any]], *, old_risk: int, new_risk: int,
                       resources_of: Callable[[dict[str, Any]], str], allow_partial: bool = True
                       ) -> PlanChangeImpact:
    """Compare the approved work still to do (`old`) with an alternative (`new`), steps as
    {id, capability, version, input, depends_on, for_each, targets} (§59). A step of `old` missing
    from `new`, or with fewer targets, is deferred, not changed."""
    by_old, by_new = {s["id"]: s for s in old}, {s["id"]: s for s in new}
    changed = tuple(sorted(i for i in by_new if i not in by_old or _sig(by_old[i]) != _sig(by_new[i])))
    deferred = tuple(sorted(i for i in by_old if i not in by_new
                            or _targets([by_old[i]]) - _targets([by_new[i]])))
    old_targets, new_targets = _targets(old), _targets(new)
    widened = new_targets - old_targets
    scope = len(widened) if widened else len(new_targets) - len(old_targets)
    new_resources = {resources_of(s) for s in new} - {resources_of(s) for s in old}
    new_capabilities = {s.get("capability") for s in new} - {s.get("capability") for s in old}
    return PlanChangeImpact(changed, tuple(sorted(new_resources)), new_risk - old_risk, scope,
                            bool(new_capabilities), deferred, bool(deferred) and not allow_partial)


@dataclass(frozen=True)
class Verdict:
    outcome: str  # ReplanOutcome
    code: str = ""
    replan_id: int | None = None
    deferred: dict[str, list[int]] | None = None


def replan_after_s() -> float:
    return min(float(settings.RUNTIME_REPLAN_AFTER_SECONDS), float(settings.RUNTIME_MAX_WAIT_SECONDS))


def plan_depth(execution: Execution) -> int:
    """How many replans separate this execution's plan from the user's own plan (§69)."""
    row = RuntimeReplan.objects.for_tenant(execution.tenant_id).filter(plan=execution.plan_id).first()
    return row.depth if row is not None else 0


def approved_steps(execution: Execution) -> list[dict[str, Any]]:
    rows = PlanStep.objects.for_tenant(execution.tenant_id).filter(plan=execution.plan_id).order_by("position")
    return [{"id": s.step_id, "capability": s.capability_id, "version": s.capability_version, "input": s.input,
             "depends_on": list(s.depends_on), "for_each": s.for_each, "targets": list(s.targets)} for s in rows]


def progress_of(execution: Execution, steps: list[dict[str, Any]]) -> Progress:
    """What each batch step completed and still has to do (items not created yet are still to do)."""
    completed: dict[str, set[int]] = defaultdict(set)
    finished: dict[str, set[int]] = defaultdict(set)
    rows = BatchItem.objects.for_tenant(execution.tenant_id).filter(execution=execution).values_list(
        "step_id", "target_id", "status")
    for step_id, target_id, status in rows:
        if status == ItemStatus.COMPLETED:
            completed[step_id].add(target_id)
        if status in (ItemStatus.COMPLETED, ItemStatus.FAILED):
            finished[step_id].add(target_id)
    remaining = {s["id"]: frozenset(int(t["id"]) for t in s["targets"]) - finished[s["id"]]
                 for s in steps if is_batch(s)}
    done = frozenset(execution.step_runs.filter(status="completed").values_list("step_id", flat=True))
    return Progress({k: frozenset(v) for k, v in completed.items()}, remaining, done)


def _still_to_do(steps: list[dict[str, Any]], progress: Progress) -> list[dict[str, Any]]:
    out = []
    for step in steps:
        if not is_batch(step):
            continue
        left = progress.remaining.get(step["id"], frozenset())
        if left:
            out.append({**step, "targets": [t for t in step["targets"] if int(t["id"]) in left]})
    return out


RESOURCE_UNAVAILABLE, RATE_LIMITED, CONTRACT_CHANGED = "RESOURCE_UNAVAILABLE", "RATE_LIMITED", "CONTRACT_CHANGED"
UPGRADE = "UPGRADE"


def replan_on_unavailable(*, execution: Execution, step_id: str, resource: str,
                          trigger: str = RESOURCE_UNAVAILABLE) -> Verdict:
    """A blocked batch step's replan: its resource is unavailable, or rate limited (the trigger)."""
    return replan_request(execution=execution, step_id=step_id, trigger=trigger, resource=resource)


def replan_request(*, execution: Execution, step_id: str, trigger: str, resource: str = "") -> Verdict:
    """The whole replan of §55-§60 for one batch step (see the module docstring)."""
    runtime_transition(execution=execution, status=RuntimeStatus.REPLANNING, reason=trigger,
                       timeline=TimelineType.REPLAN_REQUESTED,
                       data={"trigger": trigger, "step_id": step_id, "resource": resource})
    decide = _decider(execution, step_id, resource, trigger)
    refused = replan_take(execution=execution)
    if refused:
        return decide("NONE", ReplanOutcome.REFUSED, code=refused)
    snapshot = registry_snapshot()
    steps = approved_steps(execution)
    progress = progress_of(execution, steps)
    allow_partial = execution.plan.allow_partial
    if trigger == CONTRACT_CHANGED:
        alternative = upgraded(steps, progress, snapshot=snapshot, tenant=execution.tenant)
    else:
        alternative = (deferral if allow_partial else standalone)(steps, {step_id}, progress)
        if alternative is None:
            alternative = _ask_llm(execution, steps, step_id, progress, snapshot)
    if alternative is None:
        return decide("NONE", ReplanOutcome.NO_ALTERNATIVE, code="NO_ALTERNATIVE")
    todo = _still_to_do(steps, progress)

    def resources_of(step: dict[str, Any]) -> str:
        spec = snapshot.get(str(step.get("capability")), tenant=execution.tenant)
        return spec.resource.key if spec is not None and spec.resource is not None else ""
    impact = plan_change_impact(
        todo, alternative.steps, resources_of=resources_of, allow_partial=allow_partial,
        old_risk=RISK_RANK[steps_risk(todo, snapshot, execution.tenant)],
        new_risk=RISK_RANK[steps_risk(alternative.steps, snapshot, execution.tenant)])
    if not impact.requires_reapproval and alternative.strategy == "DEFER":
        return decide(alternative.strategy, ReplanOutcome.CONTINUED, impact=impact, deferred=alternative.deferred)
    return _reapproval(execution, decide, alternative, impact)


def upgraded(steps: list[dict[str, Any]], progress: Progress, *, snapshot: Any, tenant: Any) -> Alternative | None:
    """CONTRACT_CHANGED: what is left of the approved work, as a new plan (it cannot use this
    execution's results), each step on its capability's ACTIVE version. None when no step's
    capability has a newer ACTIVE version (suspended or retired: nothing to move to)."""
    left = standalone(steps, set(), progress)
    if left is None:
        return None
    active = {s["id"]: snapshot.get(str(s["capability"]), tenant=tenant) for s in left.steps}
    moved = [{**s, "version": active[s["id"]].version} if active[s["id"]] is not None else s for s in left.steps]
    if all(a is None or a.version == s["version"] for s, a in zip(left.steps, active.values(), strict=True)):
        return None
    return Alternative(UPGRADE, moved, left.deferred)


def _ask_llm(execution: Execution, steps: list[dict[str, Any]], step_id: str, progress: Progress,
             snapshot: Any) -> Alternative | None:
    from planning.llm import configured_planner
    from tenancy.selectors import membership_get

    blocked = {s["capability"] for s in steps if s["id"] == step_id}
    membership = membership_get(user=execution.actor, tenant_id=execution.tenant_id)
    capabilities = snapshot.discoverable_for(tenant=execution.tenant, role=membership.role if membership else "")
    return llm_alternative(plan=execution.plan, steps=steps, blocked_capabilities=blocked,
                           targets=remaining_targets(steps, progress), capabilities=capabilities,
                           planner=configured_planner(),
                           may_ask=lambda: llm_call_take(execution=execution, purpose="replan"))


def _reapproval(execution: Execution, decide: Callable[..., Verdict], alternative: Alternative,
                impact: PlanChangeImpact) -> Verdict:
    """Material (§60): a new plan, a new policy evaluation; the user's confirmation comes later."""
    from planning.exceptions import PlanInvalid
    from planning.replan import replacement_plan
    from planning.selectors import plan_policy_steps
    from policy.models import Outcome
    from policy.services import decision_record

    if execution.conversation_id is None:
        # Nobody to ask for the new confirmation: a person reviews instead (never silent, §67).
        return decide(alternative.strategy, ReplanOutcome.REFUSED, code="NO_CONFIRMATION_CHANNEL", impact=impact)
    depth = plan_depth(execution) + 1
    if depth > int(runtime_ensure(execution).budget.get("max_depth", 0)):
        return decide(alternative.strategy, ReplanOutcome.REFUSED, code="DEPTH_LIMIT", impact=impact, depth=depth)
    try:
        plan = replacement_plan(plan=execution.plan, alternative=alternative, tenant=execution.tenant,
                                actor=execution.actor, depth=depth)
    except PlanInvalid as exc:
        return decide(alternative.strategy, ReplanOutcome.NO_ALTERNATIVE, code="PLAN_INVALID", impact=impact,
                      extra={"reasons": exc.reasons[:5]})
    decision, receipt = decision_record(actor=execution.actor, tenant=execution.tenant, plan_id=plan.pk,
                                        plan_hash=plan.canonical_hash, steps=plan_policy_steps(plan=plan),
                                        facts=plan_facts(plan=plan, actor=execution.actor, tenant=execution.tenant))
    if decision.outcome == Outcome.DENY:
        return decide(alternative.strategy, ReplanOutcome.REFUSED, code="POLICY_DENIED", impact=impact, depth=depth,
                      plan=plan, extra={"policy": {"outcome": decision.outcome, "codes": decision.codes}})
    # Material means confirmed by the user even where policy alone would allow it (a read-only plan).
    level = decision.level if decision.outcome == Outcome.REQUIRE_CONFIRMATION else "soft"
    return decide(alternative.strategy, ReplanOutcome.REAPPROVAL_REQUIRED, impact=impact, depth=depth, plan=plan,
                  extra={"policy": {"outcome": decision.outcome, "level": level, "risk": decision.risk,
                                    "receipt_id": str(receipt.pk), "codes": decision.codes}})


_STATUS_AFTER = {ReplanOutcome.CONTINUED: RuntimeStatus.DEGRADED, ReplanOutcome.NO_ALTERNATIVE: RuntimeStatus.WAITING,
                 ReplanOutcome.REAPPROVAL_REQUIRED: RuntimeStatus.REPLANNING,
                 ReplanOutcome.REFUSED: RuntimeStatus.WAITING}


def _decider(execution: Execution, step_id: str, resource: str, trigger: str) -> Callable[..., Verdict]:
    def decide(strategy: str, outcome: str, **detail: Any) -> Verdict:
        return _decide(execution, step_id, resource, trigger, strategy, outcome, **detail)
    return decide


def _decide(execution: Execution, step_id: str, resource: str, trigger: str, strategy: str, outcome: str, *,
            code: str = "", impact: PlanChangeImpact | None = None, deferred: dict[str, list[int]] | None = None,
            depth: int = 0, plan: Any = None, extra: dict[str, Any] | None = None) -> Verdict:
    row = RuntimeReplan.objects.create(
        tenant_id=execution.tenant_id, execution=execution, step_id=step_id, trigger=trigger,
        resource=resource, strategy=strategy, outcome=outcome, code=code, plan=plan, depth=depth,
        impact=impact.as_dict() if impact else {}, decision=(extra or {}).get("policy") or extra or {},
        deferred=deferred or {}, created_at=clock.now())
    data = {"replan_id": row.pk, "trigger": trigger, "outcome": outcome, "strategy": strategy, "code": code,
            "step_id": step_id,
            "resource": resource, "impact": row.impact, "plan_id": str(plan.pk) if plan else None,
            "deferred": {k: len(v) for k, v in (deferred or {}).items()}}
    runtime_transition(execution=execution, status=_STATUS_AFTER[outcome], reason=f"REPLAN_{outcome}"[:64],
                       kind="REPLAN", timeline=TimelineType.REPLAN_DECIDED, data=data)
    return Verdict(outcome, code, row.pk, deferred)
