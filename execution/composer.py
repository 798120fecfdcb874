"""The result composer (PRD-006 §29): an execution's outcome as a structured result and as a
templated reply in pt-BR or English ("Permissão 124 criada. Responsável: João. Validade: 30 dias.
6 componentes copiados."). Templates only — no LLM — so a reply never waits for a model.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planning.models import PlanStep
from registry.selectors import registry_snapshot

from .envelope import CIRCUIT_OPEN, breaker_wait_s
from .messages import text, when_text
from .models import Execution, ExecutionStatus, StepRun, StepStatus


def _rows(execution: Execution) -> list[tuple[PlanStep, StepRun]]:
    steps = {s.step_id: s for s in PlanStep.objects.for_tenant(execution.tenant_id).filter(plan=execution.plan_id)}
    runs = StepRun.objects.for_tenant(execution.tenant_id).filter(execution=execution).order_by("position")
    return [(steps[r.step_id], r) for r in runs]


def _last(rows, capability: str, *, for_each: bool | None = None) -> tuple[PlanStep, StepRun] | None:
    found = [(s, r) for s, r in rows if s.capability_id == capability and r.status == StepStatus.COMPLETED
             and (for_each is None or bool(s.for_each) == for_each)]
    return found[-1] if found else None


def execution_result(execution: Execution) -> dict[str, Any]:
    """Structured outcome: created entity, navigation instruction, counts, per-step statuses."""
    rows = _rows(execution)
    created = _last(rows, "workPermit.create")
    navigation = next((r.result for s, r in reversed(rows) if s.kind == "navigation"
                       and r.status == StepStatus.COMPLETED), None)
    adds = [(s, r) for s, r in rows if s.capability_id == "workPermit.components.add" and not s.for_each]
    copy = next((r for s, r in rows if s.for_each and r.status == StepStatus.COMPLETED), None)
    final = next((r.result for s, r in reversed(rows) if r.status == StepStatus.COMPLETED
                  and isinstance(r.result, Mapping) and "validity_days" in r.result), None)
    created_body = created[1].result if created else None
    return {
        "status": execution.status,
        "created": ({"type": "workPermit", "id": created_body.get("id"), "label": created_body.get("number")}
                    if isinstance(created_body, Mapping) else None),
        "navigation": navigation,
        "permit": final,
        "counts": {
            "steps": len(rows),
            "completed": sum(r.status == StepStatus.COMPLETED for _, r in rows),
            "failed": sum(r.status in (StepStatus.FAILED, StepStatus.UNKNOWN) for _, r in rows),
            "skipped": sum(r.status == StepStatus.SKIPPED for _, r in rows),
            "components_added": sum(r.status == StepStatus.COMPLETED for _, r in adds),
            "components_copied": (copy.result or {}).get("count") if copy else None,
        },
        "failed_components": [s.input.get("component") for s, r in adds
                              if r.status in (StepStatus.FAILED, StepStatus.UNKNOWN)],
        "skipped_by_condition": [s.label for s, r in rows if r.status == StepStatus.SKIPPED
                                 and (r.result or {}).get("condition") is False],
        "error": execution.error,
    }


_UNAVAILABLE = frozenset({"TIMEOUT", "RATE_LIMIT", "TEMPORARY_UNAVAILABLE", "NETWORK", "SERVER_ERROR"})


def _failure_reason(execution: Execution, language: str) -> str:
    """Why the execution failed, in words: the failed step as the plan names it and what kind of
    refusal it met — never a step id or an error code (those are in the timeline and the logs)."""
    error = execution.error or {}
    step_error = error.get("step_error") or {}
    code = error.get("code") or "UNKNOWN"
    label = _step_label(execution, error.get("step_id"), language)
    if code in ("CONFLICT", "KILL_SWITCH", "VERIFICATION_FAILED"):
        return text(language, f"error.{code}")
    if code == "STEP_UNKNOWN":
        return text(language, "error.UNKNOWN", label=label)
    if step_error.get("policy"):
        return text(language, "error.POLICY", label=label)
    if step_error.get("code") == CIRCUIT_OPEN:  # refused without a call: say when it may work again
        return text(language, "error.CIRCUIT_OPEN", label=label,
                    when=when_text(_breaker_wait(execution, error.get("step_id")), language))
    kind = str(step_error.get("class") or "")
    why = "UNAVAILABLE" if kind in _UNAVAILABLE else kind if kind in _WHY else "OTHER"
    return text(language, "error.GENERIC", label=label, why=text(language, f"why.{why}"))


_WHY = frozenset({"VALIDATION", "BUSINESS_RULE", "NOT_FOUND", "FORBIDDEN", "UNAUTHORIZED", "CONFLICT"})


def _breaker_wait(execution: Execution, step_id: Any) -> float | None:
    """Seconds until the failed step's capability may reach its resource again (its lanes' breakers)."""
    step = PlanStep.objects.for_tenant(execution.tenant_id).filter(plan=execution.plan_id, step_id=step_id).first()
    spec = registry_snapshot().get(step.capability_id) if step is not None else None
    return breaker_wait_s(execution.tenant_id, spec) if spec is not None and spec.resource else None



def _step_label(execution: Execution, step_id: Any, language: str) -> str:
    """The failed step as the plan words it (its label, else its capability's description)."""
    step = PlanStep.objects.for_tenant(execution.tenant_id).filter(plan=execution.plan_id, step_id=step_id).first()
    label = (step.label if step is not None and isinstance(step.label, Mapping) else None) or {}
    return str(label.get(language) or label.get("pt-BR") or text(language, "step.unnamed"))


def compose(execution: Execution, language: str = "pt-BR") -> str:
    language = language if language in ("pt-BR", "en") else "pt-BR"
    if execution.status == ExecutionStatus.CANCELLED:
        return text(language, "result.cancelled")
    if execution.status == ExecutionStatus.COMPENSATED:
        return " ".join([text(language, "result.failed", reason=_failure_reason(execution, language)),
                         text(language, "result.compensated")])
    if execution.status == ExecutionStatus.FAILED:
        return text(language, "result.failed", reason=_failure_reason(execution, language))
    return " ".join(_success_parts(execution_result(execution), language)) or text(language, "result.completed")


def _success_parts(result: dict[str, Any], language: str) -> list[str]:
    parts: list[str] = []
    permit, counts = result["permit"] or {}, result["counts"]
    responsible = (permit.get("responsible") or {}).get("name") if isinstance(permit, Mapping) else None
    if result["created"]:
        parts.append(text(language, "result.created", number=result["created"]["label"]))
        if responsible:
            parts.append(text(language, "result.responsible", name=responsible))
        if permit.get("validity_days"):
            parts.append(text(language, "result.validity", days=permit["validity_days"]))
        if counts["components_copied"] is not None:
            parts.append(text(language, "result.components_copied", count=counts["components_copied"]))
    if counts["components_added"]:
        parts.append(text(language, "result.components_added", count=counts["components_added"]))
    if result["failed_components"]:
        parts.append(text(language, "result.components_failed", names=", ".join(map(str, result["failed_components"]))))
    for label in result["skipped_by_condition"]:
        parts.append(text(language, "result.skipped_condition", label=label.get(language) or label.get("pt-BR")))
    if result["navigation"]:
        entity = result["navigation"].get("entity") or {}
        parts.append(text(language, "result.navigation", label=entity.get("label") or entity.get("id")))
    if not parts and permit:
        parts.append(text(language, "result.read", number=permit.get("number"), status=permit.get("status"),
                          days=permit.get("validity_days")))
    return parts
