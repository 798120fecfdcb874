"""Execution plans: a validated DAG of capability steps, pinned to capability versions and targets.

A plan is data. It is written once by `planning.services.plan_create` after validation and never
edited afterwards except for its status (the execution app mirrors the execution's outcome on
it); a changed intent means a new plan with a new hash (ARCHITECTURE.md invariant 4).
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from tenancy.scoping import TenantOwnedModel


class PlanStatus(models.TextChoices):
    DRAFT = "draft"
    VALIDATING = "validating"
    AWAITING_CONFIRMATION = "awaiting_confirmation"
    APPROVED = "approved"
    RUNNING = "running"
    VERIFYING = "verifying"
    COMPLETED = "completed"
    PARTIALLY_COMPLETED = "partially_completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    COMPENSATING = "compensating"
    COMPENSATED = "compensated"


class ExecutionPlan(TenantOwnedModel):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    intent_id = models.UUIDField()
    intent = models.JSONField(default=dict)
    template = models.CharField(max_length=100)
    planner = models.CharField(max_length=16, default="deterministic")  # deterministic | llm
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    conversation_id = models.UUIDField(null=True, blank=True)
    language = models.CharField(max_length=8, default="pt-BR")
    status = models.CharField(max_length=24, choices=PlanStatus.choices, default=PlanStatus.DRAFT)
    risk = models.CharField(max_length=16)
    requires_confirmation = models.BooleanField()
    allow_partial = models.BooleanField(default=False)
    canonical_hash = models.CharField(max_length=64)
    created_at = models.DateTimeField()
    validated_at = models.DateTimeField()
    expires_at = models.DateTimeField()

    class Meta(TenantOwnedModel.Meta):
        ordering = ["created_at"]
        constraints = [
            models.CheckConstraint(condition=models.Q(status__in=PlanStatus.values), name="plan_status_valid"),
            models.CheckConstraint(condition=models.Q(canonical_hash__regex=r"^[0-9a-f]{64}$"), name="plan_hash_hex"),
            models.CheckConstraint(condition=models.Q(expires_at__gt=models.F("created_at")),
                                   name="plan_expires_after"),
        ]
        indexes = [models.Index(fields=["tenant", "conversation_id"], name="plan_tenant_conversation")]

    def __str__(self) -> str:
        return f"plan {self.pk} ({self.template}, {self.status})"


class PlanStep(TenantOwnedModel):
    """One node of the DAG. `input` keeps its `${steps.<id>.result.<path>}` references unresolved:
    that exact input is what the policy receipt's input hash is bound to."""

    plan = models.ForeignKey(ExecutionPlan, on_delete=models.CASCADE, related_name="steps")
    step_id = models.CharField(max_length=100)
    position = models.PositiveIntegerField()
    capability_id = models.CharField(max_length=140)
    capability_version = models.PositiveIntegerField()
    kind = models.CharField(max_length=16)
    risk = models.CharField(max_length=16)
    depends_on = models.JSONField(default=list)
    input = models.JSONField(default=dict)
    for_each = models.CharField(max_length=300, blank=True)
    condition = models.JSONField(null=True, blank=True)
    preconditions = models.JSONField(default=list)
    postconditions = models.JSONField(default=list)
    compensation = models.JSONField(null=True, blank=True)
    targets = models.JSONField(default=list)
    label = models.JSONField(default=dict)  # {"pt-BR": "...", "en": "..."}

    class Meta(TenantOwnedModel.Meta):
        ordering = ["plan", "position"]
        constraints = [
            models.UniqueConstraint(fields=["plan", "step_id"], name="planstep_unique_id"),
            models.UniqueConstraint(fields=["plan", "position"], name="planstep_unique_position"),
        ]

    def __str__(self) -> str:
        return f"{self.step_id}: {self.capability_id}@{self.capability_version}"

    def as_policy_step(self) -> dict:
        return {"id": self.step_id, "capability": self.capability_id, "version": self.capability_version,
                "input": self.input, "targets": self.targets}
