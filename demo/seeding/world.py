"""A scenario `world` (SCENARIOS.md) loaded into one tenant, through the sst and knowledge services.

`world_problems(world)` lists what a world names but lacks (an employee, a component, a company of
an employee): the scenario runner reports such a file as invalid before playing it, and the
test-control API answers 400 with the same messages. `world_seed(tenant=…, world=…)` then creates
companies, employees, the component catalog, permits (moved to their status through the permit
lifecycle services), inspections with their findings (likewise) and the knowledge package.

Defaults the format leaves open: a permit without `validity_days` gets 30 days (the SST default
the knowledge corpus states); an inspection without `scheduled_in_days` is 7 days from today by the
server's clock (sst.clock) and one without `site` has none (empty); a company named only by a
permit, an inspection or an employee is created too (SCENARIOS.md's own `other_tenant` example
lists no companies). A knowledge document whose title
equals a component's name, ignoring case and accents, is that component's document
(`semantic_ids: [component:<key>]`).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, timedelta
from typing import Any

from django.db import transaction

from knowledge.services import knowledge_package_create
from sst import inspection_services
from sst import services as sst_services
from sst.clock import today
from sst.models import (
    FINDING_MAX_LENGTH,
    MAX_VALIDITY_DAYS,
    NAME_MAX_LENGTH,
    NUMBER_MAX_LENGTH,
    Company,
    ComponentType,
    Employee,
    FindingSeverity,
    InspectionStatus,
    PermitStatus,
)
from sst.text import fold
from tenancy.models import Tenant

DEFAULT_VALIDITY_DAYS = 30
DEFAULT_SCHEDULED_IN_DAYS = 7
MAX_SCHEDULED_IN_DAYS = 36_500  # a date a century away either side: `today + days` stays a date
KEY_MAX_LENGTH = ComponentType._meta.get_field("key").max_length
TITLE_MAX_LENGTH = 300  # knowledge.KnowledgeSection.document_title
# What each column holds (the schema leaves lengths and ranges open): a world beyond them is a 400
# from world_problems, not a database error halfway through seeding. (max length, required non-blank)
_TEXT_LIMITS: dict[str, dict[str, tuple[int, bool]]] = {
    "employees": {"name": (NAME_MAX_LENGTH, True), "company": (NAME_MAX_LENGTH, True)},
    "components": {"key": (KEY_MAX_LENGTH, True), "name": (NAME_MAX_LENGTH, True)},
    "permits": {"number": (NUMBER_MAX_LENGTH, True), "company": (NAME_MAX_LENGTH, True),
                "responsible": (NAME_MAX_LENGTH, False)},
    "inspections": {"number": (NUMBER_MAX_LENGTH, True), "company": (NAME_MAX_LENGTH, True),
                    "site": (NAME_MAX_LENGTH, False), "inspector": (NAME_MAX_LENGTH, False)},
    "knowledge": {"title": (TITLE_MAX_LENGTH, True)},
}
_RANGES: dict[str, dict[str, tuple[int, int]]] = {
    "permits": {"validity_days": (1, MAX_VALIDITY_DAYS)},
    "inspections": {"scheduled_in_days": (-MAX_SCHEDULED_IN_DAYS, MAX_SCHEDULED_IN_DAYS)},
}

World = Mapping[str, Any]


class WorldError(ValueError):
    """The world names something it lacks; `problems` lists each one."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def world_companies(world: World) -> list[str]:
    """Every company the world names, in first-mention order (listed, employees', permits', inspections')."""
    names = [*world.get("companies", []), *(e["company"] for e in world.get("employees", [])),
             *(p["company"] for p in world.get("permits", [])), *(i["company"] for i in world.get("inspections", []))]
    return list(dict.fromkeys(names))


