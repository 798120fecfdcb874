"""A small SST world per test: two companies, employees, a component catalog, one permit and one inspection."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from functools import cached_property

import pytest

from sst import checks, inspection_services, services
from sst.clock import today
from sst.models import Company, ComponentType, Employee, Finding, Inspection, PermitEvaluation, WorkPermit
from tenancy.models import Tenant

CATALOG = [
    ("workingAtHeight", "Trabalho em Altura", True),
    ("hotWork", "Trabalho a Quente", True),
    ("confinedSpace", "Espaço Confinado", True),
    ("loadLifting", "Içamento de Carga", False),
]


@dataclass
class World:
    tenant: Tenant
    alfa: Company
    beta: Company
    joao: Employee
    maria: Employee
    types: dict[str, ComponentType]
    permit: WorkPermit
    inspection: Inspection  # "45", SCHEDULED in 7 days, inspector João, one finding (so revision 2)
    finding: Finding

    @cached_property
    def evaluation(self) -> PermitEvaluation:
        """One recorded evaluation of the permit, made when a test first names it: the tests that
        count evaluations start from none."""
        return checks.permit_evaluation_record(tenant=self.tenant, permit_id=self.permit.pk,
                                               findings=checks.Findings(trained=True, risk_level="low",
                                                                        compliant=True))


def build_world(tenant: Tenant) -> World:
    alfa = services.company_create(tenant=tenant, name="Alfa Construções")
    beta = services.company_create(tenant=tenant, name="Beta Montagens")
    joao = services.employee_create(tenant=tenant, company=alfa, name="João Silva")
    maria = services.employee_create(tenant=tenant, company=alfa, name="Maria Souza")
    types = {
        key: services.component_type_create(tenant=tenant, key=key, name=name, undoable=undoable)
        for key, name, undoable in CATALOG
    }
    permit = services.permit_create(
        tenant=tenant, company=alfa, number="123", validity_days=30, responsible=joao,
        component_types=[types["workingAtHeight"]], workers=[maria],
    )
    inspection = inspection_services.inspection_create(
        tenant=tenant, company=alfa, number="45", site="Galpão 3", scheduled_for=today() + timedelta(days=7),
        inspector=joao,
    )
    finding = inspection_services.inspection_finding_add(
        tenant=tenant, inspection_id=inspection.pk, description="Extintor vencido", severity="HIGH")
    return World(tenant, alfa, beta, joao, maria, types, permit, finding.inspection, finding)


@pytest.fixture
def world(tenant) -> World:
    return build_world(tenant)


@pytest.fixture
def other_world(other_tenant) -> World:
    return build_world(other_tenant)
