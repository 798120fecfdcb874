"""Operations: intent → plan → policy → confirmation → execution, through the planner, the policy
engine and the executor (never a business API directly, invariant 1).

An operation has its own OperationContext (§27): a new one never inherits the previous one's
targets or values; the UI selection at planning time is snapshotted on the confirmation so a
later "sim" can notice stale context (§29). Facts for policy are read now, through read
capabilities (execution.runtime.read_facts), at planning and again at confirmation.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import structlog
from django.conf import settings

from execution.runtime import read_facts
from execution.services import ExecutionError, execution_start
from planning.exceptions import PlanInvalid
from planning.intents import StructuredIntent, TargetRef
from planning.models import ExecutionPlan
from planning.selectors import plan_get, plan_policy_steps, plan_steps, plan_with_steps
from planning.services import plan_from_intent
from planning.templates import TEMPLATES
from policy.models import Outcome
from policy.services import Approval, decision_record, receipt_issue, review_request_open

from . import messages
from .grammar import CapabilityGrammar
from .models import Confirmation, Level, PendingStatus
from .statemachine import Status
from .turns import Turn
from .understanding import SlotValue

log = structlog.get_logger(__name__)


def confirmation_ttl() -> timedelta:
    return timedelta(seconds=int(settings.AGENT_CONFIRMATION_TTL_SECONDS))


def operation_ttl() -> timedelta:
    return timedelta(seconds=int(settings.AGENT_OPERATION_CONTEXT_TTL_SECONDS))


# --- intent state ----------------------------------------------------------------------------


def intent_state(*, capability: str, values: Mapping[str, list[SlotValue]], text: str, language: str,
                 clone: bool = False, undo_of: str | None = None) -> dict[str, Any]:
    return {"id": str(uuid.uuid4()), "capability": capability, "text": text[:500], "language": language,
            "slots": {name: [v.to_dict() for v in vals] for name, vals in values.items() if vals},
            "clone": clone, "undo_of": undo_of}


def slot_values(state: Mapping[str, Any], name: str) -> list[SlotValue]:
    return [SlotValue.from_dict(v) for v in (state.get("slots") or {}).get(name) or []]


def _is_target(turn: Turn, cap: CapabilityGrammar, slot_name: str) -> bool:
    slot = cap.slot(slot_name)
    return bool(slot and slot.from_context and turn.reader.read_capability(slot.type))


def structured_intent(turn: Turn, state: Mapping[str, Any]) -> tuple[StructuredIntent, dict[str, int]]:
    """The planner's StructuredIntent (+ revision pins) from the conversation's IntentState."""
    if state.get("batch"):
        from .batch import batch_intent

        return batch_intent(turn, state), {}
    cap = turn.grammar.capabilities[state["capability"]]
    slots: dict[str, Any] = {}
    targets: dict[str, TargetRef] = {}
    pins: dict[str, int] = {}
    name = cap.id
    for slot in cap.slots:
        values = slot_values(state, slot.name)
        if not values:
            continue
        if _is_target(turn, cap, slot.name):
            ref = values[0].entity or {}
            fresh = turn.reader.entity(slot.type, values[0].value) or {}
            revision = fresh.get("revision", ref.get("revision"))
            targets[slot.name] = TargetRef(type=slot.type, id=values[0].value, revision=revision,
                                           label=str(values[0].label))
            if revision is not None:
                pins[f"{slot.type}:{values[0].value}"] = int(revision)
        elif len(values) > 1 and not slot.many and f"{cap.id}Many" in TEMPLATES:
            name = f"{cap.id}Many"
            slots[f"{slot.field}s"] = [v.value for v in values]
        else:
            slots[slot.field] = [v.value for v in values] if slot.many else values[0].value
    if state.get("clone") and "permit" not in targets:
        source = slot_values(state, "source")
        if source:
            ref = source[0].entity or {}
            targets["permit"] = TargetRef(type=str(ref.get("type")), id=source[0].value,
                                          revision=ref.get("revision"), label=source[0].label)
    if state.get("clone"):
        changed = any(k in slots for k in ("responsible", "validity_days"))
        name = f"{cap.entity}.cloneWithChanges" if changed else f"{cap.entity}.clone"
    intent = StructuredIntent(name=name, slots=slots, targets=targets, language=turn.language,
                              text=str(state.get("text", "")), id=uuid.UUID(state["id"]))
    return intent, pins


# --- summary ---------------------------------------------------------------------------------


def _verb(cap: CapabilityGrammar, language: str) -> str:
    for verb in cap.verbs:
        if verb.language == language:
            return " ".join(verb.words)
    return cap.intent


@dataclass
class _Texts:
    values: dict[str, str] = field(default_factory=dict)  # slot name (and "target") -> display text
    details: list[str] = field(default_factory=list)
    affected: list[dict[str, Any]] = field(default_factory=list)


def _slot_texts(turn: Turn, state: Mapping[str, Any]) -> _Texts:
    cap = turn.grammar.capabilities[state["capability"]]
    language, out, target_text = turn.language, _Texts(), ""
    for name, raw in (state.get("slots") or {}).items():
        values = [SlotValue.from_dict(v) for v in raw]
        slot = cap.slot(name)
        if name == "source" or (slot is not None and _is_target(turn, cap, name)):
            ref = values[0].entity or {}
            company = (ref.get("company") or {}).get("name")
            noun = turn.grammar.noun(str(ref.get("type") or (slot.type if slot else "")), language)
            target_text = f"{noun} {values[0].label}" + (f" ({company})" if company else "")
            out.affected.append({"type": ref.get("type"), "id": str(values[0].value), "label": values[0].label,
                                 **({"company": company} if company else {})})
            continue
        if slot is not None and slot.parse == "integer":
            out.values[name] = str(values[0].label)
            unit = f" {messages.term('days', language)}" if slot.name.endswith("_days") else ""
            out.details.append(f"{messages.term(slot.name, language)} {values[0].label}{unit}")
        else:
            labels = messages.join_list([f"\u201c{v.label}\u201d" for v in values], language)
            out.values[name] = labels
            term = messages.term(slot.name if slot is None or not slot.type else slot.type, language)
            out.details.append(f"{term} {labels}" if term and term != slot.type else labels)
            out.affected.extend({"type": v.entity.get("type"), "id": str(v.value), "label": v.label}
                                for v in values if v.entity)
    out.values["target"] = target_text.strip()
    return out


def describe(turn: Turn, state: Mapping[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """("adicionar “Trabalho em Altura” à permissão 123 (Alfa)", affected resources) in the turn's language.

    The capability's `language.summary` template (registry) words the action when it has one; the
    generic "verb, details — target" form covers capabilities without it.
    """
    if state.get("batch"):
        from .batch import batch_describe

        return batch_describe(turn, state)
    texts = _slot_texts(turn, state)
    summary = None if state.get("clone") else _render(turn, state["capability"], "summary", texts.values)
    if summary:
        return summary, texts.affected
    cap = turn.grammar.capabilities[state["capability"]]
    language = turn.language
    verb = "clonar" if state.get("clone") and language == "pt-BR" else ("clone" if state.get("clone")
                                                                         else _verb(cap, language))
    action = " ".join(p for p in [verb, ", ".join(texts.details)] if p)
    if texts.values["target"]:
        action += f" \u2014 {texts.values['target']}"
    return action, texts.affected


def done_text(turn: Turn, state: Mapping[str, Any]) -> str | None:
    """The reply once the operation completed ("Validade da permissão 123 alterada para 60 dias."), from the
    capability's `language.done` template; None when it has none (the execution composer answers then)."""
    if state.get("batch"):
        return None  # worded from the items' results when the execution settles (hooks)
    return None if state.get("clone") else _render(turn, state["capability"], "done", _slot_texts(turn, state).values)


