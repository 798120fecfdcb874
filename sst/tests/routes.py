"""The SST route table, once, for tests parametrized over every endpoint."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from tenancy.models import Role

from .conftest import World


@dataclass(frozen=True)
class Route:
    name: str
    method: str
    # formatted with permit, component, employee, worker, alfa, inspection, finding, evaluation (ids of a World)
    path: str
    body: dict[str, Any] | None
    role: str  # the least role allowed


# A date every test may schedule an inspection for (never in the past while the suite runs).
FUTURE = (date.today() + timedelta(days=30)).isoformat()

ROUTES = [
    Route("company-list", "get", "/companies", None, Role.VIEWER),
    Route("componenttype-list", "get", "/component-types", None, Role.VIEWER),
    Route("employee-list", "get", "/employees", None, Role.VIEWER),
    Route("employee-count", "get", "/employees/count", None, Role.VIEWER),
    Route("employee-detail", "get", "/employees/{employee}", None, Role.VIEWER),
    Route("permit-list", "get", "/permits", None, Role.VIEWER),
    Route("permit-list", "post", "/permits", {"company": "{alfa}", "validity_days": 5}, Role.OPERATOR),
    Route("permit-count", "get", "/permits/count", None, Role.VIEWER),
    Route("permit-detail", "get", "/permits/{permit}", None, Role.VIEWER),
    Route("permit-detail", "patch", "/permits/{permit}", {"number": "777"}, Role.OPERATOR),
    Route("permit-detail", "delete", "/permits/{permit}", None, Role.SUPERVISOR),
    Route("permit-validity", "post", "/permits/{permit}/validity", {"validity_days": 9}, Role.OPERATOR),
    Route("permit-approve", "post", "/permits/{permit}/approve", {}, Role.SUPERVISOR),
    Route("permit-cancel", "post", "/permits/{permit}/cancel", {}, Role.SUPERVISOR),
    Route("permit-components", "get", "/permits/{permit}/components", None, Role.VIEWER),
    Route("permit-components", "post", "/permits/{permit}/components", {"component": "hotWork"}, Role.OPERATOR),
    Route("permit-component-detail", "patch", "/permits/{permit}/components/{component}", {"notes": "n"},
          Role.OPERATOR),
    Route("permit-component-detail", "delete", "/permits/{permit}/components/{component}", None, Role.OPERATOR),
    Route("permit-workers", "get", "/permits/{permit}/workers", None, Role.VIEWER),
    Route("permit-workers", "post", "/permits/{permit}/workers", {"employee": "{employee}"}, Role.OPERATOR),
    Route("permit-worker-detail", "delete", "/permits/{permit}/workers/{worker}", None, Role.OPERATOR),
    Route("permit-training", "get", "/permits/{permit}/checks/training", None, Role.VIEWER),
    Route("permit-risk", "get", "/permits/{permit}/checks/risk", None, Role.VIEWER),
    Route("permit-compliance", "get", "/permits/{permit}/checks/compliance", None, Role.VIEWER),
    Route("permit-compliance-secondary", "get", "/secondary/permits/{permit}/checks/compliance", None, Role.VIEWER),
    Route("permit-evaluations", "get", "/permits/{permit}/evaluations", None, Role.VIEWER),
    Route("permit-evaluations", "post", "/permits/{permit}/evaluations",
          {"trained": True, "risk_level": "low", "compliant": True}, Role.OPERATOR),
    Route("permit-evaluation-detail", "delete", "/permits/{permit}/evaluations/{evaluation}", None, Role.OPERATOR),
    Route("inspection-list", "get", "/inspections", None, Role.VIEWER),
    Route("inspection-list", "post", "/inspections", {"company": "{alfa}", "site": "Pátio", "scheduled_for": FUTURE},
          Role.OPERATOR),
    Route("inspection-count", "get", "/inspections/count", None, Role.VIEWER),
    Route("inspection-detail", "get", "/inspections/{inspection}", None, Role.VIEWER),
    Route("inspection-reschedule", "post", "/inspections/{inspection}/reschedule", {"scheduled_for": FUTURE},
          Role.OPERATOR),
    Route("inspection-inspector", "post", "/inspections/{inspection}/inspector", {"inspector": "{employee}"},
          Role.OPERATOR),
    Route("inspection-complete", "post", "/inspections/{inspection}/complete", {}, Role.SUPERVISOR),
    Route("inspection-cancel", "post", "/inspections/{inspection}/cancel", {"reason": "chuva"}, Role.SUPERVISOR),
    Route("inspection-findings", "get", "/inspections/{inspection}/findings", None, Role.VIEWER),
    Route("inspection-findings", "post", "/inspections/{inspection}/findings", {"description": "Piso escorregadio"},
          Role.OPERATOR),
    Route("inspection-finding-detail", "delete", "/inspections/{inspection}/findings/{finding}", None,
          Role.OPERATOR),
]

# Routes that address one object by id in the URL: another tenant's id must be a 404 there.
OBJECT_ROUTES = [r for r in ROUTES if "{" in r.path]


def ids_of(world: World, *, employee: int | None = None) -> dict[str, int]:
    return {
        "permit": world.permit.pk,
        "component": world.permit.components.get().pk,
        "employee": employee or world.joao.pk,
        "worker": world.maria.pk,
        "alfa": world.alfa.pk,
        "inspection": world.inspection.pk,
        "finding": world.finding.pk,
        "evaluation": world.evaluation.pk,
    }


def fill(route: Route, ids: dict[str, int], body_ids: dict[str, int] | None = None) -> tuple[str, Any]:
    """(path, body) of a call; `body_ids` (default `ids`) fill the body's references."""
    body_ids = body_ids or ids
    body = None
    if route.body is not None:
        body = {k: body_ids[v[1:-1]] if isinstance(v, str) and v.startswith("{") else v for k, v in route.body.items()}
    return route.path.format(**ids), body
