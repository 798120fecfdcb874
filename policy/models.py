"""Policy records: receipts, step checks, kill switches, human reviews and the audit trail.

Append-only (database triggers from `tenancy.db.append_only`, migration 0002): PolicyReceipt,
ReceiptCheck, AuditEvent, ReviewRequest, ReviewDecision. A review's status is therefore not a
mutable column: it is derived from its one ReviewDecision (a unique constraint makes the first
decision win when two reviewers race).

KillSwitch and AuditEvent are *platform* records: a GLOBAL switch or its audit row belongs to no
tenant, so they are not TenantOwnedModel. AuditEvent still uses the tenant-scoped manager, so an
unscoped query raises; platform rows are read through `all_tenants().filter(tenant=None)`.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from tenancy.scoping import TenantManager, TenantOwnedModel

from .rules import LEVELS, RISKS


class Outcome(models.TextChoices):
    ALLOW = "ALLOW"
    DENY = "DENY"
    REQUIRE_CONFIRMATION = "REQUIRE_CONFIRMATION"


class Level(models.TextChoices):
    NONE = "none"
    SOFT = "soft"
    STRONG = "strong"
    HUMAN_REVIEW = "human_review"


class Stage(models.TextChoices):
    PLANNING = "PLANNING", "Decision at planning"
    CONFIRMATION = "CONFIRMATION", "Re-evaluation at confirmation"


_HEX64 = r"^[0-9a-f]{64}$"


class PolicyReceipt(TenantOwnedModel):
    """One policy decision, immutable. Only ALLOW receipts authorise execution (see revalidate).

    `steps` maps step id → {capability, version, input_hash, targets:[{type, id, revision?}]}.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    stage = models.CharField(max_length=16, choices=Stage.choices)
    plan_id = models.UUIDField()
    plan_hash = models.CharField(max_length=64)
    decision = models.CharField(max_length=24, choices=Outcome.choices)
    level = models.CharField(max_length=16, choices=Level.choices)
    risk = models.CharField(max_length=16, blank=True)
    steps = models.JSONField()
    confirmation_id = models.UUIDField(null=True, blank=True)
    approval_hash = models.CharField(max_length=64, blank=True)
    reasons = models.JSONField(default=list)
    issued_at = models.DateTimeField()
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta(TenantOwnedModel.Meta):
        ordering = ["issued_at"]
        constraints = [
            models.CheckConstraint(condition=models.Q(decision__in=Outcome.values), name="receipt_decision_valid"),
            models.CheckConstraint(condition=models.Q(level__in=LEVELS), name="receipt_level_valid"),
            models.CheckConstraint(condition=models.Q(risk="") | models.Q(risk__in=RISKS), name="receipt_risk_valid"),
            models.CheckConstraint(condition=models.Q(plan_hash__regex=_HEX64), name="receipt_plan_hash_hex"),
            # An ALLOW receipt always expires after it was issued.
            models.CheckConstraint(
                condition=~models.Q(decision=Outcome.ALLOW)
                | models.Q(expires_at__isnull=False, expires_at__gt=models.F("issued_at")),
                name="receipt_allow_expires",
            ),
            # An ALLOW issued at confirmation is bound to the approval it was issued for.
            models.CheckConstraint(
                condition=~models.Q(decision=Outcome.ALLOW, stage=Stage.CONFIRMATION)
                | (models.Q(approval_hash__regex=_HEX64) & models.Q(confirmation_id__isnull=False)),
                name="receipt_confirmed_allow_has_approval",
            ),
        ]
        indexes = [models.Index(fields=["tenant", "plan_id"], name="receipt_tenant_plan")]

    def __str__(self) -> str:
        return f"{self.decision} {self.stage} plan {self.plan_id}"


class ReceiptCheck(TenantOwnedModel):
    """The record of one `revalidate` call, passed or refused. `receipt_ref` is what was presented."""

    receipt = models.ForeignKey(PolicyReceipt, on_delete=models.RESTRICT, null=True, blank=True, related_name="checks")
    receipt_ref = models.CharField(max_length=64)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True,
                              related_name="+")
    plan_id = models.CharField(max_length=64)
    step_id = models.CharField(max_length=100)
    capability = models.CharField(max_length=140)
    input_hash = models.CharField(max_length=64, blank=True)
    execution_id = models.CharField(max_length=64, blank=True)
    execution_started_at = models.DateTimeField(null=True, blank=True)
    checked_at = models.DateTimeField()
    ok = models.BooleanField()
    code = models.CharField(max_length=40)
    reasons = models.JSONField(default=list)

    class Meta(TenantOwnedModel.Meta):
        ordering = ["checked_at", "id"]
        indexes = [models.Index(fields=["tenant", "receipt"], name="receiptcheck_tenant_receipt")]

    def __str__(self) -> str:
        return f"{'OK' if self.ok else self.code} {self.step_id}"


