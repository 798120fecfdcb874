"""Human review of human_review confirmations: open, approve, reject, and tell the conversation.

Who may decide: a member of the request's tenant, who is not the requester, and who holds
`review_conversation` — either the global `policy.review_conversation` permission, or a
django-guardian object permission on the conversation. The conversations app does not exist yet,
so the object side is a hook: conversations registers `register_review_object_resolver(fn)` where
`fn(tenant, conversation_id)` returns its Conversation instance, and the reviewer passes if
`user.has_perm("<app>.review_conversation", conversation)` (guardian's backend answers that).

A decision is a row of its own (ReviewDecision, append-only, one per request): two reviewers
racing produce exactly one decision; the loser gets `REVIEW_ALREADY_DECIDED`. The decision is
audited in its transaction; after commit each hook registered with `register_review_hook(fn)` is
called with a `ReviewOutcome` so the conversation can tell the requester (execution of the plan
goes through `receipt_issue` with the approval, never through the hook alone).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any, TypedDict

import structlog
from django.db import IntegrityError, transaction

from tenancy import clock
from tenancy.models import Tenant
from tenancy.selectors import membership_get

from .audit import audit_record
from .exceptions import PolicyError
from .models import ReviewDecision, ReviewRequest, ReviewStatus

log = structlog.get_logger(__name__)

REVIEW_PERMISSION = "policy.review_conversation"
OBJECT_REVIEW_CODENAME = "review_conversation"


class ReviewOutcome(TypedDict):
    tenant_id: str
    request_id: str
    conversation_id: str
    plan_id: str
    requester_id: int
    reviewer_id: int
    status: str
    reason: str


ReviewHook = Callable[[ReviewOutcome], None]
ObjectResolver = Callable[[Tenant, uuid.UUID], Any]

_hooks: list[ReviewHook] = []
_object_resolvers: list[ObjectResolver] = []


def register_review_hook(fn: ReviewHook) -> ReviewHook:
    """Called after commit with every decided review. Register once, from AppConfig.ready()."""
    if fn not in _hooks:
        _hooks.append(fn)
    return fn


def register_review_object_resolver(fn: ObjectResolver) -> ObjectResolver:
    if fn not in _object_resolvers:
        _object_resolvers.append(fn)
    return fn


def _may_review(user: Any, tenant: Tenant, conversation_id: uuid.UUID) -> bool:
    if not getattr(user, "is_active", False) or membership_get(user=user, tenant_id=tenant.pk) is None:
        return False
    if user.has_perm(REVIEW_PERMISSION):
        return True
    for resolve in _object_resolvers:
        obj = resolve(tenant, conversation_id)
        if obj is not None and user.has_perm(f"{obj._meta.app_label}.{OBJECT_REVIEW_CODENAME}", obj):
            return True
    return False


def review_request_open(*, tenant: Tenant, requester: Any, conversation_id: uuid.UUID, plan_id: uuid.UUID,
                        plan_hash: str, summary: str) -> ReviewRequest:
    if membership_get(user=requester, tenant_id=tenant.pk) is None:
        raise PolicyError("NOT_A_MEMBER", "The requester is not a member of this tenant.")
    with transaction.atomic():
        request = ReviewRequest.objects.create(tenant=tenant, requester=requester, conversation_id=conversation_id,
                                               plan_id=plan_id, plan_hash=plan_hash, summary=summary,
                                               created_at=clock.now())
        audit_record(tenant=tenant, actor=requester, event_type="policy.review.opened", target_type="review",
                     target_id=str(request.pk), new={"status": ReviewStatus.PENDING, "plan_id": str(plan_id)})
    return request


def _decide(*, tenant: Tenant, reviewer: Any, request_id: uuid.UUID, status: str, reason: str) -> ReviewDecision:
    request = ReviewRequest.objects.for_tenant(tenant).filter(pk=request_id).first()
    if request is None:
        raise PolicyError("NOT_FOUND", "Review request not found.")
    if request.requester_id == getattr(reviewer, "pk", None):
        raise PolicyError("REVIEW_OWN_REQUEST", "The requester cannot decide their own review.")
    if not _may_review(reviewer, tenant, request.conversation_id):
        raise PolicyError("REVIEW_NOT_ALLOWED", "You may not review this conversation.")
    try:
        with transaction.atomic():
            decision = ReviewDecision.objects.create(tenant=tenant, request=request, status=status,
                                                     reviewer=reviewer, reason=reason, decided_at=clock.now())
            audit_record(tenant=tenant, actor=reviewer, event_type=f"policy.review.{status.lower()}",
                         target_type="review", target_id=str(request.pk),
                         old={"status": ReviewStatus.PENDING}, new={"status": status, "reason": reason})
    except IntegrityError as exc:
        raise PolicyError("REVIEW_ALREADY_DECIDED", "This review was already decided.") from exc
    outcome = ReviewOutcome(tenant_id=str(tenant.pk), request_id=str(request.pk),
                            conversation_id=str(request.conversation_id), plan_id=str(request.plan_id),
                            requester_id=request.requester_id, reviewer_id=reviewer.pk, status=status, reason=reason)
    transaction.on_commit(lambda: _notify(outcome))
    return decision


def _notify(outcome: ReviewOutcome) -> None:
    for hook in list(_hooks):
        try:
            hook(outcome)
        except Exception:  # noqa: BLE001 - one broken hook must not hide the decision from the others
            log.exception("review_hook_failed", request_id=outcome["request_id"])


def review_request_approve(*, tenant: Tenant, reviewer: Any, request_id: uuid.UUID,
                           reason: str = "") -> ReviewDecision:
    return _decide(tenant=tenant, reviewer=reviewer, request_id=request_id, status=ReviewStatus.APPROVED,
                   reason=reason)


def review_request_reject(*, tenant: Tenant, reviewer: Any, request_id: uuid.UUID, reason: str = "") -> ReviewDecision:
    return _decide(tenant=tenant, reviewer=reviewer, request_id=request_id, status=ReviewStatus.REJECTED,
                   reason=reason)


def review_request_approved_for(*, tenant: Tenant, request_id: uuid.UUID, requester: Any, plan_id: uuid.UUID,
                                plan_hash: str, reviewer_id: int) -> bool:
    """True when that request of this tenant, for this requester and plan, was approved by `reviewer_id`."""
    return ReviewDecision.objects.for_tenant(tenant).filter(
        request_id=request_id, request__requester=requester, request__plan_id=plan_id,
        request__plan_hash=plan_hash, status=ReviewStatus.APPROVED, reviewer_id=reviewer_id,
    ).exclude(reviewer=requester).exists()
