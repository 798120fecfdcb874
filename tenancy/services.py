from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from .models import AccessToken, Membership, Tenant, token_digest
from .selectors import SESSION_TENANT_KEY, membership_get


class NotAMember(Exception):
    """The user has no membership in the tenant asked for."""


def tenant_create(*, slug: str, name: str) -> Tenant:
    return Tenant.objects.create(slug=slug, name=name)


def membership_grant(*, user: AbstractBaseUser, tenant: Tenant, role: str) -> Membership:
    membership, _ = Membership.objects.update_or_create(user=user, tenant=tenant, defaults={"role": role})
    return membership


@transaction.atomic
def access_token_issue(
    *, user: AbstractBaseUser, tenant: Tenant, label: str = "", expires_at: datetime | None = None
) -> str:
    """Issue a token for (user, tenant); returns the raw key, which is not stored."""
    if membership_get(user=user, tenant_id=tenant.pk) is None:
        raise NotAMember(f"{user} is not a member of {tenant}")
    raw = AccessToken.new_raw_key()
    AccessToken.objects.create(digest=token_digest(raw), user=user, tenant=tenant, label=label,
                               expires_at=expires_at)
    return raw


def session_tenant_switch(*, user: AbstractBaseUser, session: dict, tenant_id: object) -> Membership:
    """Choose which of the user's tenants the session acts in: one at a time."""
    membership = membership_get(user=user, tenant_id=tenant_id)
    if membership is None:
        raise NotAMember(str(tenant_id))
    session[SESSION_TENANT_KEY] = str(membership.tenant_id)
    return membership
