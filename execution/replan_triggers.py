"""When a batch step asks for a replan, and under which trigger (PRD-034 §56; the replan itself is
execution/replan.py):

- the route is closed (breaker open, no registered fallback left): RATE_LIMITED when what closed it
  was mostly 429s, RESOURCE_UNAVAILABLE otherwise (`blocked_trigger`). Due after
  `RUNTIME_REPLAN_AFTER_SECONDS` of waiting (local adaptation first, §57) — or at once when the
  route is rate limited and the execution's retry budget is spent on it: the budget was the local
  adaptation, and waiting out a quota window that keeps refusing is not one more (`replan_due`).
- the capability's contract changed between plan and execution: at the batch step's start (its
  pinned version is not the ACTIVE one, `contract_replanned`, from execution/perform.py) or mid-batch
  (an item's revalidation answers CAPABILITY_VERSION_STALE, from execution/batch.py).

What the user gets: a material replan's new plan is evaluated by policy and asked when the execution
settles (conversations.batch.batch_replan_ask), under its own new confirmation; otherwise the step
fails with its own code (CAPABILITY_CHANGED, RESOURCE_UNAVAILABLE…) and the replan row says why no
alternative was taken.
"""

from __future__ import annotations

from typing import Any

from planning.batch import BATCH_SOURCE

from .control import Envelope, Lane
from .models import Execution, ReplanOutcome
from .outcome import StepOutcome
from .replan import CONTRACT_CHANGED, RATE_LIMITED, RESOURCE_UNAVAILABLE, Verdict, replan_after_s, replan_request
from .routing import route_for
from .runtime_state import runtime_stop

# What an item's revalidation answers when a newer version of its capability became ACTIVE.
CONTRACT_STALE = "CAPABILITY_VERSION_STALE"


def blocked_trigger(execution: Execution, spec: Any) -> str:
    """RATE_LIMITED when at least half of the recent failed calls on the step's route were 429s."""
    envelope = Envelope.of(spec)
    failures = [kind for resource in route_for(spec, envelope)
                for kind, _ in Lane(execution.tenant_id, spec.id, resource, envelope).state().window if kind != "ok"]
    limited = failures.count("rate_limit")
    return RATE_LIMITED if limited and 2 * limited >= len(failures) else RESOURCE_UNAVAILABLE


def _retry_budget_spent(execution: Execution) -> bool:
    left = (Execution.objects.for_tenant(execution.tenant_id).filter(pk=execution.pk)
            .values_list("retry_budget", flat=True).first())
    return not left


def replan_due(execution: Execution, spec: Any, waited_s: float) -> bool:
    """Whether a batch waiting for its route asks for a replan now (see the module docstring)."""
    if waited_s >= replan_after_s():
        return True
    return _retry_budget_spent(execution) and blocked_trigger(execution, spec) == RATE_LIMITED


def contract_replanned(execution: Execution, plan_step: Any, spec: Any, outcome: StepOutcome) -> StepOutcome:
    """A batch step whose pinned version is no longer ACTIVE, at its start: replan it on the ACTIVE
    version. `outcome` is the step's CAPABILITY_CHANGED failure; it stays that (with the replan's
    verdict) unless a replacement plan now waits for the user's confirmation (REPLANNED)."""
    if plan_step.for_each != BATCH_SOURCE or spec is None:
        return outcome  # not a batch step, or nothing ACTIVE to move to: the step fails as it is
    verdict = replan_request(execution=execution, step_id=plan_step.step_id, trigger=CONTRACT_CHANGED)
    return contract_outcome(execution, verdict, outcome)


def contract_outcome(execution: Execution, verdict: Verdict, outcome: StepOutcome) -> StepOutcome:
    replan = {"replan": verdict.replan_id, "trigger": CONTRACT_CHANGED}
    if verdict.outcome == ReplanOutcome.REAPPROVAL_REQUIRED:
        outcome.status, outcome.error = "failed", {**(outcome.error or {}), "code": "REPLANNED", **replan}
        return outcome
    outcome.error = {**(outcome.error or {}), **replan, "replan_outcome": verdict.outcome,
                     "replan_code": verdict.code}
    # No new contract to confirm: the runtime stops here (never left REPLANNING or WAITING).
    runtime_stop(execution=execution, code=verdict.code if verdict.code.startswith("BUDGET_") else "REPLAN_REFUSED")
    return outcome
