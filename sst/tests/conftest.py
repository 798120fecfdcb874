"""A small SST world per test: two companies, employees, a component catalog and one permit."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from sst import services
from sst.models import Company, ComponentType, Employee, WorkPermit
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
    return World(tenant, alfa, beta, joao, maria, types, permit)


@pytest.fixture
def world(tenant) -> World:
    return build_world(tenant)


@pytest.fixture
def other_world(other_tenant) -> World:
    return build_world(other_tenant)
