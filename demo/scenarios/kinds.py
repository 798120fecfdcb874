"""The SST entities a scenario may name (SCENARIOS.md): work permits and safety inspections.

One row per entity says how a file names it (`permit: "123"`, `inspection: "45"`), where the
test-control facts list it, which `entityType` the UI context and the navigation answer carry, the
front end's route of one of them, and which world-fact fields are compared by equality or as exact
sets. The loader, the judge and the player read this table instead of naming either entity.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class EntityKind:
    key: str  # how a scenario names one: `permit: "123"`, `selection: {inspection: "45"}`
    plural: str  # the count fact (`permits: 3`), the world's list and the facts' list
    entity_type: str  # `entityType` of a ui_context selection and of a navigation answer's entity
    route: str  # the front end's page of one: `<route>/<id>`
    fields: tuple[str, ...]  # world-fact fields that must equal
    sets: tuple[str, ...]  # world-fact fields compared as exact sets


PERMIT = EntityKind(key="permit", plural="permits", entity_type="workPermit", route="/work-permits",
                    fields=("status", "validity_days", "responsible"), sets=("components", "workers"))
INSPECTION = EntityKind(key="inspection", plural="inspections", entity_type="inspection", route="/inspections",
                        fields=("status", "scheduled_in_days", "inspector", "site"), sets=("findings",))
KINDS = (PERMIT, INSPECTION)


def kinds_named(item: Mapping[str, Any]) -> list[EntityKind]:
    """The kinds whose key the item uses (a valid reference names exactly one)."""
    return [kind for kind in KINDS if kind.key in item]


def kind_of_type(entity_type: str | None) -> EntityKind | None:
    return next((kind for kind in KINDS if kind.entity_type == entity_type), None)
