"""Policy services: decide, record receipts, revalidate before each step, kill switches, audit.

Receipt lifecycle (ARCHITECTURE.md invariant 3):

1. Planning: `decision_record` evaluates the plan and records the decision (ALLOW, DENY or
   REQUIRE_CONFIRMATION) as a PLANNING receipt. A plan that needs no confirmation (reads) is
   authorised by that ALLOW receipt.
2. Confirmation: `receipt_issue` re-evaluates — live state (membership, permissions, capability
   status and version, kill switches) read now, target facts as the caller hands them (the
   conversation runtime passes the ones read at planning; the executor reads fresh ones right
   before each step, ARCHITECTURE.md) — and, when the approval
   satisfies the level asked, issues a new ALLOW receipt bound to tenant, actor, plan id + hash,
   each step's capability id + version + canonical input hash + pinned targets, the approval's
   hash and an expiry (`POLICY_RECEIPT_TTL_SECONDS`, default the confirmation TTL, 5 min). The
   expiry bounds when execution may *start*.
3. Execution: `revalidate` before every step: the receipt must exist in this tenant and match
   actor, plan, step, capability + version and input hash exactly; the execution must have started
   before the expiry; the live checks (membership and permissions, guardian grants, capability
   status and version, tenant blocks, kill switches, target tenant, pinned revision,
   preconditions) must pass now. Every call is recorded as a ReceiptCheck, passed or not.
   Two round trips on the common path: the receipt re-read together with every live check (one
   statement, `policy.live`), then the ReceiptCheck INSERT. The INSERT stays a statement of its
   own because what it records (the outcome and its reasons) is decided in Python between the two.

The receipt id given to `revalidate` must come from the server's own record (the execution row);
a client-supplied one is never looked up on its behalf, and a forged or foreign one fails the
binding checks anyway (and is recorded).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from tenancy import clock
from tenancy.db import insert_one, write_in_one_statement
from tenancy.models import Tenant

from .audit import audit_event, audit_record
from .canonical import CanonicalizationError, canonical_hash, canonical_input_hash
from .engine import Decision, Reason, Step, decide, gather, resources_stopped
from .exceptions import PolicyError
from .live import LiveRead, receipt_with_live
from .metrics import EVALUATE_LATENCY, REVALIDATE_LATENCY
from .models import KillSwitch, Outcome, PolicyReceipt, ReceiptCheck, Scope, Stage
from .reviews import (  # noqa: F401 - part of the public service surface
    ReviewOutcome,
    register_review_hook,
    register_review_object_resolver,
    review_request_approve,
    review_request_approved_for,
    review_request_open,
    review_request_reject,
)
from .rules import LEVEL_RANK, LEVELS

__all__ = [
    "Approval", "Decision", "PolicyError", "Revalidation", "Step", "audit_record", "decision_record", "evaluate",
    "kill_switch_lift", "kill_switch_set", "receipt_issue", "resources_stopped_now", "revalidate",
    "register_review_hook", "register_review_object_resolver", "review_request_approve", "review_request_open",
    "review_request_reject", "ReviewOutcome",
]


def receipt_ttl() -> timedelta:
    seconds = settings.POLICY_RECEIPT_TTL_SECONDS
    return timedelta(seconds=int(seconds))


def _agent_version(context: Mapping[str, Any] | None) -> str:
    return str(settings.AGENT_VERSION)


def _execution_ids(context: Mapping[str, Any] | None) -> list[str]:
    context = context if isinstance(context, Mapping) else {}
    return [str(context[k]) for k in ("plan_id", "execution_id") if context.get(k)]


def evaluate(*, actor: Any, tenant: Tenant, steps: Sequence[Step | Mapping[str, Any]], facts: Mapping[str, Any],
             context: Mapping[str, Any] | None = None, live: LiveRead | None = None) -> Decision:
    """ALLOW, DENY or REQUIRE_CONFIRMATION (+ level) for a plan. Reads only; records nothing.

    `facts` maps `"<type>:<id>"` → `{"tenant": "<tenant uuid>", "status"?, "revision"?, "exists"?}`
    as read by the caller through read capabilities. `context` may carry `plan_id` and
    `execution_id` (for EXECUTION kill switches); nothing else in it is read. `live`: the live
    state when the caller's own statement read it ahead (`live.live_state_sql`) in this transaction.
    """
    parsed: list[Step] = []
    for raw in steps if isinstance(steps, Sequence) and not isinstance(steps, str | bytes) else []:
        try:
            parsed.append(Step.parse(raw))
        except ValueError:
            continue  # decide() reports it
    started = time.perf_counter()
    state = gather(actor=actor, tenant=tenant, steps=parsed, agent_version=_agent_version(context), live=live)
    decision = decide(state=state, steps=steps, facts=facts, execution_ids=_execution_ids(context))
    EVALUATE_LATENCY.labels(outcome=str(decision.outcome)).observe(time.perf_counter() - started)
    return decision


def _receipt_create(*, tenant: Tenant, actor: Any, stage: str, plan_id: uuid.UUID, plan_hash: str,
                    decision: Decision, extra_reasons: Sequence[Reason] = (), outcome: str | None = None,
                    approval: Approval | None = None) -> PolicyReceipt:
    """The receipt and its audit row, written in one statement.

    Stamped on `tenancy.clock`, the clock the executor reads an execution's start on and every TTL is
    compared with: on two clocks a moved test clock made a start look later than the receipt's now."""
    now = clock.now()
    outcome = outcome or decision.outcome
    allow = outcome == Outcome.ALLOW
    receipt = PolicyReceipt(
        tenant=tenant, actor=actor, stage=stage, plan_id=plan_id, plan_hash=plan_hash, decision=outcome,
        level=decision.level, risk=decision.risk,
        steps={a.step_id: a.binding() for a in decision.steps},
        confirmation_id=approval.confirmation_id if approval and allow else None,
        approval_hash=approval.hash() if approval and allow else "",
        reasons=[r.to_dict() for r in (*decision.reasons, *extra_reasons)],
        issued_at=now, expires_at=now + receipt_ttl() if allow else None,
    )
    audit = audit_event(tenant=tenant, actor=actor, event_type=f"policy.receipt.{outcome.lower()}",
                        target_type="plan", target_id=str(plan_id),
                        new={"receipt": str(receipt.pk), "stage": stage, "level": decision.level})
    write_in_one_statement([receipt], [audit])
    return receipt


