"""A scenario world for the suite (two tenants, three roles each) built by the test-control service."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rest_framework.test import APIClient

from demo.testcontrol.services import CreatedWorld, world_create

WORLD: dict[str, Any] = {
    "companies": ["Alfa Construções"],
    "employees": [{"name": "João Silva", "company": "Alfa Construções"}],
    "components": [{"key": "workingAtHeight", "name": "Trabalho em Altura", "undoable": True},
                   {"key": "hotWork", "name": "Trabalho a Quente", "undoable": True}],
    "permits": [{"number": "123", "company": "Alfa Construções", "validity_days": 30, "responsible": "João Silva",
                 "components": []},
                {"number": "124", "company": "Alfa Construções", "validity_days": 10, "components": []}],
    "knowledge": [{"title": "Trabalho em Altura", "body": "Atividade acima de 2 metros; NR-35."}],
}
WORLD_WITH_OTHER = {**WORLD, "other_tenant": {
    "companies": ["Beta Montagens"],
    "components": [{"key": "workingAtHeight", "name": "Trabalho em Altura", "undoable": True}],
    "permits": [{"number": "900", "company": "Beta Montagens", "validity_days": 5, "components": []}],
}}


@dataclass(frozen=True)
class Worlds:
    created: CreatedWorld

    def token(self, role: str = "operator", *, other: bool = False) -> str:
        users = self.created.other_tenant.users if other else self.created.users
        return users[role]["token"]

    def client(self, role: str = "operator", *, other: bool = False) -> APIClient:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {self.token(role, other=other)}")
        return client


def worlds_create() -> Worlds:
    return Worlds(created=world_create(world=WORLD_WITH_OTHER))
