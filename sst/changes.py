"""The sample application tells the agent that a tenant's data changed (tenancy.data_epoch).

A real application would call a webhook naming what changed; this one is in the same process, so its
row signals and its write endpoints move the tenant's data epoch directly. Signals cover rows saved
or deleted one by one (services, factories, the test-control API); the write endpoints cover the bulk
statements that send no signal (bulk_create, queryset delete).

What changed is said per topic, in the API's own path terms (tenancy.data_epoch.topics_of): a permit
and the rows under it (components, workers, evaluations) are "permits" (every list, search and count
of permits) and "permits/<id>" (the permit and its sub-resources); inspections and their findings
likewise. The lists of a permit's components and workers and of an inspection's findings are declared
parts (tenancy.data_epoch.register_parts): their rows also move "permits/<id>/components" etc., which
is all such a list depends on — a permit's validity changing leaves them kept — and an entity deleted
moves all of its parts. Companies, employees and component types are shown inside other answers (a permit names its
company, responsible and components), so a change to one moves the whole tenant.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.db.models.signals import post_delete, post_save
from django.urls import reverse

from tenancy.data_epoch import PLAIN, data_changed, parts_of, register_parts

# Bookkeeping rows, not the data the agent reads.
_NOT_DATA = frozenset({"IdempotencyRecord", "FaultRule"})
# Rows of an entity with its own part of the API: model → (collection, field holding the entity's id, the
# declared part its rows are listed at, if any).
_UNDER = {
    "WorkPermit": ("permits", "pk", None),
    "PermitComponent": ("permits", "permit_id", "components"),
    "PermitWorker": ("permits", "permit_id", "workers"),
    "PermitEvaluation": ("permits", "permit_id", None),
    "Inspection": ("inspections", "pk", None),
    "Finding": ("inspections", "inspection_id", "findings"),
}
# Plain values (tenancy.data_epoch.PLAIN): fields no name, state or reference is made of, by model, and the
# write paths that change only those ("permits/<id>/validity").
_PLAIN_FIELDS = {"WorkPermit": frozenset({"validity_days"})}
_PLAIN_PATHS = {"permits": frozenset({"validity"})}
_BOOKKEEPING = frozenset({"revision", "updated_at"})
# The entity rows themselves: deleting one empties every part of it.
_ENTITIES = frozenset(name for name, (_, id_field, _) in _UNDER.items() if id_field == "pk")


def row_topics(model_name: str, instance: Any, *, deleted: bool = False,
               update_fields: Any = None) -> list[str] | None:
    """The topics a saved or deleted row changes; None: the whole tenant. `update_fields`: the fields a save
    wrote, when it said (only plain values: the collection's plain topic, not the collection's)."""
    under = _UNDER.get(model_name)
    if under is None:
        return None
    collection, id_field, part = under
    entity = getattr(instance, id_field, None)
    if entity is None:
        return [collection]
    if not deleted and update_fields and set(update_fields) - _BOOKKEEPING <= _PLAIN_FIELDS.get(model_name, set()):
        return [collection + PLAIN, f"{collection}/{entity}"]
    parts = parts_of(collection) if deleted and model_name in _ENTITIES else {part} - {None}
    return [collection, f"{collection}/{entity}", *(f"{collection}/{entity}/{p}" for p in sorted(parts))]


def request_topics(path: str) -> list[str] | None:
    """The topics a successful write to an API path (absolute, e.g. /api/sst/permits/7/validity) changes;
    None: the whole tenant. A write to the entity itself (its path alone: a delete) moves all of its parts."""
    root = reverse("sst:company-list").removesuffix("companies")
    parts = path.removeprefix(root).strip("/").split("/")
    if parts[0] not in {collection for collection, _, _ in _UNDER.values()}:
        return None
    if len(parts) < 2 or not parts[1].isdigit():
        return [parts[0]]
    entity = f"{parts[0]}/{parts[1]}"
    if len(parts) == 3 and parts[2] in _PLAIN_PATHS.get(parts[0], ()):
        return sorted({parts[0] + PLAIN, entity})
    named = parts_of(parts[0]) if len(parts) == 2 else parts_of(parts[0]) & {parts[2]}
    return sorted({parts[0], entity, *(f"{entity}/{p}" for p in named)})


def _row_saved(sender: Any, instance: Any, update_fields: Any = None, **_: Any) -> None:
    data_changed(getattr(instance, "tenant_id", None), row_topics(sender.__name__, instance,
                                                                  update_fields=update_fields))


def _row_deleted(sender: Any, instance: Any, **_: Any) -> None:
    data_changed(getattr(instance, "tenant_id", None), row_topics(sender.__name__, instance, deleted=True))


def connect() -> None:
    for collection in {collection for collection, _, _ in _UNDER.values()}:
        register_parts(collection, {part for c, _, part in _UNDER.values() if c == collection and part})
    for model in apps.get_app_config("sst").get_models():
        if model.__name__ in _NOT_DATA:
            continue
        post_save.connect(_row_saved, sender=model, dispatch_uid=f"sst-data-{model.__name__}")
        post_delete.connect(_row_deleted, sender=model, dispatch_uid=f"sst-data-{model.__name__}")
