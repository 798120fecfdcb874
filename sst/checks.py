"""Per-permit checks for batch evaluation (PRD-034 §110): training, risk, compliance, decision.

Training: every worker of the permit holds a valid training (`Employee.training_valid_until`).
Risk: a score from the permit's components and validity, with plain thresholds.
Compliance: the "external" check (responsible set, workers present, validity within 90 days). It is
served twice — the primary route and a secondary one (`permit-compliance-secondary`), registered as a
fallback resource — so the runtime can switch when fault injection slows or breaks the primary.
Decision: approve when trained, not high risk and compliant; otherwise flag with the reasons. It is
recorded as a PermitEvaluation and does not touch the permit (no revision bump); withdrawing one
(the undo of recording it) deletes that row only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from tenancy.models import Tenant

from .errors import ObjectNotFound, RevisionMismatch
from .models import EvaluationOutcome, PermitEvaluation, WorkPermit
from .selectors import permit_get

RISK_WEIGHTS: dict[str, int] = {"hotWork": 3, "confinedSpace": 3, "workingAtHeight": 2, "electricity": 2,
                                "excavation": 2, "loadLifting": 2}
RISK_HIGH, RISK_MEDIUM = 5, 2
LONG_VALIDITY_DAYS = 30
MAX_COMPLIANT_VALIDITY_DAYS = 90


def training_check(*, tenant: Tenant, permit_id: int) -> dict[str, Any]:
    permit = permit_get(tenant=tenant, permit_id=permit_id)
    today = timezone.localdate()
    workers = [w.employee for w in permit.workers.all()]
    untrained = [{"id": e.pk, "name": e.name} for e in workers
                 if e.training_valid_until is None or e.training_valid_until < today]
    return {"permit_id": permit.pk, "trained": bool(workers) and not untrained, "workers": len(workers),
            "untrained": untrained}


def risk_assessment(*, tenant: Tenant, permit_id: int) -> dict[str, Any]:
    permit = permit_get(tenant=tenant, permit_id=permit_id)
    factors = [c.component_type.key for c in permit.components.all() if c.component_type.key in RISK_WEIGHTS]
    score = sum(RISK_WEIGHTS[key] for key in factors) + (1 if permit.validity_days > LONG_VALIDITY_DAYS else 0)
    level = "high" if score >= RISK_HIGH else "medium" if score >= RISK_MEDIUM else "low"
    return {"permit_id": permit.pk, "level": level, "score": score, "factors": factors}


def compliance_check(*, tenant: Tenant, permit_id: int, source: str) -> dict[str, Any]:
    permit = permit_get(tenant=tenant, permit_id=permit_id)
    issues = []
    if permit.responsible_id is None:
        issues.append("NO_RESPONSIBLE")
    if not permit.workers.all():
        issues.append("NO_WORKERS")
    if permit.validity_days > MAX_COMPLIANT_VALIDITY_DAYS:
        issues.append("VALIDITY_TOO_LONG")
    return {"permit_id": permit.pk, "compliant": not issues, "issues": issues, "source": source}


@dataclass(frozen=True)
class Findings:
    trained: bool
    risk_level: str
    compliant: bool


def decision_for(findings: Findings) -> tuple[str, list[str]]:
    reasons = []
    if not findings.trained:
        reasons.append("TRAINING_MISSING")
    if findings.risk_level == "high":
        reasons.append("RISK_HIGH")
    if not findings.compliant:
        reasons.append("NOT_COMPLIANT")
    return (EvaluationOutcome.FLAG if reasons else EvaluationOutcome.APPROVE), reasons


def _permit_locked(tenant: Tenant, permit_id: int, expected_revision: int | None) -> None:
    """Lock the permit's row (its evaluations change under it, one writer at a time) and check If-Match;
    the revision is not bumped: an evaluation is not part of the permit."""
    revision = (WorkPermit.objects.for_tenant(tenant).select_for_update().filter(pk=permit_id)
                .values_list("revision", flat=True).first())
    if revision is None:
        raise ObjectNotFound(permit=permit_id)
    if expected_revision is not None and expected_revision != revision:
        raise RevisionMismatch(current=revision)


def permit_evaluation_record(*, tenant: Tenant, permit_id: int, findings: Findings,
                             expected_revision: int | None = None) -> PermitEvaluation:
    """Record the decision about the permit as it is now (row locked; If-Match checked, revision kept)."""
    with transaction.atomic():
        _permit_locked(tenant, permit_id, expected_revision)
        outcome, reasons = decision_for(findings)
        return PermitEvaluation.objects.create(
            tenant=tenant, permit_id=permit_id, outcome=outcome, reasons=reasons,
            checks={"trained": findings.trained, "risk_level": findings.risk_level, "compliant": findings.compliant})


def permit_evaluation_withdraw(*, tenant: Tenant, permit_id: int, evaluation_id: int,
                               expected_revision: int | None = None) -> PermitEvaluation:
    """Withdraw one recorded decision (the undo of recording it); returns it as it was. Looked up
    under its permit, so another permit's evaluation id is a 404; the permit's revision is kept."""
    with transaction.atomic():
        _permit_locked(tenant, permit_id, expected_revision)
        evaluation = PermitEvaluation.objects.for_tenant(tenant).filter(permit_id=permit_id, pk=evaluation_id).first()
        if evaluation is None:
            raise ObjectNotFound(evaluation=evaluation_id)
        PermitEvaluation.objects.for_tenant(tenant).filter(pk=evaluation.pk).delete()
        return evaluation


def permit_evaluation_list(*, tenant: Tenant, permit_id: int) -> list[PermitEvaluation]:
    permit_get(tenant=tenant, permit_id=permit_id)
    return list(PermitEvaluation.objects.for_tenant(tenant).filter(permit_id=permit_id).order_by("id"))