def component_lookup(world: World) -> dict[str, Mapping[str, Any]]:
    """Catalog entries by their name and by their key, both folded (names and keys refer alike)."""
    lookup: dict[str, Mapping[str, Any]] = {}
    for component in world.get("components", []):
        lookup[fold(component["key"])] = component
        lookup[fold(component["name"])] = component
    return lookup


def name_problems(world: World, item: Mapping[str, Any], at: str) -> list[str]:
    """The `responsible`, `inspector`, `workers` and `components` of a permit or an inspection (or of a fact
    about one) that the world lacks."""
    employees = {e["name"] for e in world.get("employees", [])}
    components = component_lookup(world)
    problems = [f"{at}.{role}: unknown employee {item[role]!r}" for role in ("responsible", "inspector")
                if item.get(role) is not None and item[role] not in employees]
    problems += [f"{at}.workers: unknown employee {name!r}" for name in item.get("workers", [])
                 if name not in employees]
    problems += [f"{at}.components: unknown component {name!r}" for name in item.get("components", [])
                 if fold(name) not in components]
    return problems


def world_problems(world: World, *, where: str = "world") -> list[str]:
    """What the world's permits and inspections (and its other tenant) name but the world lacks."""
    problems = column_problems(world, where=where)
    for plural in ("permits", "inspections"):
        seen: set[tuple[str, str]] = set()
        for index, item in enumerate(world.get(plural, [])):
            at = f"{where}.{plural}[{index}]"
            key = (item["company"], item["number"])
            if key in seen:
                problems.append(f"{at}: {plural[:-1]} {item['number']!r} of {item['company']!r} is listed twice")
            seen.add(key)
            problems += name_problems(world, item, at)
    if world.get("other_tenant") is not None:
        problems += world_problems(world["other_tenant"], where=f"{where}.other_tenant")
    return problems


def column_problems(world: World, *, where: str = "world") -> list[str]:
    """Values the SST columns cannot hold (too long, blank, out of range) and duplicate component keys."""
    problems = [f"{where}.companies[{i}]: {_text_problem(name, NAME_MAX_LENGTH, True)}"
                for i, name in enumerate(world.get("companies", [])) if _text_problem(name, NAME_MAX_LENGTH, True)]
    for plural, fields in _TEXT_LIMITS.items():
        for index, item in enumerate(world.get(plural, [])):
            for field, (limit, required) in fields.items():
                problem = _text_problem(item.get(field), limit, required)
                if problem:
                    problems.append(f"{where}.{plural}[{index}].{field}: {problem}")
            for field, (low, high) in _RANGES.get(plural, {}).items():
                value = item.get(field)
                if isinstance(value, int) and not low <= value <= high:
                    problems.append(f"{where}.{plural}[{index}].{field}: {value} is not within {low}..{high}")
            for j, finding in enumerate(item.get("findings", []) if plural == "inspections" else []):
                problem = _text_problem(finding.get("description"), FINDING_MAX_LENGTH, True)
                if problem:
                    problems.append(f"{where}.{plural}[{index}].findings[{j}].description: {problem}")
    seen: set[str] = set()
    for index, component in enumerate(world.get("components", [])):
        if component["key"] in seen:
            problems.append(f"{where}.components[{index}].key: component key {component['key']!r} is listed twice")
        seen.add(component["key"])
    return problems


def _text_problem(value: Any, limit: int, required: bool) -> str | None:
    if not isinstance(value, str):
        return None  # absent (the schema decides what is required) or not text (the schema's error)
    if len(value) > limit:
        return f"longer than {limit} characters ({len(value)})"
    if required and not value.strip():
        return "must not be blank"
    return None