def decision_record(*, actor: Any, tenant: Tenant, plan_id: uuid.UUID, plan_hash: str,
                    steps: Sequence[Step | Mapping[str, Any]], facts: Mapping[str, Any],
                    context: Mapping[str, Any] | None = None) -> tuple[Decision, PolicyReceipt]:
    """Evaluate at planning and record the decision (whatever it is) as a PLANNING receipt."""
    decision = evaluate(actor=actor, tenant=tenant, steps=steps, facts=facts,
                        context={**(context or {}), "plan_id": str(plan_id)})
    with transaction.atomic(savepoint=False):  # receipt + audit row: both or neither, no savepoint
        return decision, _receipt_create(tenant=tenant, actor=actor, stage=Stage.PLANNING, plan_id=plan_id,
                                         plan_hash=plan_hash, decision=decision)


@dataclass(frozen=True)
class Approval:
    """A confirmation as the conversation runtime recorded it. Hashed into the receipt.

    soft/strong: `approved_by` is the requester who said "sim". human_review: `approved_by` is the
    reviewer and `review_request_id` names the approved ReviewRequest.
    """

    confirmation_id: uuid.UUID
    plan_id: uuid.UUID
    plan_hash: str
    level: str
    approved_by: int
    approved_at: datetime
    review_request_id: uuid.UUID | None = None

    def hash(self) -> str:
        return canonical_hash({
            "confirmation_id": str(self.confirmation_id), "plan_id": str(self.plan_id),
            "plan_hash": self.plan_hash, "level": self.level, "approved_by": str(self.approved_by),
            "approved_at": self.approved_at.isoformat(), "review_request_id": str(self.review_request_id or ""),
        })


