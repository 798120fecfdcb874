"""Fixtures of the scenario harness tests: test control switched on, the clock reset, a sample world."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from tenancy import clock

CONTROL_TOKEN = "control-token-for-tests"  # noqa: S105


@pytest.fixture
def control_on(settings) -> None:
    settings.AGENT_TEST_CONTROL = True
    settings.AGENT_TEST_CONTROL_TOKEN = CONTROL_TOKEN
    settings.SST_FAULT_INJECTION = True
    clock.reset()
    yield
    clock.reset()


@pytest.fixture
def clean_clock():
    yield
    clock.reset()


@pytest.fixture
def control(control_on, db) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_X_TEST_CONTROL_TOKEN=CONTROL_TOKEN)
    return client


def sample_world(**extra: Any) -> dict[str, Any]:
    world: dict[str, Any] = {
        "companies": ["Alfa Construções", "Beta Montagens"],
        "employees": [{"name": "João Silva", "company": "Alfa Construções"},
                      {"name": "Maria Souza", "company": "Alfa Construções"}],
        "components": [{"key": "workingAtHeight", "name": "Trabalho em Altura", "undoable": True},
                       {"key": "hotWork", "name": "Trabalho a Quente"}],
        "permits": [
            {"number": "123", "company": "Alfa Construções", "validity_days": 30, "responsible": "João Silva",
             "components": ["Trabalho em Altura"], "workers": ["Maria Souza"]},
            {"number": "123", "company": "Beta Montagens", "status": "APPROVED"},
        ],
        "knowledge": [{"title": "trabalho em ALTURA", "body": "Regulamentado pela NR-35."}],
    }
    world.update(extra)
    return world


@pytest.fixture
def world_with_other() -> dict[str, Any]:
    return sample_world(other_tenant={"permits": [{"number": "555", "company": "Gama Ltda", "validity_days": 30}]})
