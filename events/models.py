"""The append-only conversation event log (PRD-010 §31-§33).

`conversation_id` is a plain UUID, not a foreign key: events sits below conversations in the
dependency direction (ARCHITECTURE.md), and execution appends progress by conversation id.
"""

from __future__ import annotations

import uuid

from django.db import models

from tenancy.scoping import TenantOwnedModel


class EventType(models.TextChoices):
    MESSAGE_RECEIVED = "MESSAGE_RECEIVED"
    CONTEXT_UPDATED = "CONTEXT_UPDATED"
    INTENT_CREATED = "INTENT_CREATED"
    INTENT_UPDATED = "INTENT_UPDATED"
    REFERENCE_RESOLVED = "REFERENCE_RESOLVED"
    CLARIFICATION_REQUIRED = "CLARIFICATION_REQUIRED"
    CLARIFICATION_RESOLVED = "CLARIFICATION_RESOLVED"
    CLARIFICATION_EXPIRED = "CLARIFICATION_EXPIRED"
    PLAN_CREATED = "PLAN_CREATED"
    CONFIRMATION_REQUIRED = "CONFIRMATION_REQUIRED"
    CONFIRMATION_RECEIVED = "CONFIRMATION_RECEIVED"
    CONFIRMATION_EXPIRED = "CONFIRMATION_EXPIRED"
    EXECUTION_STARTED = "EXECUTION_STARTED"
    EXECUTION_PROGRESS = "EXECUTION_PROGRESS"
    EXECUTION_COMPLETED = "EXECUTION_COMPLETED"
    EXECUTION_FAILED = "EXECUTION_FAILED"
    EXECUTION_CANCELLED = "EXECUTION_CANCELLED"
    CORRECTION_RECEIVED = "CORRECTION_RECEIVED"
    UNDO_REQUESTED = "UNDO_REQUESTED"
    TOPIC_CHANGED = "TOPIC_CHANGED"
    STALE_CONTEXT_DETECTED = "STALE_CONTEXT_DETECTED"
    # Adaptive runtime (PRD-034 §71).
    EXECUTION_THROTTLED = "EXECUTION_THROTTLED"
    BATCH_ADJUSTED = "BATCH_ADJUSTED"
    CIRCUIT_OPENED = "CIRCUIT_OPENED"
    RESOURCE_SWITCHED = "RESOURCE_SWITCHED"
    REPLAN_REQUESTED = "REPLAN_REQUESTED"
    EXECUTION_TERMINATED = "EXECUTION_TERMINATED"
    EXECUTION_RESUMED = "EXECUTION_RESUMED"
    EXECUTION_PAUSED = "EXECUTION_PAUSED"
    REPLAN_DECIDED = "REPLAN_DECIDED"
    CONVERSATION_CLOSED = "CONVERSATION_CLOSED"


class Actor(models.TextChoices):
    USER = "user"
    AGENT = "agent"
    SYSTEM = "system"


class EventStream(TenantOwnedModel):
    """One row per conversation: the lock that makes `seq` gap-free under concurrent writers."""

    conversation_id = models.UUIDField(unique=True)
    last_seq = models.PositiveBigIntegerField(default=0)


class ConversationEvent(TenantOwnedModel):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    conversation_id = models.UUIDField()
    seq = models.PositiveBigIntegerField()
    type = models.CharField(max_length=40, choices=EventType.choices)
    operation_id = models.UUIDField(null=True, blank=True)
    actor = models.CharField(max_length=8, choices=Actor.choices)
    payload = models.JSONField(default=dict)
    state_version = models.PositiveBigIntegerField()
    timestamp = models.DateTimeField()

    class Meta:
        ordering = ["conversation_id", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["conversation_id", "seq"], name="event_seq_unique"),
            models.CheckConstraint(condition=models.Q(seq__gte=1), name="event_seq_positive"),
        ]
        indexes = [models.Index(fields=["tenant", "conversation_id", "seq"], name="event_tenant_conv_seq")]

    def __str__(self) -> str:
        return f"{self.conversation_id}#{self.seq} {self.type}"