def _approval_problem(*, actor: Any, tenant: Tenant, plan_id: uuid.UUID, plan_hash: str, level: str,
                      approval: Approval) -> str | None:
    if str(approval.plan_id) != str(plan_id) or approval.plan_hash != plan_hash:
        return "APPROVAL_PLAN_MISMATCH"
    if approval.level not in LEVELS or LEVEL_RANK[approval.level] < LEVEL_RANK[level]:
        return "CONFIRMATION_LEVEL_INSUFFICIENT"
    if level == "human_review":
        if approval.review_request_id is None or not review_request_approved_for(
            tenant=tenant, request_id=approval.review_request_id, requester=actor, plan_id=plan_id,
            plan_hash=plan_hash, reviewer_id=approval.approved_by,
        ):
            return "REVIEW_NOT_APPROVED"
    elif approval.approved_by != actor.pk:
        return "APPROVAL_NOT_BY_ACTOR"
    return None


def receipt_issue(*, actor: Any, tenant: Tenant, plan_id: uuid.UUID, plan_hash: str,
                  steps: Sequence[Step | Mapping[str, Any]], facts: Mapping[str, Any], approval: Approval,
                  context: Mapping[str, Any] | None = None, live: LiveRead | None = None) -> PolicyReceipt:
    """Re-evaluate at confirmation; an ALLOW receipt if the approval satisfies the level, else DENY."""
    decision = evaluate(actor=actor, tenant=tenant, steps=steps, facts=facts,
                        context={**(context or {}), "plan_id": str(plan_id)}, live=live)
    extra: list[Reason] = []
    outcome = Outcome.DENY
    if decision.outcome != Outcome.DENY:
        problem = _approval_problem(actor=actor, tenant=tenant, plan_id=plan_id, plan_hash=plan_hash,
                                    level=decision.level, approval=approval)
        if problem:
            extra.append(Reason(problem))
        else:
            outcome = Outcome.ALLOW
    with transaction.atomic(savepoint=False):  # receipt + audit row: both or neither, no savepoint
        return _receipt_create(tenant=tenant, actor=actor, stage=Stage.CONFIRMATION, plan_id=plan_id,
                               plan_hash=plan_hash, decision=decision, extra_reasons=extra, outcome=outcome,
                               approval=approval)


# --- revalidation ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Revalidation:
    ok: bool
    code: str
    reasons: tuple[Reason, ...]
    check_id: int
    # The version of the registry snapshot the live checks ran against (None when they did not
    # run): a caller holding a snapshot of another version resolved its spec from another registry.
    registry_version: int | None = None
    # Of the `resources` the call may go to, those a RESOURCE kill switch stops: the caller must
    # not route the call to them (the step is refused only when all of them are stopped).
    stopped_resources: frozenset[str] = frozenset()


def _capability_ref(capability: Any) -> tuple[str, int]:
    """`"key@3"`, `("key", 3)` or `{"key"/"capability": ..., "version": 3}` → (key, 3)."""
    if isinstance(capability, str) and "@" in capability:
        key, _, version = capability.rpartition("@")
        return key, int(version)
    if isinstance(capability, Mapping):
        key, version = capability.get("key") or capability.get("capability"), capability.get("version")
    else:
        key, version = capability
    if not isinstance(key, str) or isinstance(version, bool) or not isinstance(version, int):
        raise ValueError("capability reference")
    return key, version


def _binding_problem(*, receipt: PolicyReceipt, actor: Any, plan_id: Any, step_id: str, key: str, version: int,
                     input_hash: str, started: datetime | None, now: datetime) -> str | None:
    binding = receipt.steps.get(step_id) if isinstance(receipt.steps, dict) else None
    if receipt.decision != Outcome.ALLOW or receipt.expires_at is None:
        return "RECEIPT_NOT_ALLOW"
    if receipt.actor_id != getattr(actor, "pk", None):
        return "RECEIPT_ACTOR_MISMATCH"
    if str(receipt.plan_id) != str(plan_id):
        return "RECEIPT_PLAN_MISMATCH"
    if binding is None:
        return "RECEIPT_STEP_MISMATCH"
    if binding.get("capability") != key or binding.get("version") != version:
        return "RECEIPT_CAPABILITY_MISMATCH"
    if binding.get("input_hash") != input_hash:
        return "RECEIPT_INPUT_MISMATCH"
    if started is None or timezone.is_naive(started) or started < receipt.issued_at or started > now:
        return "EXECUTION_START_INVALID"
    if started > receipt.expires_at:
        return "RECEIPT_EXPIRED"
    return None