class Scope(models.TextChoices):
    GLOBAL = "GLOBAL"
    TENANT = "TENANT"
    AGENT = "AGENT"
    CAPABILITY = "CAPABILITY"
    RESOURCE = "RESOURCE"
    EXECUTION = "EXECUTION"


class KillSwitch(models.Model):
    """A raised switch stops what it covers until lifted. Lifting fills `lifted_*` once (services).

    `target` names what the scope covers: the agent version (AGENT), capability id (CAPABILITY),
    registry resource key (RESOURCE), execution or plan id (EXECUTION); empty for GLOBAL/TENANT.
    `tenant` is required for TENANT and, on any other scope, narrows the switch to that tenant.
    """

    scope = models.CharField(max_length=16, choices=Scope.choices)
    tenant = models.ForeignKey("tenancy.Tenant", on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    target = models.CharField(max_length=140, blank=True)
    reason = models.TextField()
    set_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    set_at = models.DateTimeField()
    lifted_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True,
                                  related_name="+")
    lifted_at = models.DateTimeField(null=True, blank=True)
    lift_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["-set_at"]
        verbose_name_plural = "kill switches"
        permissions = [("runtime_admin", "Can raise and lift kill switches (runtime admin)")]
        constraints = [
            models.CheckConstraint(condition=models.Q(scope__in=Scope.values), name="killswitch_scope_valid"),
            models.CheckConstraint(
                condition=(models.Q(scope=Scope.GLOBAL, tenant__isnull=True, target="")
                           | models.Q(scope=Scope.TENANT, tenant__isnull=False, target="")
                           | (models.Q(scope__in=[Scope.AGENT, Scope.CAPABILITY, Scope.RESOURCE, Scope.EXECUTION])
                              & ~models.Q(target=""))),
                name="killswitch_scope_target_coherent",
            ),
            models.CheckConstraint(
                condition=models.Q(lifted_at__isnull=True, lifted_by__isnull=True)
                | models.Q(lifted_at__isnull=False, lifted_by__isnull=False, lifted_at__gte=models.F("set_at")),
                name="killswitch_lift_coherent",
            ),
            models.UniqueConstraint(fields=["scope", "tenant", "target"], condition=models.Q(lifted_at__isnull=True),
                                    nulls_distinct=False, name="killswitch_one_raised"),
        ]
        indexes = [models.Index(fields=["lifted_at"], name="killswitch_lifted")]

    @property
    def active(self) -> bool:
        return self.lifted_at is None

    def __str__(self) -> str:
        return f"{self.scope} {self.target or self.tenant_id or ''} ({'raised' if self.active else 'lifted'})"


class ReviewRequest(TenantOwnedModel):
    """A human_review confirmation waiting for another authorised person. Immutable once opened."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    requester = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    conversation_id = models.UUIDField()
    plan_id = models.UUIDField()
    plan_hash = models.CharField(max_length=64)
    summary = models.TextField()
    created_at = models.DateTimeField()

    class Meta(TenantOwnedModel.Meta):
        ordering = ["created_at"]
        permissions = [("review_conversation", "Can decide human_review confirmations")]
        constraints = [models.CheckConstraint(condition=models.Q(plan_hash__regex=_HEX64), name="review_plan_hash_hex")]
        indexes = [models.Index(fields=["tenant", "plan_id"], name="review_tenant_plan")]

    @property
    def status(self) -> str:
        decision = getattr(self, "decision", None)
        return decision.status if decision is not None else ReviewStatus.PENDING

    def __str__(self) -> str:
        return f"review of plan {self.plan_id}"


class ReviewStatus(models.TextChoices):
    PENDING = "PENDING"
    APPROVED = "APPROVED"
    REJECTED = "REJECTED"


class ReviewDecision(TenantOwnedModel):
    request = models.OneToOneField(ReviewRequest, on_delete=models.RESTRICT, related_name="decision")
    status = models.CharField(max_length=16, choices=ReviewStatus.choices)
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    reason = models.TextField(blank=True)
    decided_at = models.DateTimeField()

    class Meta(TenantOwnedModel.Meta):
        constraints = [
            models.CheckConstraint(condition=models.Q(status__in=[ReviewStatus.APPROVED, ReviewStatus.REJECTED]),
                                   name="review_decision_status_valid"),
        ]


class AuditEvent(models.Model):
    """Who changed what, with old and new values; written in the transaction of the change."""

    tenant = models.ForeignKey("tenancy.Tenant", on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True,
                              related_name="+")
    event_type = models.CharField(max_length=60)
    target_type = models.CharField(max_length=60)
    target_id = models.CharField(max_length=140, blank=True)
    data = models.JSONField(default=dict)
    created_at = models.DateTimeField()

    objects = TenantManager()
    _plain = models.Manager()

    class Meta:
        ordering = ["created_at", "id"]
        base_manager_name = "_plain"
        indexes = [models.Index(fields=["tenant", "created_at"], name="audit_tenant_time"),
                   models.Index(fields=["target_type", "target_id"], name="audit_target")]

    def __str__(self) -> str:
        return f"{self.event_type} {self.target_type}:{self.target_id}"
