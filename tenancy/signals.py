"""What drops a cached token context (tenancy/token_cache.py): a change to anything it was built from."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models.signals import post_delete, post_save

from .data_epoch import data_changed
from .models import AccessToken, Membership, Tenant
from .token_cache import forget_digests


def _tokens(**filters: Any) -> None:
    forget_digests(AccessToken.objects.filter(**filters).values_list("digest", flat=True))


def _token_changed(sender, instance: AccessToken, **_: Any) -> None:
    forget_digests([instance.digest])


def _membership_changed(sender, instance: Membership, **_: Any) -> None:
    _tokens(user_id=instance.user_id, tenant_id=instance.tenant_id)
    data_changed(instance.tenant_id)  # what the business API lets this user list may change with the role


def _user_changed(sender, instance, **_: Any) -> None:
    _tokens(user_id=instance.pk)


def _tenant_changed(sender, instance: Tenant, **_: Any) -> None:
    _tokens(tenant_id=instance.pk)


def connect() -> None:
    for signal in (post_save, post_delete):
        signal.connect(_token_changed, sender=AccessToken, dispatch_uid="tokenctx-token")
        signal.connect(_membership_changed, sender=Membership, dispatch_uid="tokenctx-membership")
        signal.connect(_user_changed, sender=get_user_model(), dispatch_uid="tokenctx-user")
        signal.connect(_tenant_changed, sender=Tenant, dispatch_uid="tokenctx-tenant")
