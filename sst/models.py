"""The sample SST system's data: companies, employees, the component catalog, work permits and
safety inspections with their findings.

Every model is tenant-owned. References between SST rows use RESTRICT, not PROTECT: a company
with permits cannot be deleted on its own, but deleting a whole tenant (which cascades to both)
removes everything of it. `*_folded` columns hold the name lower-cased and without accents so
that "joao" finds "João" with a plain indexed LIKE on PostgreSQL and SQLite alike (the `unaccent`
extension would tie search to PostgreSQL and to an extension the embedded default lacks).
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from tenancy.scoping import TenantOwnedModel

NAME_MAX_LENGTH = 200
NUMBER_MAX_LENGTH = 32
NOTES_MAX_LENGTH = 2000
MAX_VALIDITY_DAYS = 3650
FINDING_MAX_LENGTH = 500


class Company(TenantOwnedModel):
    name = models.CharField(max_length=NAME_MAX_LENGTH)
    name_folded = models.CharField(max_length=NAME_MAX_LENGTH, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta(TenantOwnedModel.Meta):
        verbose_name_plural = "companies"
        constraints = [models.UniqueConstraint(fields=["tenant", "name"], name="sst_company_name_unique")]

    def __str__(self) -> str:
        return self.name


class Employee(TenantOwnedModel):
    name = models.CharField(max_length=NAME_MAX_LENGTH)
    name_folded = models.CharField(max_length=NAME_MAX_LENGTH, editable=False)
    company = models.ForeignKey(Company, on_delete=models.RESTRICT, related_name="employees")
    # The last day the employee's safety training is valid (NULL = never trained); the batch
    # training check (sst.checks) counts a worker as trained while today <= this date.
    training_valid_until = models.DateField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class ComponentType(TenantOwnedModel):
    """One entry of the tenant's component catalog ("workingAtHeight" — Trabalho em Altura)."""

    key = models.CharField(max_length=64)
    name = models.CharField(max_length=NAME_MAX_LENGTH)
    name_folded = models.CharField(max_length=NAME_MAX_LENGTH, editable=False)
    # Whether removing the component is a registered undo of adding it.
    undoable = models.BooleanField(default=True)

    class Meta(TenantOwnedModel.Meta):
        constraints = [models.UniqueConstraint(fields=["tenant", "key"], name="sst_componenttype_key_unique")]

    def __str__(self) -> str:
        return f"{self.name} ({self.key})"


class PermitStatus(models.TextChoices):
    DRAFT = "DRAFT", "Draft"
    APPROVED = "APPROVED", "Approved"
    CANCELLED = "CANCELLED", "Cancelled"
    CLOSED = "CLOSED", "Closed"


class WorkPermit(TenantOwnedModel):
    # Numbers are unique per company: two companies of one tenant may both have permit "123".
    number = models.CharField(max_length=NUMBER_MAX_LENGTH)
    company = models.ForeignKey(Company, on_delete=models.RESTRICT, related_name="permits")
    status = models.CharField(max_length=16, choices=PermitStatus.choices, default=PermitStatus.DRAFT)
    validity_days = models.PositiveIntegerField()
    responsible = models.ForeignKey(
        Employee, on_delete=models.SET_NULL, null=True, blank=True, related_name="responsible_for"
    )
    cancel_reason = models.CharField(max_length=NOTES_MAX_LENGTH, blank=True)
    # Bumped by every write on the permit or its children; clients send it back in If-Match.
    revision = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta(TenantOwnedModel.Meta):
        constraints = [
            models.UniqueConstraint(fields=["company", "number"], name="sst_permit_company_number_unique"),
            models.CheckConstraint(
                condition=Q(validity_days__gt=0, validity_days__lte=MAX_VALIDITY_DAYS),
                name="sst_permit_validity_days_range",
            ),
            models.CheckConstraint(condition=Q(status__in=PermitStatus.values), name="sst_permit_status_valid"),
            models.CheckConstraint(condition=~Q(number=""), name="sst_permit_number_not_empty"),
            models.CheckConstraint(condition=Q(revision__gte=1), name="sst_permit_revision_positive"),
        ]
        indexes = [models.Index(fields=["tenant", "number"], name="sst_permit_tenant_number")]

    def __str__(self) -> str:
        return f"Permit {self.number} ({self.company_id})"

    @property
    def is_editable(self) -> bool:
        return self.status in (PermitStatus.DRAFT, PermitStatus.APPROVED)


