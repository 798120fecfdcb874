"""The sample application tells the agent that a tenant's data changed (tenancy.data_epoch).

A real application would call a webhook naming what changed; this one is in the same process, so its
row signals and its write endpoints move the tenant's data epoch directly. Signals cover rows saved
or deleted one by one (services, factories, the test-control API); the write endpoints cover the bulk
statements that send no signal (bulk_create, queryset delete).

What changed is said per topic, in the API's own path terms (tenancy.data_epoch.topics_of): a permit
and the rows under it (components, workers, evaluations) are "permits" (every list, search and count
of permits) and "permits/<id>" (the permit and its sub-resources); inspections and their findings
likewise. Companies, employees and component types are shown inside other answers (a permit names its
company, responsible and components), so a change to one moves the whole tenant.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.db.models.signals import post_delete, post_save
from django.urls import reverse

from tenancy.data_epoch import data_changed, topics_of

# Bookkeeping rows, not the data the agent reads.
_NOT_DATA = frozenset({"IdempotencyRecord", "FaultRule"})
# Rows of an entity with its own part of the API: model → (collection, field holding the entity's id).
_UNDER = {
    "WorkPermit": ("permits", "pk"),
    "PermitComponent": ("permits", "permit_id"),
    "PermitWorker": ("permits", "permit_id"),
    "PermitEvaluation": ("permits", "permit_id"),
    "Inspection": ("inspections", "pk"),
    "Finding": ("inspections", "inspection_id"),
}


def row_topics(model_name: str, instance: Any) -> list[str] | None:
    """The topics a saved or deleted row changes; None: the whole tenant."""
    under = _UNDER.get(model_name)
    if under is None:
        return None
    collection, id_field = under
    entity = getattr(instance, id_field, None)
    return [collection] if entity is None else [collection, f"{collection}/{entity}"]


def request_topics(path: str) -> list[str] | None:
    """The topics a successful write to an API path (absolute, e.g. /api/sst/permits/7/validity) changes;
    None: the whole tenant."""
    root = reverse("sst:company-list").removesuffix("companies")
    relative = path.removeprefix(root)
    parts = relative.strip("/").split("/")
    if parts[0] not in {collection for collection, _ in _UNDER.values()}:
        return None
    entity = topics_of(relative, entity_at_second=len(parts) > 1 and parts[1].isdigit())
    return sorted({parts[0], *entity})


def _row_changed(sender: Any, instance: Any, **_: Any) -> None:
    data_changed(getattr(instance, "tenant_id", None), row_topics(sender.__name__, instance))


def connect() -> None:
    for model in apps.get_app_config("sst").get_models():
        if model.__name__ in _NOT_DATA:
            continue
        for signal in (post_save, post_delete):
            signal.connect(_row_changed, sender=model, dispatch_uid=f"sst-data-{model.__name__}")
