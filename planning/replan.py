"""Alternative plans for a running execution whose resource is gone (PRD-034 §55-§58, §115-§116).

The runtime asks; this module proposes, it decides nothing (execution.replan classifies the change
and policy authorises it). Deterministic first (§86):

- **in place** (`deferral`): what the approved plan can still finish without the blocked steps —
  each step keeps the remaining targets whose dependencies are completed or still runnable; the
  blocked steps' items, and the items that needed them, are deferred. Proposed only when some *final*
  step (one nothing depends on) can still finish an item: otherwise deferring gains nothing.
- **standalone** (`standalone`): the same, for a new plan that cannot use this execution's results —
  only the steps that do not depend on a blocked one, over their remaining targets.
- **LLM** (`llm_alternative`, only when the deterministic planner has nothing, an LLM is configured
  and the execution's budget allows the call): a different strategy over the remaining targets,
  without the blocked capabilities. The model's answer is data: the targets are pinned here, never
  taken from it, and the plan is validated like any other (`plan_from_steps`).
"""

from __future__ import annotations

import graphlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from policy.rules import RISK_RANK, step_risk
from registry.selectors import RegistrySnapshot
from tenancy.models import Tenant

from .batch import batch_entity, batch_targets, is_batch
from .intents import StructuredIntent
from .llm import LLMPlanner, LLMUnavailable
from .models import ExecutionPlan

DEFER, LLM = "DEFER", "LLM"


@dataclass(frozen=True)
class Progress:
    """Per batch step: target ids completed, and target ids still to do (pending or running)."""

    completed: Mapping[str, frozenset[int]]
    remaining: Mapping[str, frozenset[int]]
    done_steps: frozenset[str] = frozenset()  # non-batch steps already completed


@dataclass(frozen=True)
class Alternative:
    strategy: str
    steps: list[dict[str, Any]]  # plan steps ({id, capability, version, input, depends_on, for_each, targets})
    deferred: dict[str, list[int]] = field(default_factory=dict)  # step id → target ids left for later


def _order(steps: Sequence[Mapping[str, Any]]) -> list[str]:
    return list(graphlib.TopologicalSorter({s["id"]: set(s.get("depends_on") or []) for s in steps}).static_order())


def _sinks(steps: Sequence[Mapping[str, Any]]) -> list[str]:
    needed = {d for s in steps for d in s.get("depends_on") or []}
    return [s["id"] for s in steps if s["id"] not in needed]


def _runnable(steps: Sequence[Mapping[str, Any]], blocked: set[str], progress: Progress,
              *, use_completed: bool) -> dict[str, frozenset[int]]:
    """Targets each step can still finish without the blocked steps. `use_completed`: an item may rely
    on its dependencies' items completed in this execution (in place); a new plan cannot."""
    by_id = {s["id"]: s for s in steps}
    runnable: dict[str, frozenset[int]] = {}
    for sid in _order(steps):
        step = by_id[sid]
        if sid in blocked or not is_batch(step):
            runnable[sid] = frozenset()
            continue
        ok = progress.remaining.get(sid, frozenset())
        for dep in step.get("depends_on") or []:
            if dep in progress.done_steps and not is_batch(by_id[dep]):
                continue
            before = progress.completed.get(dep, frozenset()) if use_completed else frozenset()
            ok &= before | runnable.get(dep, frozenset())
        runnable[sid] = ok
    return runnable


def _alternative(steps: Sequence[Mapping[str, Any]], runnable: Mapping[str, frozenset[int]],
                 progress: Progress) -> Alternative | None:
    if not any(runnable.get(sid) for sid in _sinks(steps)):
        return None  # no item can reach the end of the plan: deferring gains nothing
    kept = [{**step, "targets": [t for t in step.get("targets") or [] if int(t["id"]) in runnable[step["id"]]]}
            for step in steps if runnable.get(step["id"])]
    deferred = {sid: sorted(progress.remaining.get(sid, frozenset()) - runnable.get(sid, frozenset()))
                for sid in progress.remaining}
    return Alternative(DEFER, kept, {sid: ids for sid, ids in deferred.items() if ids})


def deferral(steps: Sequence[Mapping[str, Any]], blocked: set[str], progress: Progress) -> Alternative | None:
    """Continue in place: the approved work that does not need the blocked steps."""
    return _alternative(steps, _runnable(steps, blocked, progress, use_completed=True), progress)