class PermitComponent(TenantOwnedModel):
    permit = models.ForeignKey(WorkPermit, on_delete=models.CASCADE, related_name="components")
    component_type = models.ForeignKey(ComponentType, on_delete=models.RESTRICT, related_name="+")
    notes = models.CharField(max_length=NOTES_MAX_LENGTH, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta(TenantOwnedModel.Meta):
        constraints = [
            models.UniqueConstraint(fields=["permit", "component_type"], name="sst_permitcomponent_unique")
        ]

    def __str__(self) -> str:
        return f"{self.component_type_id} on permit {self.permit_id}"


class PermitWorker(TenantOwnedModel):
    permit = models.ForeignKey(WorkPermit, on_delete=models.CASCADE, related_name="workers")
    employee = models.ForeignKey(Employee, on_delete=models.RESTRICT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta(TenantOwnedModel.Meta):
        constraints = [models.UniqueConstraint(fields=["permit", "employee"], name="sst_permitworker_unique")]

    def __str__(self) -> str:
        return f"employee {self.employee_id} on permit {self.permit_id}"


class EvaluationOutcome(models.TextChoices):
    APPROVE = "APPROVE", "Approve"
    FLAG = "FLAG", "Flag for review"


class PermitEvaluation(TenantOwnedModel):
    """The decision of one batch evaluation of a permit (sst.checks): approve, or flag with reasons.

    Not unique per permit on purpose: evaluating twice is allowed (a new batch), so a duplicated
    effect of one batch (the same Idempotency-Key applied twice) would show as two rows.
    Recording an evaluation does not change the permit (its revision stays).
    """

    permit = models.ForeignKey(WorkPermit, on_delete=models.CASCADE, related_name="evaluations")
    outcome = models.CharField(max_length=8, choices=EvaluationOutcome.choices)
    reasons = models.JSONField(default=list)
    checks = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta(TenantOwnedModel.Meta):
        constraints = [
            models.CheckConstraint(condition=Q(outcome__in=EvaluationOutcome.values), name="sst_evaluation_outcome"),
        ]

    def __str__(self) -> str:
        return f"{self.outcome} permit {self.permit_id}"


class InspectionStatus(models.TextChoices):
    SCHEDULED = "SCHEDULED", "Scheduled"
    DONE = "DONE", "Done"
    CANCELLED = "CANCELLED", "Cancelled"


class Inspection(TenantOwnedModel):
    """A safety inspection of one site of a company, scheduled for a day (the SST system's second entity)."""

    # Unique per company, like permit numbers.
    number = models.CharField(max_length=NUMBER_MAX_LENGTH)
    company = models.ForeignKey(Company, on_delete=models.RESTRICT, related_name="inspections")
    site = models.CharField(max_length=NAME_MAX_LENGTH, blank=True)
    site_folded = models.CharField(max_length=NAME_MAX_LENGTH, blank=True, editable=False)
    status = models.CharField(max_length=16, choices=InspectionStatus.choices, default=InspectionStatus.SCHEDULED)
    scheduled_for = models.DateField()
    inspector = models.ForeignKey(
        Employee, on_delete=models.SET_NULL, null=True, blank=True, related_name="inspections"
    )
    cancel_reason = models.CharField(max_length=NOTES_MAX_LENGTH, blank=True)
    # Bumped by every write on the inspection or its findings; clients send it back in If-Match.
    revision = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta(TenantOwnedModel.Meta):
        constraints = [
            models.UniqueConstraint(fields=["company", "number"], name="sst_inspection_company_number_unique"),
            models.CheckConstraint(condition=Q(status__in=InspectionStatus.values), name="sst_inspection_status_valid"),
            models.CheckConstraint(condition=~Q(number=""), name="sst_inspection_number_not_empty"),
            models.CheckConstraint(condition=Q(revision__gte=1), name="sst_inspection_revision_positive"),
        ]
        indexes = [models.Index(fields=["tenant", "number"], name="sst_inspection_tenant_number")]

    def __str__(self) -> str:
        return f"Inspection {self.number} ({self.company_id})"


class FindingSeverity(models.TextChoices):
    LOW = "LOW", "Low"
    MEDIUM = "MEDIUM", "Medium"
    HIGH = "HIGH", "High"


class Finding(TenantOwnedModel):
    """Something an inspection found ("Extintor vencido"), with its severity."""

    inspection = models.ForeignKey(Inspection, on_delete=models.CASCADE, related_name="findings")
    description = models.CharField(max_length=FINDING_MAX_LENGTH)
    severity = models.CharField(max_length=8, choices=FindingSeverity.choices, default=FindingSeverity.MEDIUM)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta(TenantOwnedModel.Meta):
        constraints = [
            models.CheckConstraint(condition=Q(severity__in=FindingSeverity.values), name="sst_finding_severity_valid"),
            models.CheckConstraint(condition=~Q(description=""), name="sst_finding_description_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.severity} finding on inspection {self.inspection_id}"


class FaultRule(TenantOwnedModel):
    """An injected failure of one SST route (tests and demos only; see sst/faults.py)."""

    route = models.CharField(max_length=100)  # URL name, e.g. "sst:permit-validity"
    method = models.CharField(max_length=10, null=True, blank=True)
    status = models.PositiveSmallIntegerField(null=True, blank=True)
    latency_ms = models.PositiveIntegerField(null=True, blank=True)
    # Calls left; NULL = every call until cleared. Decremented by a conditional UPDATE.
    times = models.PositiveIntegerField(null=True, blank=True)
    match = models.JSONField(null=True, blank=True)
    # A silent no-op: the call answers as if it succeeded, and nothing it wrote is kept.
    noop = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta(TenantOwnedModel.Meta):
        constraints = [
            models.CheckConstraint(
                condition=Q(status__isnull=False) | Q(latency_ms__isnull=False) | Q(noop=True),
                name="sst_faultrule_has_effect",
            ),
            models.CheckConstraint(
                condition=Q(status__isnull=True) | Q(status__gte=100, status__lte=599), name="sst_faultrule_status"
            ),
        ]

    def __str__(self) -> str:
        effect = "no-op" if self.noop else self.status or ""
        return f"{self.route} {self.method or '*'} → {effect} +{self.latency_ms or 0}ms ×{self.times}"


class IdempotencyState(models.TextChoices):
    IN_PROGRESS = "IN_PROGRESS", "In progress"
    COMPLETED = "COMPLETED", "Completed"


class IdempotencyRecord(TenantOwnedModel):
    """The first completed answer to a write sent with an Idempotency-Key (per tenant)."""

    key = models.CharField(max_length=255)
    request_hash = models.CharField(max_length=64)
    state = models.CharField(max_length=16, choices=IdempotencyState.choices, default=IdempotencyState.IN_PROGRESS)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    # The rendered JSON text, not a JSONField: jsonb would reorder keys and the replay must be identical.
    response_body = models.TextField(blank=True)
    response_headers = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta(TenantOwnedModel.Meta):
        constraints = [models.UniqueConstraint(fields=["tenant", "key"], name="sst_idempotency_tenant_key_unique")]

    def __str__(self) -> str:
        return f"{self.key} ({self.state})"
