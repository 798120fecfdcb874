"""Demo seeding of the sample SST system: a "Demo SST" tenant and an isolated "Outra Empresa".

Everything goes through the tenancy and sst services (their rules, constraints and revisions);
nothing is written to a model directly. Idempotent: each item is looked up first and created
only when missing, so a second run changes nothing (no updates, no new ids).

The demo data is chosen so the README's demo script works as written (tests/demo_script plays it):
permit numbers are unique in the tenant, permit 123 lacks "Trabalho em Altura" (the component the
script adds), and every catalog component has a knowledge document (knowledge/corpus/). It also
exercises the agent: two employees called João (clarification), an APPROVED permit (business rules),
a non-undoable component (`loadLifting`), and another tenant holding a permit "123" too (isolation).
Three safety inspections (one with an inspector and a finding) let a newcomer try the second entity;
their dates are counted from the day of the first seeding and never moved afterwards.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import TextIO

from django.contrib.auth import get_user_model
from django.db import transaction

from sst import inspection_selectors, inspection_services
from sst import selectors as sst_selectors
from sst import services as sst_services
from sst.clock import today
from sst.models import Company, ComponentType, Employee, WorkPermit
from tenancy.models import Role, Tenant
from tenancy.selectors import membership_get
from tenancy.services import membership_grant, tenant_create

# A demo password, printed at the end of the seeding; never use the demo users outside a demo.
DEMO_PASSWORD = "demo-sst-2024"  # noqa: S105

CATALOG = [
    ("workingAtHeight", "Trabalho em Altura", True),
    ("hotWork", "Trabalho a Quente", True),
    ("confinedSpace", "Espaço Confinado", True),
    ("electricity", "Eletricidade", True),
    ("excavation", "Escavação", True),
    # Removing a load-lifting plan once added needs a supervisor's review: no automatic undo.
    ("loadLifting", "Içamento de Carga", False),
]


@dataclass(frozen=True)
class PermitSpec:
    number: str
    company: str
    validity_days: int
    responsible: str | None = None
    components: tuple[str, ...] = ()
    workers: tuple[str, ...] = ()
    approved: bool = False


@dataclass(frozen=True)
class InspectionSpec:
    number: str
    company: str
    site: str
    scheduled_in_days: int
    inspector: str | None = None
    findings: tuple[tuple[str, str], ...] = ()  # (description, severity)


@dataclass(frozen=True)
class WorldSpec:
    slug: str
    name: str
    companies: tuple[str, ...]
    employees: tuple[tuple[str, str], ...]  # (name, company)
    permits: tuple[PermitSpec, ...]
    users: tuple[tuple[str, str], ...]  # (username, role)
    catalog: tuple[tuple[str, str, bool], ...] = field(default=tuple(CATALOG))
    inspections: tuple[InspectionSpec, ...] = ()


DEMO = WorldSpec(
    slug="demo",
    name="Demo SST",
    companies=("Alfa Construções", "Beta Montagens"),
    employees=(
        ("João Silva", "Alfa Construções"),
        ("Maria Souza", "Alfa Construções"),
        ("Ana Costa", "Alfa Construções"),
        ("João Pereira", "Beta Montagens"),
        ("Carlos Lima", "Beta Montagens"),
    ),
    permits=(
        PermitSpec("123", "Alfa Construções", 30, "João Silva", ("confinedSpace",), ("Maria Souza",)),
        PermitSpec("124", "Alfa Construções", 15, "Maria Souza", ("hotWork", "electricity"), ("Ana Costa",),
                   approved=True),
        PermitSpec("125", "Alfa Construções", 10, None, (), ()),
        PermitSpec("223", "Beta Montagens", 20, "João Pereira", ("excavation", "loadLifting"), ("Carlos Lima",)),
    ),
    users=(
        ("demo-viewer", Role.VIEWER),
        ("demo-operator", Role.OPERATOR),
        ("demo-supervisor", Role.SUPERVISOR),
        ("demo-admin", Role.ADMIN),
    ),
    inspections=(
        InspectionSpec("31", "Alfa Construções", "Galpão 2", 7, "Ana Costa", (("Extintor sem lacre", "HIGH"),)),
        InspectionSpec("32", "Alfa Construções", "Almoxarifado", 3),
        InspectionSpec("7", "Beta Montagens", "Canteiro Norte", 14),
    ),
)

OTHER = WorldSpec(
    slug="other",
    name="Outra Empresa",
    companies=("Gama Ltda",),
    employees=(("Pedro Alves", "Gama Ltda"),),
    permits=(PermitSpec("123", "Gama Ltda", 30, "Pedro Alves", ("workingAtHeight",)),),
    users=(("other-operator", Role.OPERATOR),),
)


def seed(*, stdout: TextIO | None = None) -> Tenant:
    """Seed both demo tenants; returns the demo tenant for the seeders that follow."""
    out = stdout or io.StringIO()
    with transaction.atomic():
        demo = seed_world(DEMO, stdout=out)
        seed_world(OTHER, stdout=out)
    usernames = ", ".join(name for spec in (DEMO, OTHER) for name, _ in spec.users)
    out.write(f"sst: users {usernames} — password: {DEMO_PASSWORD}\n")
    return demo


def seed_world(spec: WorldSpec, *, stdout: TextIO) -> Tenant:
    tenant = Tenant.objects.filter(slug=spec.slug).first() or tenant_create(slug=spec.slug, name=spec.name)
    companies = {name: _company(tenant, name) for name in spec.companies}
    employees = {name: _employee(tenant, name, companies[company]) for name, company in spec.employees}
    types = {key: _component_type(tenant, key, name, undoable) for key, name, undoable in spec.catalog}
    created = sum(_permit(tenant, permit, companies, employees, types) for permit in spec.permits)
    day = today()
    inspections = sum(_inspection(tenant, inspection, companies, employees, day) for inspection in spec.inspections)
    for username, role in spec.users:
        _user(tenant, username, role)
    stdout.write(f"sst: tenant {spec.name} ({spec.slug}): {len(companies)} companies, {len(employees)} employees, "
                 f"{len(types)} component types, {created} permits and {inspections} inspections created\n")
    return tenant


def _company(tenant: Tenant, name: str) -> Company:
    return sst_selectors.company_get_by_name(tenant=tenant, name=name) or sst_services.company_create(
        tenant=tenant, name=name)


def _employee(tenant: Tenant, name: str, company: Company) -> Employee:
    return sst_selectors.employee_get_by_name(tenant=tenant, name=name, company=company) or (
        sst_services.employee_create(tenant=tenant, company=company, name=name))


def _component_type(tenant: Tenant, key: str, name: str, undoable: bool) -> ComponentType:
    return sst_selectors.component_type_get_by_key(tenant=tenant, key=key) or sst_services.component_type_create(
        tenant=tenant, key=key, name=name, undoable=undoable)


def _permit(tenant: Tenant, spec: PermitSpec, companies: dict[str, Company], employees: dict[str, Employee],
            types: dict[str, ComponentType]) -> bool:
    company = companies[spec.company]
    if sst_selectors.permit_get_by_number(tenant=tenant, company=company, number=spec.number) is not None:
        return False
    permit: WorkPermit = sst_services.permit_create(
        tenant=tenant,
        company=company,
        number=spec.number,
        validity_days=spec.validity_days,
        responsible=employees[spec.responsible] if spec.responsible else None,
        component_types=[types[key] for key in spec.components],
        workers=[employees[name] for name in spec.workers],
    )
    if spec.approved:
        sst_services.permit_approve(tenant=tenant, permit_id=permit.pk)
    return True


def _inspection(tenant: Tenant, spec: InspectionSpec, companies: dict[str, Company],
                employees: dict[str, Employee], day: date) -> bool:
    company = companies[spec.company]
    if inspection_selectors.inspection_get_by_number(tenant=tenant, company=company, number=spec.number) is not None:
        return False
    inspection = inspection_services.inspection_create(
        tenant=tenant, company=company, number=spec.number, site=spec.site,
        scheduled_for=day + timedelta(days=spec.scheduled_in_days),
        inspector=employees[spec.inspector] if spec.inspector else None,
    )
    for description, severity in spec.findings:
        inspection_services.inspection_finding_add(tenant=tenant, inspection_id=inspection.pk,
                                                   description=description, severity=severity)
    return True


def _user(tenant: Tenant, username: str, role: str) -> None:
    user_model = get_user_model()
    user = user_model.objects.filter(username=username).first()
    if user is None:
        is_admin = role == Role.ADMIN
        # The admin user also runs /admin/ (capability approval, kill switches, receipts).
        user = user_model.objects.create_user(username=username, password=DEMO_PASSWORD,
                                              is_staff=is_admin, is_superuser=is_admin)
    if membership_get(user=user, tenant_id=tenant.pk) is None:
        membership_grant(user=user, tenant=tenant, role=role)