_OPTIONAL = re.compile(r"\[([^\[\]]*)\]")
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


def _render(turn: Turn, capability_id: str, kind: str, values: Mapping[str, str]) -> str | None:
    """The registry's `language.<kind>` template filled in; None when it has none or lacks a required value."""
    spec = turn.snapshot.get(capability_id)
    template = ((spec.language.get(kind) if spec else None) or {}).get(turn.language)
    if not template:
        return None
    template = _OPTIONAL.sub(
        lambda m: m.group(1) if all(values.get(k) for k in _PLACEHOLDER.findall(m.group(1))) else "", template)
    if not all(values.get(k) for k in _PLACEHOLDER.findall(template)):
        return None
    text = _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)
    return text[0].upper() + text[1:] if kind == "done" else text


# --- planning --------------------------------------------------------------------------------


def _facts(turn: Turn, plan: ExecutionPlan) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    steps = plan_policy_steps(plan=plan)
    targets = {(t["type"], str(t["id"])): t for s in steps for t in s.get("targets") or []}
    facts, _ = read_facts(session=turn.reader.session(), snapshot=turn.snapshot, tenant=turn.tenant,
                          targets=targets.values())
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


def clarification_drop(turn: Turn) -> None:
    """An earlier unanswered question is dropped when the user moves on to something else."""
    from .models import Clarification

    asked = turn.conversation.pending_clarification
    if asked is not None and asked.status == PendingStatus.PENDING:
        Clarification.objects.for_tenant(turn.tenant).filter(pk=asked.pk, status=PendingStatus.PENDING).update(
            status=PendingStatus.INVALIDATED, closed_at=turn.now)
        asked.status = PendingStatus.INVALIDATED


