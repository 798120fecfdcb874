"""Verifying a write's effect (PRD-006 §27-§28, PRD-034 §82-§83, invariant 8): an API's 200 is not
the business fact. The capability's `verification` block (capabilities/*.yaml; the language is in
registry/manifest_schema.py) says what must hold after the write, as data:

  capability, input  the read that re-reads the target; without them, the registered reader of the
                     entity the write names, by its id
  expect             found (default) | not_found (a delete)
  assertions         `{path, op, value?, subject?, when_input?}`, read in the re-read of the target
                     (`subject: target`, the default) or in the write's own answer (`subject:
                     response`); values may reference
                     `${input.…}` and `${result.…}` (the write's answer)

The same check runs after a single step's write (perform.py) and a batch item's (batch_item.py),
and decides what an UNKNOWN outcome of a non-idempotent write was — by reading, never by calling
again. The plan step's own postconditions are checked here too.
"""

from __future__ import annotations

import json
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

_OPS = {"absent": "not_exists"}  # the manifest's word → planning.conditions' op


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


def verify(spec: CapabilitySpec, session: Any, snapshot: RegistrySnapshot, values: Mapping[str, Any],
           body: Any, outcome: StepOutcome) -> bool | None:
    """True when every declared fact holds, False when one does not, None when it cannot tell.

    `session` is what the re-read goes through (anything with a ToolSession's `invoke`: the
    envelope's reads, execution/envelope.py). `body` is the write's answer, None when there was none
    (an UNKNOWN outcome): then only the re-read can tell, and what references the answer is skipped."""
    verification = spec.verification
    if spec.kind != "write" or not verification:
        return True
    lookup = _lookup(values, body)
    applicable = [a for a in verification.get("assertions", []) if _applies(a, values, body)]
    on_response = [a for a in applicable if a.get("subject") == "response"]
    on_read = [a for a in applicable if a.get("subject", "target") == "target"]
    failed = [a for a in on_response if not _holds(body, a, lookup)]
    rereads = bool(on_read) or "capability" in verification or "expect" in verification
    if not rereads and body is None:
        return None  # only the answer could have told
    reader = _reader(verification, spec, snapshot, values, lookup) if rereads else None
    outcome.note(TimelineType.VERIFICATION_STARTED, capability=reader[0].id if reader else None)
    ok: bool | None = not failed
    if rereads and not failed:
        ok, failed = _reread(verification, session, reader, on_read, lookup, outcome)
    outcome.note(TimelineType.VERIFICATION_COMPLETED if ok else TimelineType.VERIFICATION_FAILED,
                 capability=reader[0].id if reader else None, ok=ok, failed=[a.get("path") for a in failed])
    return ok


def _reread(verification: Mapping[str, Any], session: Any, reader: tuple[CapabilitySpec, dict[str, Any]] | None,
            assertions: list[Mapping[str, Any]], lookup, outcome: StepOutcome) -> tuple[bool | None, list]:
    if reader is None or any(v is None or v is MISSING for v in reader[1].values()):
        return None, []  # nothing to read the target with (no reader, or no id to read it by)
    read = outcome.count(session.invoke(capability=reader[0], input=reader[1]))
    if verification.get("expect") == "not_found":
        if read.status_code == 404:
            return True, []
        return (False, []) if read.outcome == Outcome.SUCCEEDED else (None, [])
    if read.outcome != Outcome.SUCCEEDED:
        return None, []
    failed = [a for a in assertions if not _holds(read.body, a, lookup)]
    return not failed, failed


def _reader(verification: Mapping[str, Any], spec: CapabilitySpec, snapshot: RegistrySnapshot,
            values: Mapping[str, Any], lookup) -> tuple[CapabilitySpec, dict[str, Any]] | None:
    """The declared re-read, or the registered reader of the (first) entity the write names."""
    if "capability" in verification:
        read_spec = snapshot.get(verification["capability"])
        return None if read_spec is None else (read_spec, resolve(dict(verification.get("input", {})), lookup))
    for target in spec.targets_in(values)[:1]:
        found = snapshot.reader_of(target["type"])
        if found is not None:
            return found[0], {found[1]: target["id"]}
    return None


def _lookup(values: Mapping[str, Any], body: Any):
    def lookup(ref: Ref) -> Any:
        source = values if ref.root == "input" else body if ref.root == "result" else None
        return MISSING if source is None else get_path(source, ref.path)
    return lookup


def _applies(assertion: Mapping[str, Any], values: Mapping[str, Any], body: Any) -> bool:
    if assertion.get("when_input") and assertion["when_input"] not in values:
        return False
    # Without an answer, an assertion on it — or comparing with it — has nothing to compare.
    return body is not None or (assertion.get("subject") != "response"
                                and "${result." not in json.dumps(assertion.get("value")))


def _holds(subject: Any, assertion: Mapping[str, Any], lookup) -> bool:
    op = _OPS.get(assertion["op"], assertion["op"])
    return assertion_holds(subject, {**assertion, "op": op, "value": resolve(assertion.get("value"), lookup)})


def postconditions(plan_step: PlanStep, body: Any, lookup, outcome: StepOutcome) -> bool:
    outcome.note(TimelineType.VERIFICATION_STARTED, postconditions=len(plan_step.postconditions))
    failed = [a for a in plan_step.postconditions
              if not assertion_holds(body, {**a, "value": resolve(a.get("value"), lookup)})]
    outcome.note(TimelineType.VERIFICATION_FAILED if failed else TimelineType.VERIFICATION_COMPLETED,
                 failed=[a.get("path") for a in failed])
    return not failed
