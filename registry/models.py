"""The Capability Registry: the only list of things the agent can do.

Two models for a capability, on purpose:

- `Capability` is the *identity* (`<entity>.<verb>`, a manifest id). It carries what must survive a
  new version: django-guardian's `use_capability` object permission (a grant "may use
  <entity>.delete" is about the operation; binding it to a version would silently drop every
  grant each time a definition is re-approved) and the per-tenant disables.
- `CapabilityVersion` is one immutable, approvable *definition* of it. Approvals attach to a
  version and never carry over; once a version leaves DRAFT its definition cannot change — the
  database refuses it (migration 0002), whatever path the UPDATE takes.

Capabilities are global (not tenant-owned). The one tenant dimension is `TenantCapabilityBlock`:
an admin can switch a capability off for one tenant (e.g. a customer that does not want the agent
to delete records); discovery and the hot-path snapshot honour it. It is small on purpose:
per-tenant *enabling* of something not ACTIVE globally is impossible by construction.

`RegistryState` holds one row whose `version` a trigger moves in the same transaction as every
change that alters what the hot path may serve (status changes, tenant blocks, resources). The
value comes from a PostgreSQL sequence, which is not rolled back, so a version number is never
reused for a different state (see selectors.registry_snapshot).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from tenancy.scoping import TenantOwnedModel


class CapabilityStatus(models.TextChoices):
    DRAFT = "DRAFT", "Draft"
    PENDING_APPROVAL = "PENDING_APPROVAL", "Pending approval"
    ACTIVE = "ACTIVE", "Active"
    SUSPENDED = "SUSPENDED", "Suspended"
    RETIRED = "RETIRED", "Retired"


# The lifecycle table. Anything not listed is illegal (services raise; a trigger refuses it too).
# PENDING_APPROVAL -> RETIRED is "rejected": going back to DRAFT would let old approvals count again.
TRANSITIONS: dict[str, frozenset[str]] = {
    CapabilityStatus.DRAFT: frozenset({CapabilityStatus.PENDING_APPROVAL, CapabilityStatus.RETIRED}),
    CapabilityStatus.PENDING_APPROVAL: frozenset({CapabilityStatus.ACTIVE, CapabilityStatus.RETIRED}),
    CapabilityStatus.ACTIVE: frozenset({CapabilityStatus.SUSPENDED, CapabilityStatus.RETIRED}),
    CapabilityStatus.SUSPENDED: frozenset({CapabilityStatus.ACTIVE, CapabilityStatus.RETIRED}),
    CapabilityStatus.RETIRED: frozenset(),
}


class CapabilityKind(models.TextChoices):
    READ = "read", "Read"
    WRITE = "write", "Write"
    NAVIGATION = "navigation", "Navigation"


class RiskLevel(models.TextChoices):
    READ = "read", "Read"
    LOW = "low", "Low"
    MEDIUM = "medium", "Medium"
    HIGH = "high", "High"
    CRITICAL = "critical", "Critical"


RISK_RANK = {RiskLevel.READ: 0, RiskLevel.LOW: 1, RiskLevel.MEDIUM: 2, RiskLevel.HIGH: 3, RiskLevel.CRITICAL: 4}


class HttpMethod(models.TextChoices):
    GET = "GET"
    POST = "POST"
    PUT = "PUT"
    PATCH = "PATCH"
    DELETE = "DELETE"


class Transport(models.TextChoices):
    INPROCESS = "inprocess", "In-process (embedded default, fast tests)"
    HTTP = "http", "HTTP"


class ResourceAuth(models.TextChoices):
    # The call acts as the authenticated (user, tenant) of the execution: in-process it passes the
    # TenantContext, over HTTP a short-lived tenant-bound token issued for that user.
    USER_CONTEXT = "user_context", "Acting user's tenant context"
    NONE = "none", "None"


class Resource(models.Model):
    """An API capabilities call. Only registered resources (and their registered fallbacks) are used."""

    key = models.SlugField(max_length=64, unique=True)
    description = models.TextField(blank=True)
    base_path = models.CharField(max_length=200)
    transport = models.CharField(max_length=16, choices=Transport.choices, default=Transport.INPROCESS)
    # Name of a Django setting; when that setting holds a URL the resource is reached over HTTP there.
    base_url_setting = models.CharField(max_length=100, blank=True)
    timeout_initial_ms = models.PositiveIntegerField(default=2000)
    timeout_max_ms = models.PositiveIntegerField(default=10000)
    auth = models.CharField(max_length=16, choices=ResourceAuth.choices, default=ResourceAuth.USER_CONTEXT)
    fallbacks = models.ManyToManyField("self", through="ResourceFallback", symmetrical=False, blank=True,
                                       related_name="fallback_for")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=models.Q(timeout_initial_ms__lte=models.F("timeout_max_ms")),
                                   name="resource_timeout_initial_lte_max"),
            models.CheckConstraint(condition=models.Q(transport__in=Transport.values), name="resource_transport_valid"),
        ]

    def __str__(self) -> str:
        return self.key


class ResourceFallback(models.Model):
    resource = models.ForeignKey(Resource, on_delete=models.CASCADE, related_name="fallback_links")
    fallback = models.ForeignKey(Resource, on_delete=models.PROTECT, related_name="+")
    priority = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["priority", "id"]
        constraints = [
            models.UniqueConstraint(fields=["resource", "fallback"], name="resource_fallback_unique"),
            models.CheckConstraint(condition=~models.Q(resource=models.F("fallback")),
                                   name="resource_fallback_not_self"),
        ]


class Capability(models.Model):
    """A capability's identity; its definitions are the CapabilityVersion rows."""

    key = models.CharField(max_length=120, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "capabilities"
        permissions = [("use_capability", "Can use the capability (object permission, checked by policy)")]
        constraints = [
            models.CheckConstraint(condition=models.Q(key__regex=r"^[a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)+$"),
                                   name="capability_key_dotted"),
        ]

    def __str__(self) -> str:
        return self.key


class CapabilityVersion(models.Model):
    """One approvable definition of a capability. Every column but `status` freezes when it leaves DRAFT."""

    capability = models.ForeignKey(Capability, on_delete=models.PROTECT, related_name="versions")
    version = models.PositiveIntegerField()
    status = models.CharField(max_length=20, choices=CapabilityStatus.choices, default=CapabilityStatus.DRAFT)
    description = models.TextField()
    kind = models.CharField(max_length=16, choices=CapabilityKind.choices)
    risk_level = models.CharField(max_length=16, choices=RiskLevel.choices)
    required_permissions = models.JSONField(default=list)
    input_schema = models.JSONField(default=dict)
    output_schema = models.JSONField(default=dict)
    resource = models.ForeignKey(Resource, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    http_method = models.CharField(max_length=8, choices=HttpMethod.choices, blank=True)
    path_template = models.CharField(max_length=300, blank=True)
    # How the input maps onto the call: query/body field lists, If-Match field (see manifest schema).
    call = models.JSONField(default=dict, blank=True)
    navigation = models.JSONField(null=True, blank=True)
    idempotent = models.BooleanField(default=False)
    honours_idempotency_key = models.BooleanField(default=False)
    cancellable = models.BooleanField(default=False)
    undo = models.JSONField(null=True, blank=True)
    compensation = models.JSONField(null=True, blank=True)
    verification = models.JSONField(null=True, blank=True)
    retry_policy = models.JSONField(default=dict)
    adaptation = models.JSONField(default=dict)
    language = models.JSONField(default=dict)
    # Resource-state rules policy checks before any confirmation (manifest `preconditions`).
    preconditions = models.JSONField(default=list, blank=True)
    discoverable = models.BooleanField(default=True)
    definition_hash = models.CharField(max_length=64)
    source = models.CharField(max_length=200, blank=True)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True,
                               related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["capability__key", "-version"]
        permissions = [
            ("approve_technical", "Can give the technical approval of a capability version"),
            ("approve_business", "Can give the business approval of a capability version"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["capability", "version"], name="capability_version_unique"),
            models.UniqueConstraint(fields=["capability"], condition=models.Q(status=CapabilityStatus.ACTIVE),
                                    name="capability_one_active_version"),
            models.CheckConstraint(condition=models.Q(version__gte=1), name="capability_version_positive"),
            models.CheckConstraint(condition=models.Q(status__in=CapabilityStatus.values),
                                   name="capability_status_valid"),
            models.CheckConstraint(condition=models.Q(kind__in=CapabilityKind.values), name="capability_kind_valid"),
            models.CheckConstraint(condition=models.Q(risk_level__in=RiskLevel.values), name="capability_risk_valid"),
            # Navigation produces an instruction and calls nothing; everything else calls a resource.
            models.CheckConstraint(
                condition=(models.Q(kind=CapabilityKind.NAVIGATION, resource__isnull=True, navigation__isnull=False)
                           | (~models.Q(kind=CapabilityKind.NAVIGATION) & models.Q(resource__isnull=False)
                              & ~models.Q(http_method="") & models.Q(navigation__isnull=True))),
                name="capability_navigation_xor_call",
            ),
            models.CheckConstraint(condition=~models.Q(kind=CapabilityKind.READ) | models.Q(risk_level=RiskLevel.READ),
                                   name="capability_read_is_read_risk"),
        ]
        indexes = [models.Index(fields=["status"], name="capability_status_idx")]

    def __str__(self) -> str:
        return f"{self.capability.key} v{self.version} ({self.status})"


class ApprovalKind(models.TextChoices):
    TECHNICAL = "technical", "Technical"
    BUSINESS = "business", "Business"


class CapabilityApproval(models.Model):
    """Append-only (trigger). One of each kind per version, and never both from the same person."""

    capability_version = models.ForeignKey(CapabilityVersion, on_delete=models.PROTECT, related_name="approvals")
    kind = models.CharField(max_length=16, choices=ApprovalKind.choices)
    approver = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    reason = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["capability_version", "kind"], name="approval_one_per_kind"),
            # The two-person rule, in the database: one person, at most one approval of a version.
            models.UniqueConstraint(fields=["capability_version", "approver"], name="approval_two_people"),
            models.CheckConstraint(condition=models.Q(kind__in=ApprovalKind.values), name="approval_kind_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} approval of {self.capability_version_id} by {self.approver_id}"


class CapabilityStatusChange(models.Model):
    """Append-only (trigger) history of a version's status: who, when, why."""

    capability_version = models.ForeignKey(CapabilityVersion, on_delete=models.PROTECT, related_name="status_changes")
    from_status = models.CharField(max_length=20, blank=True)
    to_status = models.CharField(max_length=20, choices=CapabilityStatus.choices)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True,
                              related_name="+")
    reason = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.from_status or '∅'} → {self.to_status}"


class TenantCapabilityBlock(TenantOwnedModel):
    """A capability switched off for one tenant by an admin. Deleting the row switches it back on."""

    capability = models.ForeignKey(Capability, on_delete=models.CASCADE, related_name="tenant_blocks")
    reason = models.TextField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta(TenantOwnedModel.Meta):
        constraints = [models.UniqueConstraint(fields=["tenant", "capability"], name="tenant_capability_block_unique")]

    def __str__(self) -> str:
        return f"{self.capability_id} off for {self.tenant_id}"


class RegistryState(models.Model):
    """One row (id=1): the registry version the hot-path cache is keyed by. Written by triggers only."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    version = models.BigIntegerField(default=0)
    changed_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.CheckConstraint(condition=models.Q(id=1), name="registry_state_singleton")]
