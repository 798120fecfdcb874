"""Cross-app helpers for execution tests: an SST world, a plan approved the way the conversation
runtime will approve it (policy decision → confirmation → ALLOW receipt), and waiting for a settle."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass

from django.utils import timezone

from planning.intents import StructuredIntent, TargetRef
from planning.selectors import plan_policy_steps
from planning.services import plan_from_intent
from policy.services import Approval, decision_record, receipt_issue
from sst import services as sst
from sst.models import WorkPermit


@dataclass
class World:
    tenant: object
    company: object
    joao: object
    permit: WorkPermit


def make_world(tenant) -> World:
    company = sst.company_create(tenant=tenant, name="Alfa Engenharia")
    joao = sst.employee_create(tenant=tenant, company=company, name="João Silva")
    maria = sst.employee_create(tenant=tenant, company=company, name="Maria Souza")
    catalog = {key: sst.component_type_create(tenant=tenant, key=key, name=name) for key, name in [
        ("workingAtHeight", "Trabalho em Altura"), ("hotWork", "Trabalho a Quente"),
        ("confinedSpace", "Espaço Confinado"), ("electricity", "Eletricidade"), ("excavation", "Escavação"),
        ("loadLifting", "Içamento de Carga")]}
    permit = sst.permit_create(tenant=tenant, company=company, number="123", validity_days=15, responsible=maria,
                               component_types=[catalog["workingAtHeight"], catalog["hotWork"]])
    return World(tenant=tenant, company=company, joao=joao, permit=permit)


def permit_target(permit: WorkPermit) -> TargetRef:
    permit.refresh_from_db()
    return TargetRef(type="workPermit", id=permit.pk, revision=permit.revision, label=permit.number)


def facts_for(plan, tenant) -> dict:
    facts = {}
    for step in plan_policy_steps(plan=plan):
        for target in step["targets"]:
            permit = WorkPermit.objects.for_tenant(tenant).filter(pk=target["id"]).first()
            facts[f"workPermit:{target['id']}"] = (
                {"tenant": str(tenant.pk), "status": permit.status, "revision": permit.revision}
                if permit else {"tenant": str(tenant.pk), "exists": False})
    return facts


def approve(plan, *, actor, tenant):
    """The receipt the conversation runtime obtains: PLANNING decision, then (if asked) a confirmation."""
    steps, facts = plan_policy_steps(plan=plan), facts_for(plan, tenant)
    decision, receipt = decision_record(actor=actor, tenant=tenant, plan_id=plan.pk, plan_hash=plan.canonical_hash,
                                        steps=steps, facts=facts)
    if decision.outcome == "ALLOW":
        return receipt
    assert decision.outcome == "REQUIRE_CONFIRMATION", decision.codes
    approval = Approval(confirmation_id=uuid.uuid4(), plan_id=plan.pk, plan_hash=plan.canonical_hash,
                        level=decision.level, approved_by=actor.pk, approved_at=timezone.now())
    receipt = receipt_issue(actor=actor, tenant=tenant, plan_id=plan.pk, plan_hash=plan.canonical_hash, steps=steps,
                            facts=facts, approval=approval)
    assert receipt.decision == "ALLOW", receipt.reasons
    return receipt


def plan_and_approve(*, tenant, actor, intent: StructuredIntent, conversation_id=None):
    plan = plan_from_intent(tenant=tenant, actor=actor, intent=intent, conversation_id=conversation_id)
    return plan, approve(plan, actor=actor, tenant=tenant)


def wait_settled(execution, timeout_s: float = 20.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        execution.refresh_from_db()
        if execution.finished_at is not None:
            return execution
        time.sleep(0.05)
    raise AssertionError(f"execution {execution.pk} did not settle: {execution.status}")
