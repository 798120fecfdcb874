from __future__ import annotations

import hashlib
import secrets
import uuid

from django.conf import settings
from django.db import models

from .token_cache import forget_digests


class Tenant(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class Role(models.TextChoices):
    VIEWER = "viewer", "Viewer"
    OPERATOR = "operator", "Operator"
    SUPERVISOR = "supervisor", "Supervisor"
    ADMIN = "admin", "Admin"


ROLE_RANK = {Role.VIEWER: 0, Role.OPERATOR: 1, Role.SUPERVISOR: 2, Role.ADMIN: 3}


def role_at_least(role: str, minimum: str) -> bool:
    return ROLE_RANK[Role(role)] >= ROLE_RANK[Role(minimum)]


class MembershipQuerySet(models.QuerySet):
    def update(self, **kwargs):
        """A bulk role change sends no signal: drop the cached contexts of the affected tokens here."""
        pairs = list(self.values_list("user_id", "tenant_id"))
        updated = super().update(**kwargs)
        query = models.Q()
        for user_id, tenant_id in pairs:
            query |= models.Q(user_id=user_id, tenant_id=tenant_id)
        if pairs:
            forget_digests(AccessToken.objects.filter(query).values_list("digest", flat=True))
        return updated


class Membership(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = MembershipQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "tenant"], name="membership_user_tenant_unique"),
            models.CheckConstraint(condition=models.Q(role__in=Role.values), name="membership_role_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.user} @ {self.tenant} ({self.role})"


def token_digest(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


class AccessToken(models.Model):
    """An API token bound to one user *and one tenant*: the tenant is never taken from a request.

    Only the SHA-256 digest is stored; the raw key is shown once when issued.
    """

    digest = models.CharField(max_length=64, unique=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="access_tokens")
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="access_tokens")
    label = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    @staticmethod
    def new_raw_key() -> str:
        return secrets.token_urlsafe(32)

    def __str__(self) -> str:
        return f"token of {self.user} @ {self.tenant}"
