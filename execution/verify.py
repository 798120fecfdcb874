"""Verifying a step's effect by reading it back (PRD-006 §27-§28, invariant 8): the capability's
verification read and assertions, the plan step's postconditions, and what an UNKNOWN outcome of a
non-idempotent write becomes — verified by reading, never called again blindly.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planning.conditions import assertion_holds
from planning.models import PlanStep
from planning.references import MISSING, Ref, get_path, resolve
from registry.selectors import CapabilitySpec, RegistrySnapshot

from .errors import Outcome
from .models import TimelineType
from .outcome import StepOutcome, step_error
from .tool_runtime import ToolResult, ToolSession


def unknown_outcome(spec: CapabilitySpec, session: ToolSession, snapshot: RegistrySnapshot, values: dict[str, Any],
                    result: ToolResult, outcome: StepOutcome) -> StepOutcome:
    """A non-idempotent write with no answer: read to find out, never call again blindly."""
    verdict = verify(spec, session, snapshot, values, None, outcome)
    if verdict is True:
        outcome.status, outcome.result = "completed", {"verified_after_unknown": True}
        return outcome
    outcome.status = "unknown"
    outcome.error = step_error("UNKNOWN_OUTCOME", error_class=result.error_class, detail=result.error_code)
    return outcome


def verify(spec: CapabilitySpec, session: ToolSession, snapshot: RegistrySnapshot, values: Mapping[str, Any],
           body: Any, outcome: StepOutcome) -> bool | None:
    """True/False from the capability's verification read; None when it cannot tell."""
    verification = spec.verification
    if spec.kind != "write" or not verification:
        return True

    def lookup(ref: Ref) -> Any:
        source = values if ref.root == "input" else body if ref.root == "result" else None
        return MISSING if source is None else get_path(source, ref.path)

    read_input = resolve(dict(verification.get("input", {})), lookup)
    read_spec = snapshot.get(verification.get("capability", ""))
    outcome.note(TimelineType.VERIFICATION_STARTED, capability=verification.get("capability"))
    if read_spec is None or any(v is None for v in read_input.values()):
        outcome.note(TimelineType.VERIFICATION_FAILED, reason="cannot_read")
        return None
    read = outcome.count(session.invoke(capability=read_spec, input=read_input))
    if verification.get("expect") == "not_found":
        ok: bool | None = read.status_code == 404
    elif read.outcome != Outcome.SUCCEEDED:
        ok = None
    else:
        ok = all(assertion_holds(read.body, {**a, "value": resolve(a.get("value"), lookup)})
                 for a in verification.get("assertions", []) if not a.get("when_input") or a["when_input"] in values)
    outcome.note(TimelineType.VERIFICATION_COMPLETED if ok else TimelineType.VERIFICATION_FAILED,
                 capability=read_spec.id, ok=ok)
    return ok


def postconditions(plan_step: PlanStep, body: Any, lookup, outcome: StepOutcome) -> bool:
    outcome.note(TimelineType.VERIFICATION_STARTED, postconditions=len(plan_step.postconditions))
    failed = [a for a in plan_step.postconditions
              if not assertion_holds(body, {**a, "value": resolve(a.get("value"), lookup)})]
    outcome.note(TimelineType.VERIFICATION_FAILED if failed else TimelineType.VERIFICATION_COMPLETED,
                 failed=[a.get("path") for a in failed])
    return not failed

