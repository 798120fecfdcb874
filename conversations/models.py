"""Conversation state (PRD-010 §7-§8, §13, §15, §27): persistent, versioned, tenant-owned.

Nothing of a conversation lives in process memory between requests: every turn locks the row,
checks `version`, applies one transition and bumps `version`, in one transaction with its events.

JSON fields hold the small structured parts whose shape is the runtime's own (context, operation
context, last result, references); pending clarifications and confirmations are rows, because
they have ids a client refers to, a lifecycle of their own (pending → consumed/expired/...) and
the TTL sweep and the reviewers' API query them.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from tenancy.scoping import TenantOwnedModel

from .statemachine import Status


class Conversation(TenantOwnedModel):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    session_id = models.CharField(max_length=64, blank=True)
    status = models.CharField(max_length=32, choices=Status.choices, default=Status.IDLE)
    version = models.PositiveBigIntegerField(default=1)
    language = models.CharField(max_length=8, default="pt-BR")
    # IntentState of the operation being prepared or last prepared: {id, name, slots, targets, labels, ...}.
    active_intent = models.JSONField(null=True, blank=True)
    # OperationContext (§27): {operation_id, intent_id, plan_id, execution_id, capability_ids, targets,
    # ui_snapshot, created_at, expires_at, status}. A new operation replaces it; it never inherits.
    active_operation = models.JSONField(null=True, blank=True)
    # ResultReference (§43) of the last settled execution: {operation_id, execution_id, status, created, ...}.
    last_result = models.JSONField(null=True, blank=True)
    # ConversationContext (§8): {active_entity, active_tab, recent_entities, topic, knowledge_version, ...}.
    context = models.JSONField(default=dict)
    last_ui_context = models.JSONField(default=dict, blank=True)
    references = models.JSONField(default=list)
    pending_clarification = models.ForeignKey("Clarification", null=True, blank=True, on_delete=models.SET_NULL,
                                              related_name="+")
    # The confirmation asked last: PENDING while it can be answered; kept after expiry so "sim" can say so.
    pending_confirmation = models.ForeignKey("Confirmation", null=True, blank=True, on_delete=models.SET_NULL,
                                             related_name="+")
    last_response = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    class Meta(TenantOwnedModel.Meta):
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=models.Q(status__in=Status.values), name="conversation_status_valid"),
            models.CheckConstraint(condition=models.Q(version__gte=1), name="conversation_version_positive"),
        ]
        indexes = [models.Index(fields=["tenant", "user", "-created_at"], name="conversation_tenant_user")]
        permissions = [("review_conversation", "Review human_review confirmations of a conversation")]

    def __str__(self) -> str:
        return f"conversation {self.pk} ({self.status} v{self.version})"


class PendingStatus(models.TextChoices):
    PENDING = "PENDING"
    CONSUMED = "CONSUMED"  # confirmed / answered
    INVALIDATED = "INVALIDATED"  # a correction or a new intent replaced it
    EXPIRED = "EXPIRED"
    DECLINED = "DECLINED"  # "não"
    CANCELLED = "CANCELLED"  # "cancela"
    REJECTED = "REJECTED"  # a reviewer said no (human_review)


class Level(models.TextChoices):
    SOFT = "soft"
    STRONG = "strong"
    HUMAN_REVIEW = "human_review"


class Clarification(TenantOwnedModel):
    """A question the agent asked to complete an intent (§13-§14)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="clarifications")
    intent = models.JSONField()  # the incomplete IntentState
    question = models.TextField()
    template = models.CharField(max_length=80)
    missing_fields = models.JSONField(default=list)
    candidates = models.JSONField(default=list)  # [{id, label, slot, value, ...}]
    attempts = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=16, choices=PendingStatus.choices, default=PendingStatus.PENDING)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta(TenantOwnedModel.Meta):
        ordering = ["created_at"]
        constraints = [
            models.CheckConstraint(condition=models.Q(status__in=PendingStatus.values),
                                   name="clarification_status_valid"),
            models.CheckConstraint(condition=models.Q(expires_at__gt=models.F("created_at")),
                                   name="clarification_expires_after"),
            models.UniqueConstraint(fields=["conversation"], condition=models.Q(status="PENDING"),
                                    name="clarification_one_pending"),
        ]
        indexes = [models.Index(fields=["status", "expires_at"], name="clarification_sweep")]


class Confirmation(TenantOwnedModel):
    """A PendingConfirmation (§15-§16, invariant 4): bound to one plan (id + hash), user, tenant, expiry."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="confirmations")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    operation_id = models.UUIDField()
    plan_id = models.UUIDField()
    plan_hash = models.CharField(max_length=64)
    intent = models.JSONField()
    risk = models.CharField(max_length=16)
    level = models.CharField(max_length=16, choices=Level.choices)
    summary = models.TextField()
    template = models.CharField(max_length=80)
    affected = models.JSONField(default=list)
    # The UI selection when the plan was prepared (§28); a different one at "sim" is stale context (§29).
    ui_snapshot = models.JSONField(default=dict)
    stale_warned = models.BooleanField(default=False)
    # The target facts policy decided on when the plan was prepared. Confirming re-evaluates policy
    # on them (ARCHITECTURE.md: facts are read at planning and again right before each step);
    # null → read them again (rows from before this field, a human review decided much later).
    facts = models.JSONField(null=True, blank=True)
    review_request_id = models.UUIDField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=PendingStatus.choices, default=PendingStatus.PENDING)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")

    class Meta(TenantOwnedModel.Meta):
        ordering = ["created_at"]
        constraints = [
            models.CheckConstraint(condition=models.Q(status__in=PendingStatus.values),
                                   name="confirmation_status_valid"),
            models.CheckConstraint(condition=models.Q(level__in=Level.values), name="confirmation_level_valid"),
            models.CheckConstraint(condition=models.Q(expires_at__gt=models.F("created_at")),
                                   name="confirmation_expires_after"),
            models.UniqueConstraint(fields=["conversation"], condition=models.Q(status="PENDING"),
                                    name="confirmation_one_pending"),
        ]
        indexes = [models.Index(fields=["status", "expires_at"], name="confirmation_sweep"),
                   models.Index(fields=["tenant", "level", "status"], name="confirmation_reviews")]


class Turn(TenantOwnedModel):
    """One answered turn; `client_message_id` makes a retried request return the first answer."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="turns")
    client_message_id = models.CharField(max_length=100, null=True, blank=True)
    kind = models.CharField(max_length=16)  # message | confirm | cancel | undo | resume
    text = models.TextField(blank=True)
    response = models.JSONField(default=dict)
    created_at = models.DateTimeField()

    class Meta(TenantOwnedModel.Meta):
        ordering = ["created_at"]
        constraints = [
            models.UniqueConstraint(fields=["conversation", "client_message_id"],
                                    condition=models.Q(client_message_id__isnull=False), name="turn_client_id_unique"),
        ]
