from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from .context import TenantContext
from .models import AccessToken, Membership, token_digest
from .token_cache import cached_context, context_remember

SESSION_TENANT_KEY = "tenancy.active_tenant_id"


def membership_get(*, user: AbstractBaseUser, tenant_id: object) -> Membership | None:
    return Membership.objects.select_related("tenant").filter(user=user, tenant_id=tenant_id).first()


def context_for_session(*, user: AbstractBaseUser, session: dict) -> TenantContext | None:
    """The tenant the session chose; a user with exactly one membership needs no choice."""
    if not user.is_authenticated:
        return None
    tenant_id = session.get(SESSION_TENANT_KEY)
    if tenant_id:
        membership = membership_get(user=user, tenant_id=tenant_id)
    else:
        memberships = list(Membership.objects.select_related("tenant").filter(user=user)[:2])
        membership = memberships[0] if len(memberships) == 1 else None
    return TenantContext(user, membership.tenant, membership) if membership else None


def context_for_user(*, user_id: object, tenant_id: object) -> TenantContext | None:
    """An active user acting in a tenant they are a member of (a redeemed websocket ticket)."""
    membership = Membership.objects.select_related("user", "tenant").filter(
        user_id=user_id, tenant_id=tenant_id, user__is_active=True).first()
    return TenantContext(membership.user, membership.tenant, membership) if membership else None


def context_for_token(*, raw_key: str) -> TenantContext | None:
    return context_for_token_digest(digest=token_digest(raw_key))


def context_for_token_digest(*, digest: str) -> TenantContext | None:
    """As context_for_token, from the stored digest (a websocket ticket remembers the token that asked for it).

    Read once and kept in the cache until what it was built from changes (tenancy/token_cache.py)."""
    context = cached_context(digest)
    if context is not None:
        return context
    token = AccessToken.objects.select_related("user", "tenant").filter(digest=digest).first()
    if token is None or not token.user.is_active:
        return None
    if token.expires_at is not None and token.expires_at <= timezone.now():
        return None
    membership = membership_get(user=token.user, tenant_id=token.tenant_id)
    if membership is None:
        return None
    context = TenantContext(token.user, token.tenant, membership)
    context_remember(digest, context, token.expires_at)
    return context
