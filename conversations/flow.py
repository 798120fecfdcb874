"""Turn helpers shared by the handlers: what is pending, the resting status a turn ends in, the
pending rows' TTL and closing, the entity a new intent activates, the conversation's topic.

Below every handler (never imports one), so any handler may finish its turn with `rest`.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from registry.roles import permissions_for_role

from .grammar import CapabilityGrammar
from .models import Clarification, Confirmation, PendingStatus
from .state import entity_activate
from .statemachine import Status
from .turns import Turn


def allowed_capabilities(turn: Turn) -> set[str]:
    permissions = permissions_for_role(turn.role_name())
    return {cap_id for cap_id in turn.grammar.capabilities
            if (spec := turn.snapshot.get(cap_id, tenant=turn.tenant)) is not None
            and (spec.kind != "read" or spec.permitted_for(permissions))}


def pending_confirmation(turn: Turn) -> Confirmation | None:
    pending = turn.conversation.pending_confirmation
    return pending if pending is not None and pending.status == PendingStatus.PENDING else None


def pending_clarification(turn: Turn) -> Clarification | None:
    pending = turn.conversation.pending_clarification
    return pending if pending is not None and pending.status == PendingStatus.PENDING else None


def rest(turn: Turn) -> None:
    """Back to a resting status that tells the truth about what is pending."""
    if pending_confirmation(turn) is not None:
        turn.go(Status.CONFIRMATION_REQUIRED)
    elif pending_clarification(turn) is not None:
        turn.go(Status.CLARIFICATION_REQUIRED)
    elif turn.conversation.status in (Status.UNDERSTANDING, Status.CORRECTING, Status.RESUMING):
        turn.go(turn.resting_before if turn.resting_before in (Status.EXECUTING, Status.SUCCESS, Status.FAILED,
                                                                 Status.PARTIAL_SUCCESS, Status.CANCELLED)
                else Status.IDLE)


def expire_pending(turn: Turn) -> None:
    """TTL enforced on read: a pending question or confirmation past its expiry completes nothing."""
    clarification = pending_clarification(turn)
    if clarification is not None and clarification.expires_at <= turn.now:
        Clarification.objects.for_tenant(turn.tenant).filter(pk=clarification.pk, status=PendingStatus.PENDING) \
            .update(status=PendingStatus.EXPIRED, closed_at=turn.now)
        clarification.status = PendingStatus.EXPIRED
        turn.event("CLARIFICATION_EXPIRED", {"clarification_id": str(clarification.pk)})
    confirmation = pending_confirmation(turn)
    if confirmation is not None and confirmation.expires_at <= turn.now:
        Confirmation.objects.for_tenant(turn.tenant).filter(pk=confirmation.pk, status=PendingStatus.PENDING) \
            .update(status=PendingStatus.EXPIRED, decided_at=turn.now)
        confirmation.status = PendingStatus.EXPIRED
        turn.event("CONFIRMATION_EXPIRED", {"confirmation_id": str(confirmation.pk)},
                   operation_id=confirmation.operation_id)


def close_clarification(turn: Turn, clarification: Clarification, status: str) -> None:
    Clarification.objects.for_tenant(turn.tenant).filter(pk=clarification.pk).update(status=status,
                                                                                       closed_at=turn.now)
    clarification.status = status


def clarification_drop(turn: Turn) -> None:
    """An earlier unanswered question is dropped when the user moves on to something else."""
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


def activate_targets(turn: Turn, state: Mapping[str, Any]) -> None:
    for values in (state.get("slots") or {}).values():
        for value in values:
            entity = value.get("entity")
            if isinstance(entity, Mapping) and entity.get("type") and value.get("source") in ("text", "ui"):
                entity_activate(turn.conversation, entity, version=turn.version)
                turn.event("REFERENCE_RESOLVED", {"type": entity.get("type"), "id": str(entity.get("id")),
                                                  "source": value.get("source")})
                return


def operated_mark(turn: Turn, capability_id: str, key: str, value: Any) -> None:
    """Mark the intent just operated (active and in the operation): its answer reads `key` when the read completes
    (hooks._message: a negated filter's `except`, a filter not applied's `unfiltered`)."""
    for intent in (turn.conversation.active_intent, (turn.conversation.active_operation or {}).get("intent")):
        if isinstance(intent, dict) and intent.get("capability") == capability_id:
            intent[key] = value


def is_count(cap: CapabilityGrammar) -> bool:
    return cap.intent == "count"


def topic_set(turn: Turn, *, words: list[str], entity: Mapping[str, Any] | None, semantic_id: str | None) -> None:
    context = dict(turn.conversation.context or {})
    old = context.get("topic") or {}
    same = sorted(old.get("words") or []) == sorted(words) and old.get("entity") == entity
    topic = {"id": old.get("id") if same else str(uuid.uuid4()), "words": words, "entity": entity,
             "semantic_id": semantic_id, "started_at": old.get("started_at") if same else turn.now.isoformat(),
             "last_activity_at": turn.now.isoformat()}
    context["topic"] = topic
    turn.conversation.context = context
    if not same:
        turn.event("TOPIC_CHANGED", {"topic_id": topic["id"], "words": words, "semantic_id": semantic_id})
