"""A write the data already shows as done (adding an item the entity already has, setting a value it
already holds) is answered at planning, before any confirmation: asking "Deseja…?" for it would only
lead to a failure after the user said yes.

"Done" is what the capability's own verification (manifest `verification`: a read and assertions)
would find after the write; if it holds now, on the current data, the write would change nothing.
Only a plan whose every write can be told that way counts: an input not known yet (a previous
step's result), no assertion about the data (only about the write's answer), a `for_each` or an
`expect` read leaves it to the execution.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planning.conditions import assertion_holds
from planning.models import ExecutionPlan, PlanStep
from planning.references import MISSING, get_path, resolve
from planning.selectors import plan_steps

from .statemachine import Status
from .turns import Turn


def already_so(turn: Turn, plan: ExecutionPlan) -> bool:
    if plan.risk == "read":
        return False  # nothing to change; and a read's turn pays no extra query
    writes = [step for step in plan_steps(plan=plan) if step.kind == "write"]
    return bool(writes) and all(_holds_now(turn, step) for step in writes)


def answer_already_so(turn: Turn, operation: dict[str, Any], action: str, lead: str = "") -> None:
    """Nothing ran and nothing waits: the operation ends here, the intent stays (a correction may follow)."""
    operation["status"] = "not_needed"
    turn.go(Status.IDLE)
    turn.reply("answer", "operation.already_so", message=" ".join(
        p for p in (lead, turn.say("operation.already_so", action=action)) if p))


def _holds_now(turn: Turn, step: PlanStep) -> bool:
    spec = turn.snapshot.get(step.capability_id, tenant=turn.tenant)
    verification = (spec.verification if spec is not None else None) or {}
    if step.for_each or verification.get("expect") or _unresolved(step.input):
        return False
    # Assertions on the write's own answer (a `response` subject, a `${result.…}` value: "the re-read is
    # not older than the write") say that the write happened, which before it cannot hold; the others
    # say what the data is after it, and decide. None of those: left to the execution.
    assertions = [a for a in verification.get("assertions") or ()
                  if (not a.get("when_input") or a["when_input"] in step.input)
                  and a.get("subject", "target") == "target" and not _unresolved(a.get("value"), roots=("result",))]
    if not assertions:
        return False

    def lookup(ref: Any) -> Any:
        return get_path(step.input, ref.path) if ref.root == "input" else MISSING

    read_input = resolve(dict(verification.get("input") or {}), lookup)
    if any(value is MISSING or value is None for value in read_input.values()):
        return False
    read = turn.reader.call(str(verification.get("capability", "")), read_input)
    return read.ok and all(assertion_holds(read.body, {**a, "value": resolve(a.get("value"), lookup)})
                           for a in assertions)


def _unresolved(value: Any, roots: tuple[str, ...] = ()) -> bool:
    """A `${…}` reference left in a step's input (any root), or one to `roots` in an assertion."""
    if isinstance(value, Mapping):
        return any(_unresolved(v, roots) for v in value.values())
    if isinstance(value, list):
        return any(_unresolved(v, roots) for v in value)
    if isinstance(value, str) and "${" in value:
        return not roots or any(f"${{{root}." in value for root in roots)
    return False
