"""Operations: intent → plan → policy → confirmation → execution, through the planner, the policy
engine and the executor (never a business API directly, invariant 1).

An operation has its own OperationContext (§27): a new one never inherits the previous one's
targets or values; the UI selection at planning time is snapshotted on the confirmation so a
later "sim" can notice stale context (§29). Facts for policy are read now, through read
capabilities (execution.facts.read_facts), at planning and again at confirmation.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

import structlog
from django.conf import settings

from execution.facts import read_facts
from execution.models import Execution, StepRun, StepStatus
from execution.services import ExecutionError, execution_start
from planning.exceptions import PlanInvalid
from planning.models import ExecutionPlan
from planning.selectors import plan_get, plan_policy_steps, plan_steps, plan_with_steps
from planning.services import plan_from_intent, plan_from_parts, plan_remaining
from policy.models import Outcome
from policy.services import Approval, decision_record, receipt_issue, review_request_open

from . import messages
from .already import already_so, answer_already_so
from .clarify import clarify
from .ellipsis import remember_capability
from .flow import activate_targets, invalidate_pending, is_count
from .grammar import CapabilityGrammar
from .intents import compound_intents, intent_state, is_target, repeated, structured_intent
from .models import Confirmation, Level
from .relative_values import relative_settled
from .state import confirmation_view
from .statemachine import Status
from .summary import code_labels, describe, done_text
from .turns import Turn
from .understanding import Extraction
from .undo_plan import is_undo, undo_plan

log = structlog.get_logger(__name__)


def confirmation_ttl() -> timedelta:
    return timedelta(seconds=int(settings.AGENT_CONFIRMATION_TTL_SECONDS))


def operation_ttl() -> timedelta:
    return timedelta(seconds=int(settings.AGENT_OPERATION_CONTEXT_TTL_SECONDS))


# --- a new operational intent -----------------------------------------------------------------


def operate(turn: Turn, cap: CapabilityGrammar, extraction: Extraction, parts: list[str], *,
            clone: bool = False) -> None:
    if cap.kind == "write" and not clone:
        _require_a_change(turn, cap, extraction)
        _one_at_a_time(turn, cap, extraction)
    state = intent_state(capability=cap.id, values=extraction.values, text=turn.text, language=turn.language,
                         clone=clone)
    turn.event("INTENT_CREATED", {"intent_id": state["id"], "capability": cap.id})
    if not extraction.complete:
        return clarify(turn, state, extraction)
    activate_targets(turn, state)
    if cap.kind in ("read", "write"):  # "e as canceladas?" / "a 311 também" next ask it again
        context = dict(turn.conversation.context or {})
        remember_capability(context, cap.id, state["slots"])
        turn.conversation.context = context
    if cap.kind == "read" and not is_count(cap):
        return read_answer_direct(turn, cap, state)
    plan_and_decide(turn, state)


def _require_a_change(turn: Turn, cap: CapabilityGrammar, extraction: Extraction) -> None:
    """A write that changes values (update) needs at least one of them; it never runs empty. A write
    with a required value of its own (a note's text) has its change: the optional rest may stay unsaid."""
    if any(s.required and not (s.from_context and turn.reader.read_capability(s.type)) for s in cap.slots):
        return
    values = [s for s in cap.slots if not (s.from_context and turn.reader.read_capability(s.type))
              and s.type not in ("text",) or (s.type == "text" and s.parse == "reference")]
    values = [s for s in values if s.type != "knowledgeRef" and not (s.type == "text" and s.parse == "text")]
    if values and not any(extraction.values.get(s.name) or extraction.ambiguous.get(s.name)
                          or extraction.not_found.get(s.name) for s in values):
        required = [s.name for s in values if s.required]
        extraction.missing.extend(m for m in (required or [values[0].name]) if m not in extraction.missing)


def _one_at_a_time(turn: Turn, cap: CapabilityGrammar, extraction: Extraction) -> None:
    """Several values for a slot that takes one, with no composite repeating the capability over them (no
    "<capability>Many"): which one is asked, the values said its choices — never the first taken silently and
    the others dropped ("put <person> and <person> on 512" had added only the first and said both)."""
    if repeated(cap.id):
        return
    for slot in cap.slots:
        values = extraction.values.get(slot.name) or []
        if len(values) > 1 and not slot.many and not is_target(turn, cap, slot.name):
            extraction.ambiguous[slot.name] = [{"type": slot.type, "id": v.value, **(v.entity or {}),
                                                "value": v.value, "label": v.label} for v in values]
            del extraction.values[slot.name]


def read_answer_direct(turn: Turn, cap: CapabilityGrammar, state: Mapping[str, Any]) -> None:
    """A read the fast path answers itself (show/list): through the planner and executor like any plan."""
    plan_and_decide(turn, state)


# --- planning --------------------------------------------------------------------------------


def _facts(turn: Turn, plan: ExecutionPlan) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    steps = plan_policy_steps(plan=plan)
    targets = {(t["type"], str(t["id"])): t for s in steps for t in s.get("targets") or []}
    known = {f"{kind}:{ident}": row for (kind, ident) in targets
             if (row := turn.reader.already_read(kind, ident)) is not None}
    facts, _ = read_facts(session=turn.reader.session(), snapshot=turn.snapshot, tenant=turn.tenant,
                          targets=targets.values(), known=known)
    return steps, facts


def operation_open(turn: Turn, state: Mapping[str, Any], plan: ExecutionPlan | None) -> dict[str, Any]:
    now = turn.now
    operation = {
        "operation_id": str(uuid.uuid4()), "intent_id": state["id"], "capability": state["capability"],
        "plan_id": str(plan.pk) if plan else None, "plan_hash": plan.canonical_hash if plan else None,
        "execution_id": None, "status": "planning", "intent": dict(state),
        "ui_snapshot": (turn.conversation.context or {}).get("selection"),
        "created_at": now.isoformat(), "expires_at": (now + operation_ttl()).isoformat(),
    }
    turn.conversation.active_operation = operation
    turn.conversation.active_intent = dict(state)
    return operation


def plan_and_decide(turn: Turn, state: Mapping[str, Any], *, reuse_soft_of: str | None = None,
                    lead: str = "") -> None:
    """Plan the intent, ask policy, then ask for confirmation or start (reads / allowed retries)."""
    state, invalid = relative_settled(turn, state)  # "add a week" counted from the item settled last
    if invalid:
        return clarify(turn, state, Extraction(invalid=invalid))
    invalidate_pending(turn, reason="new_plan")
    turn.go(Status.PLANNING)
    try:
        plan = _plan(turn, state)
    except PlanInvalid as exc:
        log.warning("plan_invalid", intent=state.get("capability"), reasons=exc.reasons)
        operation_open(turn, state, None)["status"] = "failed"
        codes = [r.get("code", "PLAN_INVALID") for r in exc.reasons]
        turn.go(Status.FAILED)
        turn.event("EXECUTION_FAILED", {"code": "PLAN_INVALID", "reasons": codes})
        turn.error("PLAN_INVALID", "plan.invalid", reason=messages.reason_text(codes, turn.language))
        return
    operation = operation_open(turn, state, plan)
    turn.event("PLAN_CREATED", {"plan_id": str(plan.pk), "template": plan.template, "risk": plan.risk,
                                "hash": plan.canonical_hash}, operation_id=operation["operation_id"])
    steps, facts = _facts(turn, plan)
    decision, receipt = decision_record(actor=turn.user, tenant=turn.tenant, plan_id=plan.pk,
                                        plan_hash=plan.canonical_hash, steps=steps, facts=facts)
    action, affected = describe(turn, state)
    operation["done"] = done_text(turn, state)
    if decision.outcome == Outcome.DENY:
        operation["status"] = "failed"
        turn.go(Status.FAILED)
        turn.event("EXECUTION_FAILED", {"code": "POLICY_DENIED", "reasons": decision.codes},
                   operation_id=operation["operation_id"])
        turn.error("POLICY_DENIED", "policy.denied_action", action=action,
                   reason=messages.reason_text(decision.codes, turn.language, _said_with_values(turn, decision)))
        return
    if already_so(turn, plan):  # the data already shows it done: saying yes could only fail
        answer_already_so(turn, operation, action, lead)
        return
    if decision.outcome == Outcome.ALLOW:
        start(turn, plan, receipt.pk, action=action, receipt=receipt)
        return
    if reuse_soft_of and decision.level == Level.SOFT:
        earlier = Confirmation.objects.for_tenant(turn.tenant).filter(pk=reuse_soft_of).first()
        if earlier is not None and earlier.plan_hash == plan.canonical_hash and earlier.expires_at > turn.now:
            approve_and_start(turn, plan, earlier, steps=steps, facts=facts, action=action, lead=lead)
            return
    ask(turn, plan, state, decision.level, decision.risk, action, affected, lead=lead, facts=facts)


def _plan(turn: Turn, state: Mapping[str, Any]) -> ExecutionPlan:
    if state.get("remaining_of"):  # a retry of a partly done plan: what it completed is not done again
        execution = Execution.objects.for_tenant(turn.tenant).select_related("plan").get(pk=state["remaining_of"])
        writes = {s.step_id for s in plan_steps(plan=execution.plan) if s.kind == "write"}
        done = {r.step_id: r.result for r in StepRun.objects.for_tenant(turn.tenant).filter(
            execution=execution, status=StepStatus.COMPLETED, step_id__in=writes)}  # reads are read afresh
        return plan_remaining(tenant=turn.tenant, actor=turn.user, plan=execution.plan, done=done,
                              conversation_id=turn.conversation.pk)
    if is_undo(state):  # a batch undone as one plan of the undo capability over its items (undo_plan.py)
        return undo_plan(turn, state)
    if state.get("compound"):
        parts, pins = compound_intents(turn, state)
        return plan_from_parts(tenant=turn.tenant, actor=turn.user, parts=parts, text=str(state.get("text", "")),
                               language=turn.language, conversation_id=turn.conversation.pk, pins=pins)
    intent, pins = structured_intent(turn, state)
    return plan_from_intent(tenant=turn.tenant, actor=turn.user, intent=intent,
                            conversation_id=turn.conversation.pk, pins=pins)


def ask(turn: Turn, plan: ExecutionPlan, state: Mapping[str, Any], level: str, risk: str, action: str,
        affected: list[dict[str, Any]], *, lead: str = "", facts: Mapping[str, Any] | None = None) -> None:
    conversation = turn.conversation
    language = turn.language
    if level == Level.STRONG:
        affected_text = messages.join_list([f"{a.get('label')}" + (f" ({a['company']})" if a.get("company") else "")
                                            for a in affected], language)
        question = messages.say("confirmation.ask_strong", language, action=action,
                                risk=messages.RISK_WORDS[language].get(risk, risk), affected=affected_text)
        template = "confirmation.ask_strong"
    elif level == Level.HUMAN_REVIEW:
        question, template = messages.say("confirmation.review", language, action=action), "confirmation.review"
    else:
        question, template = messages.say("confirmation.ask", language, action=action), "confirmation.ask"
    confirmation = Confirmation.objects.create(
        tenant=turn.tenant, conversation=conversation, user=turn.user,
        operation_id=conversation.active_operation["operation_id"], plan_id=plan.pk, plan_hash=plan.canonical_hash,
        intent=dict(state), risk=risk, level=level, summary=action, template=template, affected=affected,
        ui_snapshot=(conversation.context or {}).get("selection") or {}, created_at=turn.now,
        expires_at=turn.now + confirmation_ttl(), facts=dict(facts) if facts is not None else None)
    if level == Level.HUMAN_REVIEW:
        review = review_request_open(tenant=turn.tenant, requester=turn.user, conversation_id=conversation.pk,
                                     plan_id=plan.pk, plan_hash=plan.canonical_hash, summary=action)
        confirmation.review_request_id = review.pk
        confirmation.save(update_fields=["review_request_id"])
    conversation.pending_confirmation = confirmation
    conversation.active_operation["status"] = "awaiting_confirmation"
    conversation.active_operation["confirmation_id"] = str(confirmation.pk)
    turn.go(Status.CONFIRMATION_REQUIRED)
    turn.event("CONFIRMATION_REQUIRED", {"confirmation_id": str(confirmation.pk), "plan_id": str(plan.pk),
                                         "level": level, "risk": risk,
                                         "expires_at": confirmation.expires_at.isoformat()},
               operation_id=conversation.active_operation["operation_id"])
    message = " ".join(p for p in [lead, question] if p)
    turn.reply("confirmation", template, message=message, confirmation=confirmation_view(confirmation))


def approve_and_start(turn: Turn, plan: ExecutionPlan, confirmation: Confirmation, *, steps=None, facts=None,
                      action: str = "", lead: str = "", approver: Any = None,
                      review_request_id: Any = None, rows: list | None = None) -> None:
    """Re-evaluate policy with the approval and get an ALLOW receipt, then start (invariant 3).

    Facts: the ones policy decided on at planning when the confirmation holds them (the executor
    reads them again right before each step), else read now."""
    rows = rows if rows is not None else plan_steps(plan=plan)
    if steps is None:
        steps = [s.as_policy_step() for s in rows]
    if facts is None:
        facts = confirmation.facts if confirmation.facts is not None and approver is None else None
    if facts is None:
        steps, facts = _facts(turn, plan)
    approval = Approval(confirmation_id=confirmation.pk, plan_id=plan.pk, plan_hash=plan.canonical_hash,
                        level=confirmation.level, approved_by=(approver or turn.user).pk, approved_at=turn.now,
                        review_request_id=review_request_id)
    receipt = receipt_issue(actor=turn.user, tenant=turn.tenant, plan_id=plan.pk, plan_hash=plan.canonical_hash,
                            steps=steps, facts=facts, approval=approval,
                            live=turn.pending_live)  # policy uses it only if read for these capabilities
    if receipt.decision != Outcome.ALLOW:
        codes = [r.get("code") for r in receipt.reasons]
        turn.go(Status.FAILED)
        operation = turn.conversation.active_operation or {}
        operation["status"] = "failed"
        turn.event("EXECUTION_FAILED", {"code": "POLICY_DENIED", "reasons": codes},
                   operation_id=operation.get("operation_id"))
        turn.error("POLICY_DENIED", "policy.denied", reason=messages.reason_text(codes, turn.language))
        return
    start(turn, plan, receipt.pk, action=action or confirmation.summary, lead=lead, receipt=receipt, steps=rows)


def start(turn: Turn, plan: ExecutionPlan, receipt_id: Any, *, action: str, lead: str = "",
          receipt: Any = None, steps: list | None = None) -> None:
    operation = turn.conversation.active_operation or {}
    try:
        execution = execution_start(plan=plan, receipt_id=receipt_id, actor=turn.user, tenant=turn.tenant,
                                    receipt=receipt, steps=steps, defer_start=not turn.strict,
                                    inline=True)
    except ExecutionError as exc:
        turn.go(Status.FAILED)
        operation["status"] = "failed"
        turn.error(exc.code, "execution.failed", reason=exc.detail or exc.code)
        return
    operation["execution_id"] = str(execution.pk)
    operation["status"] = "executing"
    turn.conversation.active_operation = operation
    turn.started_execution = str(execution.pk)
    turn.started_read = not plan.requires_confirmation
    turn.go(Status.EXECUTING)
    message = " ".join(p for p in [lead, turn.say("execution.started", action=action)] if p)
    turn.reply("execution", "execution.started", message=message,
               execution={"id": str(execution.pk), "status": execution.status, "steps": []})


def plan_for(turn: Turn, confirmation: Confirmation) -> ExecutionPlan | None:
    return plan_get(tenant=turn.tenant, plan_id=confirmation.plan_id)


def plan_and_steps_for(turn: Turn, confirmation: Confirmation) -> tuple[ExecutionPlan | None, list]:
    return plan_with_steps(tenant=turn.tenant, plan_id=confirmation.plan_id)


def _said_with_values(turn: Turn, decision: Any) -> dict[str, str]:
    """The failed preconditions' own words, a fact's value in them as the user reads it ("aprovada" for APPROVED)."""
    codes = code_labels(turn.grammar, turn.language)
    return decision.says(turn.language, lambda _fact, value: codes.get(str(value), str(value).lower()))
