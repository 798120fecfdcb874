"""What reaches a conversation from outside a turn: an execution settling (execution's completion
hook), a reviewer's decision (policy's review hook), and the TTL sweep. Each one locks the row,
applies one transition through the table, bumps the version and appends its events, like a turn.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

import structlog
from django.db import transaction

from events.services import event_append
from execution.cancel import cancel_facts
from execution.composer import compose
from execution.models import Execution
from execution.selectors import execution_detail
from registry.selectors import registry_snapshot
from tenancy import clock
from tenancy.models import Tenant

from . import messages
from .batch import batch_done
from .cancel_report import cancel_text
from .grammar import grammar_for
from .metrics import stale_context_observe, task_executed
from .models import Clarification, Confirmation, Conversation, PendingStatus
from .persist import conversation_save
from .picked import with_values
from .reads import entity_ref
from .review import review_apply
from .state import entity_activate, entity_remember
from .statemachine import Status, check_transition
from .summary import MAX_ITEMS, parts_shown, read_answer

log = structlog.get_logger(__name__)

OUTCOME = {"completed": Status.SUCCESS, "partially_completed": Status.PARTIAL_SUCCESS, "failed": Status.FAILED,
           "compensated": Status.FAILED, "cancelled": Status.CANCELLED}


def _lock(tenant_id: Any, conversation_id: Any) -> Conversation | None:
    return (Conversation.objects.for_tenant(tenant_id).select_for_update(of=("self",))
            .select_related("tenant").filter(pk=conversation_id).first())


def _save(conversation: Conversation, read_version: int) -> None:
    conversation_save(conversation, read_version=read_version, now=clock.now())


def execution_view(detail: Mapping[str, Any], language: str) -> dict[str, Any]:
    return {"id": detail["id"], "status": detail["status"],
            "steps": [{"id": s["id"], "capability": s["capability"], "status": s["status"],
                       "label": (s.get("label") or {}).get(language) or (s.get("label") or {}).get("pt-BR")}
                      for s in detail["steps"]]}


def _labels(intent: Mapping[str, Any]) -> dict[str, str]:
    labels: dict[str, str] = {}
    for values in (intent.get("slots") or {}).values():
        for value in values:
            labels[str(value.get("value"))] = str(value.get("label"))
    return labels


def _created(detail: Mapping[str, Any], grammar: Any) -> list[dict[str, Any]]:
    """Entities the execution created, newest last: a permit, a component added to it..."""
    created = []
    for step in detail["steps"]:
        cap = grammar.capabilities.get(step["capability"])
        result = step.get("result")
        if cap is None or cap.kind != "write" or step["status"] != "completed" or cap.intent not in ("create", "add"):
            continue
        for item in result if isinstance(result, list) else [result]:
            if isinstance(item, Mapping) and item.get("id") is not None:
                label = "number" if item.get("number") is not None else "name"
                created.append(entity_ref(cap.entity, item, label_field=label))
    return created


def _listed(detail: Mapping[str, Any], grammar: Any, snapshot: Any) -> list[dict[str, Any]] | None:
    """The entities a list or search of the tenant's entities answered, in the order the reply shows them (the
    next "abre a segunda" picks among them, ordinals.py; one alone is the next "that one"), else None. Not a
    list under another entity (its items are that entity's parts, not it)."""
    steps = [s for s in detail["steps"] if s["status"] == "completed"]
    step = steps[0] if len(steps) == 1 else {}
    cap = grammar.capabilities.get(step.get("capability"))
    spec = snapshot.get(cap.id) if cap is not None else None  # (its schema: the step already ran, allowed)
    result = step.get("result")
    if (cap is None or spec is None or cap.kind != "read" or cap.intent not in ("list", "search")
            or spec.input_schema.get("required") or not isinstance(result, list)):
        return None
    shown = [r for r in result[:MAX_ITEMS] if isinstance(r, Mapping) and r.get("id") is not None]
    return [with_values(grammar, entity_ref(cap.entity, r, label_field="number" if r.get("number") is not None
                                            else "name"), r) for r in shown]


def _children_listed(detail: Mapping[str, Any], grammar: Any) -> list[dict[str, Any]] | None:
    """The parts of one item a read just listed ("<filhos> da <entidade> 51"), in the order shown: "remove the
    2nd" next picks among them (understanding._named). The read is the resolver of a slot of their type."""
    steps = [s for s in detail["steps"] if s["status"] == "completed"]
    step = steps[0] if len(steps) == 1 else {}
    cap = grammar.capabilities.get(step.get("capability"))
    result = step.get("result")
    if cap is None or cap.kind != "read" or not isinstance(result, list):
        return None
    return parts_shown(grammar, cap, result)


def _message(execution: Execution, detail: Mapping[str, Any], intent: Mapping[str, Any], grammar: Any,
             language: str, operation: Mapping[str, Any] | None = None, snapshot: Any = None) -> tuple[str, str]:
    """(response type, text): a read answers, a write reports; failed items are named as the user named them."""
    if execution.status == "cancelled" and cancel_facts(execution) is not None:  # what became of each step
        return "execution", cancel_text(execution=execution, intent=intent, language=language, opening="cancel.settled")
    labels = _labels(intent)
    caps = [grammar.capabilities.get(s["capability"]) for s in detail["steps"]]
    if all(c is not None and c.kind == "read" for c in caps) and execution.status == "completed":
        answer = read_answer(grammar, snapshot or registry_snapshot(), detail["steps"], language, intent.get("except"),
                             intent.get("slots"), intent.get("compare"))
        if answer and intent.get("unfiltered"):  # text_filter.py: the filter it did not apply, then the total
            nouns = grammar.noun(grammar.capabilities[intent["capability"]].entity, language, many=True)
            answer = messages.say("read.unfiltered", language, nouns=nouns, text=intent["unfiltered"]) + " " + (
                answer[:1].lower() + answer[1:])
        return "answer", answer or compose(execution, language)
    done = (operation or {}).get("done")
    text = done if done and execution.status == "completed" else compose(execution, language)
    if intent.get("batch") and execution.status in ("completed", "partially_completed"):
        text = batch_done(detail, intent, grammar, language) or text
        return "execution", text
    failed = [s for s in detail["steps"] if s["status"] in ("failed", "unknown")]
    if failed and execution.status == "partially_completed":
        text = _failed_named(text, failed, labels, _target_values(intent, grammar), language)
    kind = "error" if execution.status in ("failed", "compensated") else "execution"
    return kind, text


def _failed_named(text: str, failed: list[Mapping[str, Any]], labels: Mapping[str, str], targets: set[str],
                  language: str) -> str:
    """The partial result with each item that failed as the user named it — never its key ("confinedSpace") nor
    the item they all went to (the "<entity> 123" every step names)."""
    raw = [str(v) for step in failed for v in (step.get("input") or {}).values()
           if str(v) in labels and str(v) not in targets]
    names = [labels[v] for v in raw]
    if not names:
        return text
    said = text
    for value in raw:
        if not value.isdigit():  # a key the result quoted: its name instead
            said = said.replace(value, labels[value])
    detail = said if all(n in said for n in names) else f"{text} {messages.join_list(names, language)}"
    return messages.say("execution.partial", language, detail=detail.rstrip("."))


def _target_values(intent: Mapping[str, Any], grammar: Any) -> set[str]:
    cap = grammar.capabilities.get(str(intent.get("capability")))
    slots = intent.get("slots") or {}
    return {str(v.get("value")) for s in (cap.slots if cap else ()) if s.parse == "reference"
            for v in slots.get(s.name) or ()}


def on_execution_settled(execution: Execution) -> None:
    """Completion hook (registered in AppConfig.ready): SUCCESS / PARTIAL_SUCCESS / FAILED / CANCELLED."""
    if execution.conversation_id is None:
        return
    with transaction.atomic():
        conversation = _lock(execution.tenant_id, execution.conversation_id)
        if conversation is None:
            return
        read_version = conversation.version
        if settled_apply(conversation, execution):
            _save(conversation, read_version)


def settled_apply(conversation: Conversation, execution: Execution, snapshot: Any = None) -> bool:
    """Apply a settled execution to its locked conversation (not saved): status, operation, last result and
    reply. False when the conversation has moved on to another operation. A turn that ran its reads in its
    own transaction calls this before its one save (execution/inline.py), with the registry snapshot it
    read; the hook above, after the commit."""
    operation = conversation.active_operation or {}
    if str(operation.get("execution_id")) != str(execution.pk) and str(operation.get("plan_id")) != str(
            execution.plan_id):
        return False
    snapshot = snapshot or registry_snapshot()
    grammar = grammar_for(snapshot)
    detail = execution_detail(execution=execution)
    language = conversation.language
    kind, text = _message(execution, detail, operation.get("intent") or {}, grammar, language, operation, snapshot)
    created = _created(detail, grammar)
    view = execution_view(detail, language)
    outcome = OUTCOME.get(execution.status, Status.FAILED)
    if conversation.status in (Status.EXECUTING, Status.CANCELLING):
        conversation.status = check_transition(conversation.status, outcome)
    operation["status"] = execution.status
    operation["execution_id"] = str(execution.pk)
    conversation.active_operation = operation
    for ref in created:
        entity_remember(conversation, ref)
    listed = _listed(detail, grammar, snapshot)
    shown = listed if listed is not None else _children_listed(detail, grammar)
    if shown is not None:
        conversation.context = {**(conversation.context or {}), "listed": shown}
    if listed and len(listed) == 1:  # "which <entities> are cancelled?" → one: "who was responsible for that one?"
        entity_activate(conversation, listed[0], version=int(conversation.version or 0))
    task_executed(conversation, read_only=detail["plan"]["risk"] == "read")
    stale_context_observe(reason="target_changed", at="execution", count=sum(
        (s.get("error") or {}).get("code") == "TARGET_CHANGED" for s in detail["steps"]))
    conversation.last_result = {
        "operation_id": operation.get("operation_id"), "execution_id": str(execution.pk),
        "plan_id": str(execution.plan_id), "capability": operation.get("capability"),
        "status": execution.status, "created": created, "message": text, "intent": operation.get("intent"),
        "execution": view, "error": execution.error, "finished_at": (execution.finished_at or clock.now())
        .isoformat(), "confirmation_id": operation.get("confirmation_id"),
    }
    conversation.last_response = {
        "type": kind, "message": text, "template": f"execution.{execution.status}", "citations": [],
        "navigation": _navigation(detail), "clarification": None, "confirmation": None, "execution": view,
        "error": {"code": (execution.error or {}).get("code") or "EXECUTION_FAILED", "detail": text}
        if kind == "error" else None,
    }
    return True


def _navigation(detail: Mapping[str, Any]) -> dict[str, Any] | None:
    for step in reversed(detail["steps"]):
        result = step.get("result")
        if step["status"] == "completed" and isinstance(result, Mapping) and result.get("route"):
            return dict(result)
    return None


# --- human review ----------------------------------------------------------------------------


def on_review_decided(outcome: Mapping[str, Any]) -> None:
    """Policy's review hook: tell the requester's conversation; on approval, start the plan."""
    from policy.models import ReviewStatus

    tenant = Tenant.objects.filter(pk=outcome["tenant_id"]).first()
    if tenant is None:
        return
    confirmation = (Confirmation.objects.for_tenant(tenant).select_related("user")
                    .filter(review_request_id=outcome["request_id"]).first())
    if confirmation is None:
        return
    review_apply(tenant=tenant, confirmation=confirmation, approved=outcome["status"] == ReviewStatus.APPROVED,
                 reviewer_id=int(outcome["reviewer_id"]), reason=str(outcome.get("reason") or ""))


# --- TTL sweep -------------------------------------------------------------------------------


def pending_expire() -> int:
    """Mark pending clarifications/confirmations and operation contexts past their TTL as EXPIRED.

    Idempotent and safe with two beat processes: each row is claimed with a conditional UPDATE
    under the conversation lock, so a second sweeper finds nothing left to do.
    """
    now = clock.now()
    count = 0
    due = list(Confirmation.objects.all_tenants().filter(status=PendingStatus.PENDING, expires_at__lte=now)
               .values_list("conversation_id", "tenant_id").distinct()[:500])
    due += list(Clarification.objects.all_tenants().filter(status=PendingStatus.PENDING, expires_at__lte=now)
                .values_list("conversation_id", "tenant_id").distinct()[:500])
    for conversation_id, tenant_id in set(due):
        count += _expire_one(tenant_id, conversation_id)
    return count


def _expire_one(tenant_id: Any, conversation_id: Any) -> int:
    now = clock.now()
    with transaction.atomic():
        conversation = _lock(tenant_id, conversation_id)
        if conversation is None:
            return 0
        read_version = conversation.version
        events: list[tuple[str, dict[str, Any], Any]] = []
        for model, event_type, field in ((Confirmation, "CONFIRMATION_EXPIRED", "decided_at"),
                                         (Clarification, "CLARIFICATION_EXPIRED", "closed_at")):
            rows = list(model.objects.for_tenant(tenant_id).filter(conversation=conversation,
                                                                   status=PendingStatus.PENDING, expires_at__lte=now))
            for row in rows:
                claimed = model.objects.for_tenant(tenant_id).filter(pk=row.pk, status=PendingStatus.PENDING).update(
                    status=PendingStatus.EXPIRED, **{field: now})
                if claimed:
                    key = "confirmation_id" if model is Confirmation else "clarification_id"
                    events.append((event_type, {key: str(row.pk)}, getattr(row, "operation_id", None)))
        if not events:
            return 0
        operation = conversation.active_operation or {}
        if operation.get("status") in ("awaiting_confirmation", "planning"):
            operation["status"] = "expired"
            conversation.active_operation = operation
        if conversation.status in (Status.CONFIRMATION_REQUIRED, Status.CLARIFICATION_REQUIRED):
            conversation.status = check_transition(conversation.status, Status.IDLE)
        conversation.pending_confirmation = (Confirmation.objects.for_tenant(tenant_id)
                                             .filter(pk=conversation.pending_confirmation_id).first()
                                             if conversation.pending_confirmation_id else None)
        conversation.pending_clarification = None
        _save(conversation, read_version)
        for event_type, payload, operation_id in events:
            event_append(tenant=conversation.tenant, conversation_id=conversation.pk, type=event_type,
                         actor="system", state_version=conversation.version, payload=payload,
                         operation_id=uuid.UUID(str(operation_id)) if operation_id else None)
    return len(events)