def revalidate(*, receipt_id: Any, actor: Any, tenant: Tenant, plan_id: Any, step_id: str, capability: Any,
               input: Mapping[str, Any] | bytes | str, facts: Mapping[str, Any],  # noqa: A002 - the step's input
               execution_started_at: datetime | None, execution_id: Any = None,
               resources: Sequence[str] | None = None) -> Revalidation:
    """Check the receipt's binding and the live state right before a step. Always recorded.

    The expiry is compared with `execution_started_at` (when the execution began, from the
    executor's own record), not with now: a long execution that started in time keeps running as
    long as the live checks pass now.

    `resources`: the resources the runtime may route this call to, primary first, then the
    registered fallbacks it may use (default: the capability's, as the registry has them). RESOURCE kill
    switches are checked on them, not on the primary alone: the ones stopped come back as
    `stopped_resources` (and in the recorded check), and the step is refused only when none is left.
    """
    started = time.perf_counter()
    now = clock.now()  # the receipt's own clock (_receipt_create)
    reasons: list[Reason] = []
    receipt: PolicyReceipt | None = None
    live: LiveRead | None = None
    registry_version: int | None = None
    stopped: frozenset[str] = frozenset()
    key, version, input_hash = "", 0, ""
    try:
        key, version = _capability_ref(capability)
        input_hash = canonical_input_hash(input)
        code = None
    except (ValueError, TypeError, CanonicalizationError) as exc:
        code = "INPUT_NOT_CANONICAL" if isinstance(exc, CanonicalizationError) else "CAPABILITY_REF_MALFORMED"
    if code is None:
        receipt, live, code = _receipt_lookup(tenant, receipt_id, actor=actor, key=key)
    if code is None:
        code = _binding_problem(receipt=receipt, actor=actor, plan_id=plan_id, step_id=step_id, key=key,
                                version=version, input_hash=input_hash, started=execution_started_at, now=now)
    if code is None:
        step = Step.parse({"id": step_id, "capability": key, "version": version, "input": input
                           if isinstance(input, Mapping) else {}, "targets": receipt.steps[step_id]["targets"]})
        state = gather(actor=actor, tenant=tenant, steps=[step], agent_version=_agent_version(None), live=live)
        registry_version = state.registry_version
        route = tuple(resources or ())
        verdict = decide(state=state, steps=[step], facts=facts, routes={step_id: route} if route else None,
                         execution_ids=[str(plan_id), str(execution_id or "")])
        stopped = resources_stopped(state, route)
        if verdict.outcome == Outcome.DENY:
            reasons = [r for r in verdict.reasons if not r.code.startswith("RISK_")]
            code = reasons[0].code
    # A passed check still records the resources it ruled out: the call went around them.
    routed = [] if code else [Reason("RESOURCE_STOPPED", step_id, {"resource": r}) for r in sorted(stopped)]
    check = _check_record(tenant=tenant, receipt=receipt, receipt_id=receipt_id, actor=actor, plan_id=plan_id,
                          step_id=step_id, key=key, version=version, input_hash=input_hash,
                          execution_id=execution_id, started=execution_started_at, now=now,
                          code=code or "OK", reasons=reasons or routed)
    REVALIDATE_LATENCY.labels(outcome="deny" if code else "ok").observe(time.perf_counter() - started)
    return Revalidation(ok=code is None, code=code or "OK", reasons=tuple(reasons or ([Reason(code)] if code else [])),
                        check_id=check.pk, registry_version=registry_version, stopped_resources=stopped)


def _receipt_lookup(tenant: Tenant, receipt_id: Any, *, actor: Any,
                    key: str) -> tuple[PolicyReceipt | None, LiveRead | None, str | None]:
    """The receipt, re-read, and the live state for `key`, in one round trip (`policy.live`)."""
    try:
        pk = receipt_id if isinstance(receipt_id, uuid.UUID) else uuid.UUID(str(receipt_id))
    except (ValueError, TypeError, AttributeError):
        return None, None, "RECEIPT_MALFORMED"
    receipt, live = receipt_with_live(tenant=tenant, receipt_pk=pk, actor=actor, keys=[key])
    return (receipt, live, None) if receipt is not None else (None, None, "RECEIPT_NOT_FOUND")


