"""Human review of human_review confirmations (API.md `/agent/reviews`): listing, deciding through
policy's review services, and applying the decision to the requester's conversation.

The requester's own "sim" never satisfies a human_review confirmation; only an approval recorded
by policy (another authorised member) lets the plan start, and then under a receipt that policy
issues after re-evaluating with fresh facts (invariant 3).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from policy.reviews import review_request_approve, review_request_reject
from registry.selectors import registry_snapshot
from tenancy import clock
from tenancy.models import Tenant
from tenancy.selectors import membership_get

from .grammar import grammar_for
from .models import Confirmation, Level, PendingStatus
from .operations import approve_and_start, plan_for
from .persist import conversation_lock, conversation_save
from .statemachine import Status
from .turns import Turn, reader_for


def reviews_pending(*, tenant: Tenant, reviewer: Any) -> list[Confirmation]:
    """human_review confirmations of this tenant waiting for someone other than the requester."""
    now = clock.now()
    return list(Confirmation.objects.for_tenant(tenant).filter(level=Level.HUMAN_REVIEW, status=PendingStatus.PENDING,
                                                               expires_at__gt=now)
                .exclude(user=reviewer).order_by("created_at"))


def review_decide(*, tenant: Tenant, reviewer: Any, confirmation_id: Any, approve: bool, reason: str = "") -> None:
    confirmation = Confirmation.objects.for_tenant(tenant).filter(pk=confirmation_id,
                                                                  level=Level.HUMAN_REVIEW).first()
    if confirmation is None or confirmation.review_request_id is None:
        raise LookupError(confirmation_id)
    decide = review_request_approve if approve else review_request_reject
    # Policy checks who may decide; after commit its hook calls review_apply for the conversation.
    decide(tenant=tenant, reviewer=reviewer, request_id=confirmation.review_request_id, reason=reason)


def review_apply(*, tenant: Tenant, confirmation: Confirmation, approved: bool, reviewer_id: int, reason: str) -> None:
    from django.contrib.auth import get_user_model

    with transaction.atomic():
        conversation = conversation_lock(tenant=tenant, user=None, conversation_id=confirmation.conversation_id)
        current = conversation.pending_confirmation
        if current is None or current.pk != confirmation.pk or current.status != PendingStatus.PENDING:
            return
        snapshot = registry_snapshot()
        grammar = grammar_for(snapshot)
        user = confirmation.user
        membership = membership_get(user=user, tenant_id=tenant.pk)
        turn = Turn(conversation=conversation, user=user, tenant=tenant, role=membership.role if membership else "",
                    language=conversation.language, snapshot=snapshot, grammar=grammar,
                    reader=reader_for(user=user, tenant=tenant, snapshot=snapshot, grammar=grammar), now=clock.now(),
                    read_version=conversation.version)
        try:
            if approved and current.expires_at > turn.now:
                Confirmation.objects.for_tenant(tenant).filter(pk=current.pk).update(
                    status=PendingStatus.CONSUMED, decided_at=turn.now, decided_by_id=reviewer_id)
                current.status = PendingStatus.CONSUMED
                turn.event("CONFIRMATION_RECEIVED", {"confirmation_id": str(current.pk), "review": "approved"},
                           actor="system", operation_id=current.operation_id)
                plan = plan_for(turn, current)
                reviewer = get_user_model().objects.get(pk=reviewer_id)
                lead = turn.say("review.approved", action=current.summary)
                approve_and_start(turn, plan, current, approver=reviewer, review_request_id=current.review_request_id,
                                  lead=lead)
            else:
                Confirmation.objects.for_tenant(tenant).filter(pk=current.pk).update(
                    status=PendingStatus.REJECTED, decided_at=turn.now, decided_by_id=reviewer_id)
                current.status = PendingStatus.REJECTED
                turn.go(Status.CANCELLED)
                turn.event("EXECUTION_CANCELLED", {"confirmation_id": str(current.pk), "review": "rejected"},
                           actor="system", operation_id=current.operation_id)
                turn.reply("error", "review.rejected", values={"reason": f": {reason}" if reason else ""},
                           error={"code": "REVIEW_REJECTED", "detail": reason})
            conversation.last_response = turn.response
            conversation_save(conversation, read_version=turn.read_version, now=turn.now)
        finally:
            turn.reader.close()