@transaction.atomic
def world_seed(*, tenant: Tenant, world: World) -> None:
    """Load `world` (without its `other_tenant`) into `tenant`; raises WorldError first if it is incomplete."""
    problems = world_problems({k: v for k, v in world.items() if k != "other_tenant"})
    if problems:
        raise WorldError(problems)
    companies = {name: sst_services.company_create(tenant=tenant, name=name) for name in world_companies(world)}
    employees = {e["name"]: sst_services.employee_create(tenant=tenant, company=companies[e["company"]],
                                                         name=e["name"])
                 for e in world.get("employees", [])}
    types = {c["key"]: sst_services.component_type_create(tenant=tenant, key=c["key"], name=c["name"],
                                                           undoable=c.get("undoable", True))
             for c in world.get("components", [])}
    for permit in world.get("permits", []):
        _permit_seed(tenant, permit, companies, employees, types, component_lookup(world))
    day = today()  # one "today" for the whole world, even across midnight
    for inspection in world.get("inspections", []):
        _inspection_seed(tenant, inspection, companies, employees, day)
    if world.get("knowledge"):
        knowledge_package_create(tenant=tenant, documents=_documents(world), source="scenario world")


def _permit_seed(tenant: Tenant, permit: Mapping[str, Any], companies: dict[str, Company],
                 employees: dict[str, Employee], types: dict[str, ComponentType],
                 components: dict[str, Mapping[str, Any]]) -> None:
    created = sst_services.permit_create(
        tenant=tenant,
        company=companies[permit["company"]],
        number=permit["number"],
        validity_days=permit.get("validity_days", DEFAULT_VALIDITY_DAYS),
        responsible=employees[permit["responsible"]] if permit.get("responsible") else None,
        component_types=[types[components[fold(name)]["key"]] for name in permit.get("components", [])],
        workers=[employees[name] for name in permit.get("workers", [])],
    )
    _move_to_status(tenant, created.pk, permit.get("status", PermitStatus.DRAFT))


def _move_to_status(tenant: Tenant, permit_id: int, status: str) -> None:
    # Through the lifecycle services, so a seeded status is one the SST system could have reached.
    if status in (PermitStatus.APPROVED, PermitStatus.CLOSED):
        sst_services.permit_approve(tenant=tenant, permit_id=permit_id)
    if status == PermitStatus.CLOSED:
        sst_services.permit_close(tenant=tenant, permit_id=permit_id)
    if status == PermitStatus.CANCELLED:
        sst_services.permit_cancel(tenant=tenant, permit_id=permit_id, reason="scenario world")


def _inspection_seed(tenant: Tenant, inspection: Mapping[str, Any], companies: dict[str, Company],
                     employees: dict[str, Employee], day: date) -> None:
    days = inspection.get("scheduled_in_days", DEFAULT_SCHEDULED_IN_DAYS)
    created = inspection_services.inspection_create(
        tenant=tenant,
        company=companies[inspection["company"]],
        number=inspection["number"],
        site=inspection.get("site", ""),
        scheduled_for=day + timedelta(days=days),
        inspector=employees[inspection["inspector"]] if inspection.get("inspector") else None,
    )
    # Findings first: only a SCHEDULED inspection takes them, as in the SST system itself.
    for finding in inspection.get("findings", []):
        inspection_services.inspection_finding_add(tenant=tenant, inspection_id=created.pk,
                                                   description=finding["description"],
                                                   severity=finding.get("severity", FindingSeverity.MEDIUM))
    status = inspection.get("status", InspectionStatus.SCHEDULED)
    if status == InspectionStatus.DONE:
        inspection_services.inspection_complete(tenant=tenant, inspection_id=created.pk)
    elif status == InspectionStatus.CANCELLED:
        inspection_services.inspection_cancel(tenant=tenant, inspection_id=created.pk, reason="scenario world")


def _documents(world: World) -> list[dict[str, Any]]:
    by_name = {fold(c["name"]): c["key"] for c in world.get("components", [])}
    documents = []
    for number, doc in enumerate(world["knowledge"], start=1):
        document: dict[str, Any] = {"title": doc["title"], "body": doc["body"], "source": f"world-document-{number}"}
        if fold(doc["title"]) in by_name:
            document["semantic_ids"] = [f"component:{by_name[fold(doc['title'])]}"]
        documents.append(document)
    return documents
