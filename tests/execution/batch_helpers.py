"""A batch world: N draft permits (some flagged by design), and the approved batch plan."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from planning.intents import StructuredIntent
from sst import services as sst
from sst.models import Employee, PermitEvaluation

from .helpers import plan_and_approve


def make_batch_world(tenant, n: int) -> list[int]:
    company = sst.company_create(tenant=tenant, name="Batch Engenharia")
    trained = sst.employee_create(tenant=tenant, company=company, name="Ana Treinada")
    untrained = sst.employee_create(tenant=tenant, company=company, name="Beto Sem Curso")
    Employee.objects.for_tenant(tenant).filter(pk=trained.pk).update(
        training_valid_until=timezone.localdate() + timedelta(days=90))
    height = sst.component_type_create(tenant=tenant, key="workingAtHeight", name="Trabalho em Altura")
    ids = []
    for i in range(n):
        worker = untrained if i % 5 == 0 else trained  # every fifth permit is flagged (training)
        permit = sst.permit_create(tenant=tenant, company=company, number=f"B{i + 1}", validity_days=10,
                                   responsible=trained, component_types=[height], workers=[worker])
        ids.append(permit.pk)
    return ids


def batch_plan(*, tenant, actor, ids, conversation_id=None):
    intent = StructuredIntent(name="workPermit.evaluateBatch", slots={"permit_ids": ids},
                              text="Avalie todas as permissões em rascunho")
    return plan_and_approve(tenant=tenant, actor=actor, intent=intent, conversation_id=conversation_id)


def duplicate_effects(tenant) -> int:
    from django.db.models import Count

    counts = (PermitEvaluation.objects.for_tenant(tenant).values("permit_id").annotate(n=Count("id"))
              .filter(n__gt=1))
    return sum(row["n"] - 1 for row in counts)



@pytest.fixture
def lanes(tenant):
    """The tenant's controller lanes start empty and are forgotten after the test."""
    from execution.control import lanes_clear

    lanes_clear(tenant.pk)
    yield
    lanes_clear(tenant.pk)


def batch_steps(ids, *checks: str, decision: bool = False) -> list[dict]:
    """Batch steps over `ids`: the named checks (training, risk, compliance), then the decision."""
    capability = {"training": "workPermit.checkTraining", "risk": "workPermit.assessRisk",
                  "compliance": "workPermit.checkCompliance"}
    targets = [{"type": "workPermit", "id": i} for i in ids]
    steps = [{"id": c, "capability": capability[c], "input": {"permit_id": "${item.id}"}, "for_each": "${targets}",
              "targets": targets} for c in checks]
    if decision:
        steps.append({"id": "decision", "capability": "workPermit.recordDecision", "depends_on": list(checks),
                      "for_each": "${targets}", "targets": targets, "input": {
                          "permit_id": "${item.id}", "trained": "${item.results.training.trained}",
                          "risk_level": "${item.results.risk.level}",
                          "compliant": "${item.results.compliance.compliant}"}})
    return steps


def start_inline(capture, plan, receipt=None, *, tenant, actor):
    """Start `plan` (approved now unless a receipt is given) and run it inline to its end."""
    from execution.services import execution_start

    from .helpers import approve

    receipt = receipt or approve(plan, actor=actor, tenant=tenant)
    with capture(execute=True):
        execution = execution_start(plan=plan, receipt_id=receipt.pk, actor=actor, tenant=tenant)
    execution.refresh_from_db()
    return execution