def invalidate_pending(turn: Turn, *, reason: str) -> None:
    """A new intent, target or parameter: the earlier confirmation can no longer be used (§48-§49)."""
    clarification_drop(turn)
    pending = turn.conversation.pending_confirmation
    if pending is not None and pending.status == PendingStatus.PENDING:
        Confirmation.objects.for_tenant(turn.tenant).filter(pk=pending.pk, status=PendingStatus.PENDING).update(
            status=PendingStatus.INVALIDATED, decided_at=turn.now)
        pending.status = PendingStatus.INVALIDATED
        turn.event("INTENT_UPDATED", {"invalidated_confirmation": str(pending.pk), "reason": reason})


def plan_and_decide(turn: Turn, state: Mapping[str, Any], *, reuse_soft_of: str | None = None,
                    lead: str = "") -> None:
    """Plan the intent, ask policy, then ask for confirmation or start (reads / allowed retries)."""
    invalidate_pending(turn, reason="new_plan")
    turn.go(Status.PLANNING)
    intent, pins = structured_intent(turn, state)
    try:
        plan = plan_from_intent(tenant=turn.tenant, actor=turn.user, intent=intent,
                                conversation_id=turn.conversation.pk, pins=pins)
    except PlanInvalid as exc:
        log.warning("plan_invalid", intent=intent.to_dict(), reasons=exc.reasons)
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
        turn.error("POLICY_DENIED", "policy.denied", reason=messages.reason_text(decision.codes, turn.language))
        return
    if decision.outcome == Outcome.ALLOW:
        start(turn, plan, receipt.pk, action=action)
        return
    if reuse_soft_of and decision.level == Level.SOFT:
        earlier = Confirmation.objects.for_tenant(turn.tenant).filter(pk=reuse_soft_of).first()
        if earlier is not None and earlier.plan_hash == plan.canonical_hash and earlier.expires_at > turn.now:
            approve_and_start(turn, plan, earlier, steps=steps, facts=facts, action=action, lead=lead)
            return
    ask(turn, plan, state, decision.level, decision.risk, action, affected, lead=lead, facts=facts)


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
    from .state import confirmation_view

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
                                    receipt=receipt, steps=steps, defer_start=not turn.strict)
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
