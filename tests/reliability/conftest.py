"""The reliability and security suite: shared fixtures and its report of how many cases of each kind ran.

Two tiers. The in-process tests (hostile inputs, cross-tenant and cross-user attacks) run in
`make test`. Tests marked `heavy` (schema fuzzing: over a minute) or `chaos` (they restart or kill
servers, which they start themselves with their own PostgreSQL cluster and Redis on free ports:
tests/reliability/chaos.py) run only with RELIABILITY=1 (`make reliability`, which runs the whole
suite) and are skipped otherwise, so `make test` stays fast and never touches a process it did not
start.

Every test adds its cases to the report with `reliability_cases(kind, n)`; at the end of the
session the counts (and pass/fail per test) are written to tests/artifacts/reliability.md and
printed.

The attack tests share `victim` (a world to attack, its ids and every operation of the OpenAPI
document) and `call`/`fill` (one request, any body, path parameters filled in).
"""

from __future__ import annotations

import os
import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from demo.testcontrol.services import world_facts
from execution.runtime import sessions_close
from sst import checks, inspection_services
from sst.models import Company
from tenancy.models import Tenant

from .worlds import Worlds, worlds_create

ARTIFACT = Path(__file__).resolve().parents[1] / "artifacts" / "reliability.md"
FULL = os.environ.get("RELIABILITY") == "1"

PARAM = re.compile(r"\{([^{}]+)\}")
_cases: Counter[str] = Counter()
_outcomes: dict[str, Counter[str]] = defaultdict(Counter)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "chaos: restarts or kills servers it starts itself (RELIABILITY=1 only)")
    config.addinivalue_line("markers", "heavy: over the `make test` time budget (RELIABILITY=1 only)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/reliability/" not in item.nodeid:
            continue
        if not FULL and ("chaos" in item.keywords or "heavy" in item.keywords):
            item.add_marker(pytest.mark.skip(reason="runs in `make reliability` (RELIABILITY=1)"))


@pytest.fixture
def reliability_cases() -> Callable[[str, int], None]:
    def add(kind: str, n: int = 1) -> None:
        _cases[kind] += n

    return add


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if "tests/reliability/" not in report.nodeid:
        return
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        outcome = "xfailed" if hasattr(report, "wasxfail") else report.outcome
        _outcomes[report.nodeid.split("::")[0].rsplit("/", 1)[-1]][outcome] += 1


def _report() -> str:
    lines = ["# Reliability and security suite", "",
             f"Tier: {'full (RELIABILITY=1)' if FULL else 'fast (chaos tests skipped)'}", "",
             "| kind | cases |", "|---|---|"]
    lines += [f"| {kind} | {n} |" for kind, n in sorted(_cases.items())]
    lines += [f"| **total** | {sum(_cases.values())} |", "", "| module | passed | failed | skipped | xfailed |",
              "|---|---|---|---|---|"]
    for module, counts in sorted(_outcomes.items()):
        lines.append(f"| {module} | {counts['passed']} | {counts['failed']} | {counts['skipped']} | "
                     f"{counts['xfailed']} |")
    return "\n".join(lines) + "\n"


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if not _outcomes:
        return
    text = _report()
    ARTIFACT.parent.mkdir(parents=True, exist_ok=True)
    ARTIFACT.write_text(text, encoding="utf-8")
    terminalreporter.write_sep("=", f"reliability report ({ARTIFACT.relative_to(ARTIFACT.parents[2])})")
    terminalreporter.write_line(text)


@dataclass
class Victim:
    worlds: Worlds
    tenant: Tenant
    other: Tenant
    ids: dict[str, str]
    operations: list[tuple[str, str]]  # (method, path template)


@pytest.fixture
def in_process(settings):
    """Eager Celery, no LLM, no read wait, no rate limit: the victim's world is played in-process."""
    from config.celery import app

    saved = app.conf.task_always_eager
    app.conf.task_always_eager = True
    settings.LLM_BASE_URL = None
    settings.AGENT_READ_WAIT_SECONDS = 0
    settings.AGENT_RATE_USER_PER_MINUTE = 1_000_000
    settings.AGENT_RATE_TENANT_PER_MINUTE = 1_000_000
    sessions_close()
    yield
    sessions_close()
    app.conf.task_always_eager = saved


@pytest.fixture
def victim(db, in_process) -> Victim:
    """A world of two tenants whose operator has a conversation with a finished execution, and the ids
    and operations (from the OpenAPI document) to attack it with."""
    worlds = worlds_create()
    operator = worlds.client("operator")
    tenant = Tenant.objects.get(pk=worlds.created.tenant)
    other = Tenant.objects.get(pk=worlds.created.other_tenant.tenant)
    permit = next(p for p in world_facts(tenant_id=tenant.pk)["permits"] if p["number"] == "123")
    conversation = operator.post("/agent/conversations", {}, format="json").json()["id"]
    ui = {"selection": {"entityType": "workPermit", "entityId": str(permit["id"])}}
    asked = operator.post(f"/agent/conversations/{conversation}/messages",
                          {"text": "Adicione o componente trabalho em altura", "ui_context": ui}, format="json").json()
    assert asked["status"] == "CONFIRMATION_REQUIRED", asked
    done = operator.post(f"/agent/conversations/{conversation}/messages", {"text": "sim"}, format="json").json()
    assert done["response"].get("execution"), done
    employee = operator.get("/api/sst/employees").json()
    component = operator.get("/api/sst/component-types").json()
    ids = {"conversation_id": conversation, "confirmation_id": asked["response"]["confirmation"]["id"],
           "execution_id": done["response"]["execution"]["id"], "id": str(permit["id"]),
           "employee_id": str(_first_id(employee)), "component_id": str(_first_id(component)),
           "finding_id": str(_finding_id(tenant)), "evaluation_id": str(_evaluation_id(tenant, permit["id"]))}
    schema = APIClient().get("/api/schema/?format=json").json()
    operations = [(method.upper(), path) for path, item in schema["paths"].items() for method in item
                  if method in {"get", "post", "put", "patch", "delete"}]
    return Victim(worlds=worlds, tenant=tenant, other=other, ids=ids, operations=operations)


def _finding_id(tenant: Tenant) -> int:
    """A real finding of the victim's tenant, on an inspection whose id is the permit's `{id}` or not."""
    company = Company.objects.filter(tenant=tenant).first()
    inspection = inspection_services.inspection_create(tenant=tenant, company=company, number="9001",
                                                       site="Galpão", scheduled_for=date.today() + timedelta(days=3))
    return inspection_services.inspection_finding_add(tenant=tenant, inspection_id=inspection.pk,
                                                      description="guarda-corpo solto").pk


def _evaluation_id(tenant: Tenant, permit_id: int) -> int:
    """A real evaluation recorded for the victim's permit (what withdrawing one would remove)."""
    findings = checks.Findings(trained=True, risk_level="low", compliant=True)
    return checks.permit_evaluation_record(tenant=tenant, permit_id=permit_id, findings=findings).pk


def _first_id(listing: Any) -> Any:
    items = listing.get("results", listing) if isinstance(listing, dict) else listing
    return items[0]["id"]


def fill(path: str, ids: dict[str, str]) -> str:
    return PARAM.sub(lambda m: ids[m.group(1)], path)


def call(client: APIClient, method: str, path: str, body: Any = None, **extra: Any):
    client.raise_request_exception = False
    send = getattr(client, method.lower())
    if method == "GET":
        return send(path, body or {}, **extra)
    if isinstance(body, bytes):
        return send(path, body, content_type="application/json", **extra)
    return send(path, body if body is not None else {}, format="json", **extra)