def standalone(steps: Sequence[Mapping[str, Any]], blocked: set[str], progress: Progress) -> Alternative | None:
    """A new plan of the approved steps that need neither the blocked steps nor this execution's results."""
    runnable = _runnable(steps, blocked, progress, use_completed=False)
    kept_ids = {sid for sid, ids in runnable.items() if ids}
    # A step left in must find all its dependencies in the new plan.
    if any(set(s.get("depends_on") or []) - kept_ids for s in steps if s["id"] in kept_ids):
        return None
    return _alternative(steps, runnable, progress)


def remaining_targets(steps: Sequence[Mapping[str, Any]], progress: Progress) -> list[int]:
    """Targets the plan has not finished: not completed by every final step."""
    remaining: set[int] = set()
    for sid in _sinks(steps):
        remaining |= progress.remaining.get(sid, frozenset())
    return sorted(remaining)


def llm_alternative(*, plan: ExecutionPlan, steps: Sequence[Mapping[str, Any]], blocked_capabilities: set[str],
                    targets: Sequence[int], capabilities: Sequence[Any], planner: LLMPlanner | None,
                    may_ask: Callable[[], bool]) -> Alternative | None:
    """Ask the LLM planner for another strategy over `targets` without the blocked capabilities.

    `may_ask` spends one LLM call of the execution's budget and says whether it could (§66)."""
    if planner is None or not targets or not may_ask():
        return None
    usable = [c for c in capabilities if c.id not in blocked_capabilities]
    intent = StructuredIntent(
        name=f"{plan.template}.replan", language=plan.language,
        slots={"ids": list(targets), "unavailable": sorted(blocked_capabilities),
               "original_steps": [{"id": s["id"], "capability": s["capability"]} for s in steps]},
        text=(f"Replan {plan.template} for the remaining targets: the capabilities "
              f"{', '.join(sorted(blocked_capabilities))} are unavailable. Use ${{targets}} as for_each."))
    try:
        answer = planner.plan(intent=intent, capabilities=usable)
    except LLMUnavailable:
        return None
    proposed = [dict(s) for s in answer["steps"]]
    versions = {c.id: c.version for c in usable}
    if not proposed or any(s.get("capability") not in versions for s in proposed):
        return None  # a blocked or unknown capability: not an alternative
    pinned = batch_targets(targets, batch_entity(steps))
    for step in proposed:
        step.setdefault("version", versions[step["capability"]])
        step.setdefault("depends_on", [])
        step.setdefault("input", {})
        if is_batch(step):
            step["targets"] = pinned  # the scope is ours, never the model's
    return Alternative(LLM, proposed)


def steps_risk(steps: Sequence[Mapping[str, Any]], snapshot: RegistrySnapshot, tenant: Tenant) -> str:
    """MAX of the steps' risks after policy's rule table (as planning computes a plan's risk)."""
    risks = ["read"]
    for step in steps:
        spec = snapshot.get(str(step.get("capability")), tenant=tenant)
        if spec is not None:
            risks.append(step_risk(declared=spec.risk_level, capability_key=spec.id,
                                   target_count=len(step.get("targets") or []))[0])
    return max(risks, key=RISK_RANK.__getitem__)


def replacement_plan(*, plan: ExecutionPlan, alternative: Alternative, tenant: Tenant, actor: Any,
                     depth: int) -> ExecutionPlan:
    """Store the alternative as a new plan (validated, hashed) for the same conversation; PlanInvalid
    when it does not validate. Its intent says which plan it replaces and how deep the chain is."""
    from .services import plan_from_steps

    intent = StructuredIntent(name=f"{plan.template}.replan", language=plan.language,
                              text=str((plan.intent or {}).get("text", ""))[:500],
                              slots={"replan_of": str(plan.pk), "replan_depth": depth,
                                     "ids": sorted({int(t["id"]) for s in alternative.steps
                                                    for t in s.get("targets") or []})})
    steps = [{k: v for k, v in s.items() if k not in ("label", "compensation")} for s in alternative.steps]
    return plan_from_steps(tenant=tenant, actor=actor, steps=steps, template=f"{plan.template}.replan"[:100],
                           intent=intent, allow_partial=plan.allow_partial, conversation_id=plan.conversation_id,
                           planner="llm" if alternative.strategy == LLM else "deterministic")
