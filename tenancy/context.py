"""The (user, tenant, role) a request or websocket acts as, derived from authentication only."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser

from .models import Membership, Tenant, role_at_least


@dataclass(frozen=True)
class TenantContext:
    user: AbstractBaseUser
    tenant: Tenant
    membership: Membership

    @property
    def role(self) -> str:
        return self.membership.role

    def has_role(self, minimum: str) -> bool:
        return role_at_least(self.role, minimum)