def _check_record(*, tenant: Tenant, receipt: PolicyReceipt | None, receipt_id: Any, actor: Any, plan_id: Any,
                  step_id: Any, key: str, version: int, input_hash: str, execution_id: Any,
                  started: datetime | None, now: datetime, code: str, reasons: list[Reason]) -> ReceiptCheck:
    # Written on every step: the INSERT text is built once (tenancy.db), not compiled per call.
    return insert_one(ReceiptCheck(
        tenant=tenant, receipt=receipt, receipt_ref=str(receipt_id)[:64],
        actor=actor if getattr(actor, "pk", None) else None, plan_id=str(plan_id)[:64], step_id=str(step_id)[:100],
        capability=f"{key}@{version}" if key else "", input_hash=input_hash,
        execution_id=str(execution_id or "")[:64],
        execution_started_at=started if started is not None and not timezone.is_naive(started) else None,
        checked_at=now, ok=code == "OK", code=code, reasons=[r.to_dict() for r in reasons],
    ))


# --- kill switches ---------------------------------------------------------------------------


def resources_stopped_now(*, tenant: Tenant | Any, resources: Sequence[str]) -> frozenset[str]:
    """The ones of `resources` a raised RESOURCE kill switch (global or this tenant's) stops, read now:
    for a caller about to route a call that no `revalidate` on its route told (see its `resources`)."""
    raised = KillSwitch.objects.filter(scope=Scope.RESOURCE, target__in=[r for r in resources if r],
                                       lifted_at__isnull=True)
    mine = Q(tenant__isnull=True) | Q(tenant_id=getattr(tenant, "pk", tenant))
    return frozenset(raised.filter(mine).values_list("target", flat=True))


RUNTIME_ADMIN_PERMISSION = "policy.runtime_admin"


def _require_runtime_admin(actor: Any) -> None:
    if not (getattr(actor, "is_active", False) and actor.has_perm(RUNTIME_ADMIN_PERMISSION)):
        raise PolicyError("NOT_RUNTIME_ADMIN", "Only a runtime admin raises or lifts kill switches.")


def kill_switch_set(*, actor: Any, scope: str, reason: str, tenant: Tenant | None = None,
                    target: str = "") -> KillSwitch:
    """Raise a kill switch. Only a user holding `policy.runtime_admin`; audited in the same transaction.
    Stamped on `tenancy.clock`, the clock of the work it stops."""
    _require_runtime_admin(actor)
    if scope not in Scope.values or not reason.strip():
        raise PolicyError("KILL_SWITCH_INVALID", "A kill switch needs a valid scope and a reason.")
    with transaction.atomic():
        if KillSwitch.objects.filter(scope=scope, tenant=tenant, target=target, lifted_at__isnull=True).exists():
            raise PolicyError("KILL_SWITCH_ALREADY_RAISED", "That kill switch is already raised.")
        try:
            with transaction.atomic():
                switch = KillSwitch.objects.create(scope=scope, tenant=tenant, target=target, reason=reason,
                                                   set_by=actor, set_at=clock.now())
        except Exception as exc:  # IntegrityError from the coherence constraints or a racing raise
            raise PolicyError("KILL_SWITCH_INVALID", str(exc)) from exc
        audit_record(tenant=tenant, actor=actor, event_type="policy.kill_switch.raised", target_type="kill_switch",
                     target_id=str(switch.pk), old=None,
                     new={"scope": scope, "target": target, "active": True, "reason": reason})
    return switch


def kill_switch_lift(*, actor: Any, switch_id: int, reason: str) -> KillSwitch:
    _require_runtime_admin(actor)
    with transaction.atomic():
        lifted = KillSwitch.objects.filter(pk=switch_id, lifted_at__isnull=True).update(
            lifted_at=clock.now(), lifted_by=actor, lift_reason=reason)
        if lifted != 1:
            raise PolicyError("KILL_SWITCH_NOT_RAISED", "That kill switch is not raised.")
        switch = KillSwitch.objects.get(pk=switch_id)
        audit_record(tenant=switch.tenant, actor=actor, event_type="policy.kill_switch.lifted",
                     target_type="kill_switch", target_id=str(switch.pk),
                     old={"active": True}, new={"active": False, "reason": reason})
    return switch
