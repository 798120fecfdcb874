"""Executions, their step runs and the append-only execution timeline (PRD-006 §21-§22, §32).

Every transition is a conditional UPDATE committed before the next step is dispatched, so any
worker can pick an execution up from its last checkpoint: a completed StepRun is never run again,
and a StepRun left `running` by a dead worker is taken over once its lease has expired (the lease
is the broker's visibility timeout, after which the unacknowledged task is redelivered).
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from planning.models import ExecutionPlan
from tenancy.scoping import TenantOwnedModel


class ExecutionStatus(models.TextChoices):
    RUNNING = "running"
    VERIFYING = "verifying"
    COMPLETED = "completed"
    PARTIALLY_COMPLETED = "partially_completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    COMPENSATING = "compensating"
    COMPENSATED = "compensated"


SETTLED = frozenset({ExecutionStatus.COMPLETED, ExecutionStatus.PARTIALLY_COMPLETED, ExecutionStatus.FAILED,
                     ExecutionStatus.CANCELLED, ExecutionStatus.COMPENSATED})


class StepStatus(models.TextChoices):
    PENDING = "pending"
    DISPATCHED = "dispatched"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    SKIPPED = "skipped"
    COMPENSATED = "compensated"
    UNKNOWN = "unknown"


IN_FLIGHT = frozenset({StepStatus.DISPATCHED, StepStatus.RUNNING})
STEP_DONE = frozenset({StepStatus.COMPLETED, StepStatus.FAILED, StepStatus.SKIPPED, StepStatus.COMPENSATED,
                       StepStatus.UNKNOWN})


class Execution(TenantOwnedModel):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    plan = models.OneToOneField(ExecutionPlan, on_delete=models.RESTRICT, related_name="execution")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    receipt_id = models.UUIDField()
    conversation_id = models.UUIDField(null=True, blank=True)
    language = models.CharField(max_length=8, default="pt-BR")
    status = models.CharField(max_length=24, choices=ExecutionStatus.choices, default=ExecutionStatus.RUNNING)
    needs_review = models.BooleanField(default=False)
    retry_budget = models.PositiveIntegerField()
    error = models.JSONField(null=True, blank=True)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta(TenantOwnedModel.Meta):
        ordering = ["started_at"]
        constraints = [
            models.CheckConstraint(condition=models.Q(status__in=ExecutionStatus.values),
                                   name="execution_status_valid"),
        ]
        indexes = [models.Index(fields=["status", "started_at"], name="execution_status_started")]

    def __str__(self) -> str:
        return f"execution {self.pk} ({self.status})"

    @property
    def settled(self) -> bool:
        return self.status in SETTLED


class StepRun(TenantOwnedModel):
    execution = models.ForeignKey(Execution, on_delete=models.CASCADE, related_name="step_runs")
    step_id = models.CharField(max_length=100)
    position = models.PositiveIntegerField()
    status = models.CharField(max_length=16, choices=StepStatus.choices, default=StepStatus.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    calls = models.PositiveIntegerField(default=0)
    input = models.JSONField(null=True, blank=True)  # resolved, as sent
    result = models.JSONField(null=True, blank=True)
    error = models.JSONField(null=True, blank=True)
    compensation = models.JSONField(null=True, blank=True)
    call_ms = models.FloatField(default=0)  # time spent inside the Tool Runtime's calls (bench)
    dispatched_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)

    class Meta(TenantOwnedModel.Meta):
        ordering = ["execution", "position"]
        constraints = [
            models.UniqueConstraint(fields=["execution", "step_id"], name="steprun_unique"),
            models.CheckConstraint(condition=models.Q(status__in=StepStatus.values), name="steprun_status_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.step_id} ({self.status})"


class TimelineType(models.TextChoices):
    PLAN_CREATED = "PLAN_CREATED"
    PLAN_VALIDATED = "PLAN_VALIDATED"
    CONFIRMATION_RECEIVED = "CONFIRMATION_RECEIVED"
    EXECUTION_STARTED = "EXECUTION_STARTED"
    STEP_STARTED = "STEP_STARTED"
    STEP_COMPLETED = "STEP_COMPLETED"
    STEP_FAILED = "STEP_FAILED"
    STEP_SKIPPED = "STEP_SKIPPED"
    STEP_UNKNOWN = "STEP_UNKNOWN"
    RETRY_SCHEDULED = "RETRY_SCHEDULED"
    VERIFICATION_STARTED = "VERIFICATION_STARTED"
    VERIFICATION_COMPLETED = "VERIFICATION_COMPLETED"
    VERIFICATION_FAILED = "VERIFICATION_FAILED"
    COMPENSATION_STARTED = "COMPENSATION_STARTED"
    COMPENSATION_COMPLETED = "COMPENSATION_COMPLETED"
    COMPENSATION_FAILED = "COMPENSATION_FAILED"
    EXECUTION_COMPLETED = "EXECUTION_COMPLETED"
    EXECUTION_PARTIALLY_COMPLETED = "EXECUTION_PARTIALLY_COMPLETED"
    EXECUTION_FAILED = "EXECUTION_FAILED"
    EXECUTION_CANCELLED = "EXECUTION_CANCELLED"
    EXECUTION_COMPENSATED = "EXECUTION_COMPENSATED"
    EXECUTION_RESUMED = "EXECUTION_RESUMED"
    EXECUTION_THROTTLED = "EXECUTION_THROTTLED"
    EXECUTION_PAUSED = "EXECUTION_PAUSED"
    EXECUTION_TERMINATED = "EXECUTION_TERMINATED"
    EXECUTION_STALLED = "EXECUTION_STALLED"
    RESOURCE_SWITCHED = "RESOURCE_SWITCHED"
    BATCH_ADJUSTED = "BATCH_ADJUSTED"
    CIRCUIT_OPENED = "CIRCUIT_OPENED"
    REPLAN_REQUESTED = "REPLAN_REQUESTED"
    REPLAN_DECIDED = "REPLAN_DECIDED"
    CHECKPOINT = "CHECKPOINT"


class TimelineEntry(TenantOwnedModel):
    """Append-only (database trigger, migration 0002): the audit of what the execution did, in order."""

    id = models.BigAutoField(primary_key=True)
    execution = models.ForeignKey(Execution, on_delete=models.CASCADE, related_name="timeline")
    type = models.CharField(max_length=40, choices=TimelineType.choices)
    step_id = models.CharField(max_length=100, blank=True)
    at = models.DateTimeField()
    data = models.JSONField(default=dict)

    class Meta(TenantOwnedModel.Meta):
        ordering = ["execution", "id"]
        indexes = [models.Index(fields=["tenant", "execution", "id"], name="timeline_tenant_exec")]

    def __str__(self) -> str:
        return f"{self.at:%H:%M:%S} {self.type} {self.step_id}"


# --- the adaptive runtime (PRD-034) ------------------------------------------------------------


class RuntimeStatus(models.TextChoices):
    RUNNING = "RUNNING"
    DEGRADED = "DEGRADED"
    PAUSED = "PAUSED"
    WAITING = "WAITING"  # WAITING_RESOURCE of §116: a resource is down and has no registered fallback
    REPLANNING = "REPLANNING"
    STOPPING = "STOPPING"
    STALLED = "STALLED"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    TERMINATED = "TERMINATED"


RUNTIME_FINAL = frozenset({RuntimeStatus.COMPLETED, RuntimeStatus.FAILED, RuntimeStatus.TERMINATED})


class RuntimeExecution(TenantOwnedModel):
    """The runtime state of one execution (§5): status, budgets, heartbeat; changed only by
    compare-and-set on `version` (§95-§97), each change leaving a RuntimeAdaptation behind."""

    execution = models.OneToOneField(Execution, on_delete=models.CASCADE, related_name="runtime")
    status = models.CharField(max_length=16, choices=RuntimeStatus.choices, default=RuntimeStatus.RUNNING)
    version = models.PositiveIntegerField(default=1)
    reason = models.CharField(max_length=64, blank=True)
    budget = models.JSONField(default=dict)  # {max_duration_s, max_steps, max_api_calls, max_retries, max_llm_calls}
    api_calls = models.PositiveIntegerField(default=0)
    steps = models.PositiveIntegerField(default=0)
    llm_calls = models.PositiveIntegerField(default=0)
    replans = models.PositiveIntegerField(default=0)
    deadline_at = models.DateTimeField()
    heartbeat_timeout_s = models.PositiveIntegerField()
    last_heartbeat_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    class Meta(TenantOwnedModel.Meta):
        constraints = [models.CheckConstraint(condition=models.Q(status__in=RuntimeStatus.values),
                                              name="runtime_status_valid")]
        indexes = [models.Index(fields=["status", "last_heartbeat_at"], name="runtime_status_heartbeat")]

    def __str__(self) -> str:
        return f"runtime {self.execution_id} {self.status} v{self.version}"


class ItemStatus(models.TextChoices):
    PENDING = "pending"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"


class BatchItem(TenantOwnedModel):
    """One target of a batch step: the checkpoint unit. A completed item is never run again."""

    execution = models.ForeignKey(Execution, on_delete=models.CASCADE, related_name="batch_items")
    step_id = models.CharField(max_length=100)
    position = models.PositiveIntegerField()
    target_id = models.BigIntegerField()
    status = models.CharField(max_length=16, choices=ItemStatus.choices, default=ItemStatus.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    resource = models.CharField(max_length=64, blank=True)
    result = models.JSONField(null=True, blank=True)
    error = models.JSONField(null=True, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    not_before = models.DateTimeField(null=True, blank=True)  # coordinated backoff of a retried item
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta(TenantOwnedModel.Meta):
        ordering = ["execution", "step_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["execution", "step_id", "target_id"], name="batchitem_unique"),
            models.CheckConstraint(condition=models.Q(status__in=ItemStatus.values), name="batchitem_status_valid"),
        ]
        indexes = [models.Index(fields=["execution", "step_id", "status"], name="batchitem_claim")]

    def __str__(self) -> str:
        return f"{self.step_id}[{self.target_id}] ({self.status})"


class RuntimeAdaptation(TenantOwnedModel):
    """Append-only (trigger): every adaptation with its reason and metrics (§98-§101), and the
    runtime version it produced (the snapshot chain v1 → v2 → …)."""

    id = models.BigAutoField(primary_key=True)
    execution = models.ForeignKey(Execution, on_delete=models.CASCADE, related_name="adaptations")
    kind = models.CharField(max_length=32)  # CONCURRENCY, BATCH, TIMEOUT, BREAKER, HEALTH, RESOURCE, STATUS…
    lane = models.CharField(max_length=160, blank=True)  # capability@resource
    old = models.JSONField(null=True, blank=True)
    new = models.JSONField(null=True, blank=True)
    reason = models.CharField(max_length=64)
    metrics = models.JSONField(default=dict)
    message = models.JSONField(default=dict)  # {pt-BR, en}
    runtime_version = models.PositiveIntegerField(null=True, blank=True)
    at = models.DateTimeField()

    class Meta(TenantOwnedModel.Meta):
        ordering = ["execution", "id"]

    def __str__(self) -> str:
        return f"{self.kind} {self.old} → {self.new} ({self.reason})"


class RuntimeCheckpoint(TenantOwnedModel):
    """A chunk boundary (§49): what was done, under which plan/receipt, at which runtime version."""

    execution = models.ForeignKey(Execution, on_delete=models.CASCADE, related_name="checkpoints")
    step_id = models.CharField(max_length=100)
    state_version = models.PositiveIntegerField()
    completed = models.PositiveIntegerField()
    context_ref = models.CharField(max_length=200)  # plan hash + receipt id: what a resume re-validates
    created_at = models.DateTimeField()

    class Meta(TenantOwnedModel.Meta):
        ordering = ["execution", "id"]


class ReplanOutcome(models.TextChoices):
    CONTINUED = "CONTINUED"  # non-material: the same execution goes on under the same receipt
    REAPPROVAL_REQUIRED = "REAPPROVAL_REQUIRED"  # material: a new plan, a new policy evaluation and confirmation
    NO_ALTERNATIVE = "NO_ALTERNATIVE"  # WAITING_RESOURCE, then human review (§116)
    REFUSED = "REFUSED"  # a limit (replans, depth, LLM calls) or policy said no: human review


class RuntimeReplan(TenantOwnedModel):
    """Append-only (trigger): one replan of an execution (§55-§60) — why, which alternative the planner
    proposed, its PlanChangeImpact, and what was decided. `plan` is the replacement plan of a material
    change; `depth` is that plan's distance from the user's original plan (§69)."""

    execution = models.ForeignKey(Execution, on_delete=models.CASCADE, related_name="replans")
    step_id = models.CharField(max_length=100)
    trigger = models.CharField(max_length=32)  # RESOURCE_UNAVAILABLE, …
    resource = models.CharField(max_length=64, blank=True)
    strategy = models.CharField(max_length=16)  # DEFER | LLM | NONE
    outcome = models.CharField(max_length=24, choices=ReplanOutcome.choices)
    code = models.CharField(max_length=64, blank=True)  # why REFUSED / NO_ALTERNATIVE
    plan = models.ForeignKey(ExecutionPlan, on_delete=models.RESTRICT, null=True, blank=True, related_name="+")
    depth = models.PositiveIntegerField(default=0)
    impact = models.JSONField(default=dict)
    decision = models.JSONField(default=dict)  # the new policy evaluation of a material change
    deferred = models.JSONField(default=dict)  # step id → target ids left for later
    created_at = models.DateTimeField()

    class Meta(TenantOwnedModel.Meta):
        ordering = ["execution", "created_at"]
        constraints = [models.CheckConstraint(condition=models.Q(outcome__in=ReplanOutcome.values),
                                              name="runtime_replan_outcome_valid")]

    def __str__(self) -> str:
        return f"replan {self.execution_id} {self.strategy} → {self.outcome}"


class SuggestionStatus(models.TextChoices):
    PROPOSED = "PROPOSED"
    ACCEPTED = "ACCEPTED"
    REJECTED = "REJECTED"


class RuntimeOptimizationSuggestion(TenantOwnedModel):
    """Learning without authority (§102-§104): proposed from observed runs, reviewed by an admin,
    never applied automatically (nothing reads it back into the runtime)."""

    capability = models.CharField(max_length=100)
    resource = models.CharField(max_length=64)
    current = models.JSONField()
    proposed = models.JSONField()
    evidence = models.JSONField(default=dict)
    confidence = models.FloatField()
    expected_improvement = models.FloatField()
    status = models.CharField(max_length=10, choices=SuggestionStatus.choices, default=SuggestionStatus.PROPOSED)
    reviewed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True,
                                    related_name="+")
    created_at = models.DateTimeField()

    class Meta(TenantOwnedModel.Meta):
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.capability}: {self.current} → {self.proposed}"
