"""The sample application tells the agent that a tenant's data changed (tenancy.data_epoch).

A real application would call a webhook; this one is in the same process, so its row signals and
its write endpoints move the tenant's data epoch directly. Signals cover rows saved or deleted one
by one (services, factories, the test-control API); the write endpoints cover the bulk statements
that send no signal (bulk_create, queryset delete).
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.db.models.signals import post_delete, post_save

from tenancy.data_epoch import data_changed

# Bookkeeping rows, not the data the agent reads.
_NOT_DATA = frozenset({"IdempotencyRecord", "FaultRule"})


def _row_changed(sender: Any, instance: Any, **_: Any) -> None:
    data_changed(getattr(instance, "tenant_id", None))


def connect() -> None:
    for model in apps.get_app_config("sst").get_models():
        if model.__name__ in _NOT_DATA:
            continue
        for signal in (post_save, post_delete):
            signal.connect(_row_changed, sender=model, dispatch_uid=f"sst-data-{model.__name__}")
