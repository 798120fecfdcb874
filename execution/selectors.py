"""Reads of executions, and the full trace `GET /agent/executions/{id}` answers (PRD-010 §52, PRD-006 §32-§33).

The trace follows one operation from the user's message to the response, every id on the way
(conversation, operation, intent, plan, execution, receipt): message → intent → capabilities →
policy (the planning decision, the receipt the execution runs under, the check before each step)
→ plan → steps (attempts, calls, latency, errors, verification, compensation) → timeline with
labels → response. It only reads: tables of this app, the plan, the policy receipts and the
conversation's events (all below execution in the dependency direction, all tenant-scoped).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from django.db.models import Q

from events.models import ConversationEvent
from planning.models import ExecutionPlan, PlanStep
from policy.models import PolicyReceipt, ReceiptCheck
from tenancy.models import Tenant

from .composer import compose, execution_result
from .models import Execution, RuntimeExecution, StepRun, TimelineEntry
from .rows import plan_steps_cached

# Timeline entry type → its label (pt-BR, en); a step's entries add the step's own label.
TIMELINE_LABELS: dict[str, tuple[str, str]] = {
    "PLAN_CREATED": ("Plano criado", "Plan created"),
    "PLAN_VALIDATED": ("Plano validado", "Plan validated"),
    "CONFIRMATION_RECEIVED": ("Confirmação recebida", "Confirmation received"),
    "EXECUTION_STARTED": ("Execução iniciada", "Execution started"),
    "STEP_STARTED": ("Etapa iniciada", "Step started"),
    "STEP_COMPLETED": ("Etapa concluída", "Step completed"),
    "STEP_FAILED": ("Etapa falhou", "Step failed"),
    "STEP_SKIPPED": ("Etapa não executada", "Step skipped"),
    "STEP_UNKNOWN": ("Resultado da etapa desconhecido", "Step outcome unknown"),
    "RETRY_SCHEDULED": ("Nova tentativa agendada", "Retry scheduled"),
    "VERIFICATION_STARTED": ("Verificação iniciada", "Verification started"),
    "VERIFICATION_COMPLETED": ("Verificação concluída", "Verification completed"),
    "VERIFICATION_FAILED": ("Verificação falhou", "Verification failed"),
    "COMPENSATION_STARTED": ("Compensação iniciada", "Compensation started"),
    "COMPENSATION_COMPLETED": ("Compensação concluída", "Compensation completed"),
    "COMPENSATION_FAILED": ("Compensação falhou", "Compensation failed"),
    "EXECUTION_COMPLETED": ("Execução concluída", "Execution completed"),
    "EXECUTION_PARTIALLY_COMPLETED": ("Execução concluída em parte", "Execution partially completed"),
    "EXECUTION_FAILED": ("Execução falhou", "Execution failed"),
    "EXECUTION_CANCELLED": ("Execução cancelada", "Execution cancelled"),
    "EXECUTION_COMPENSATED": ("Execução desfeita por compensação", "Execution compensated"),
    "EXECUTION_RESUMED": ("Execução retomada", "Execution resumed"),
    "EXECUTION_THROTTLED": ("Execução desacelerada", "Execution throttled"),
    "EXECUTION_PAUSED": ("Execução pausada", "Execution paused"),
    "EXECUTION_TERMINATED": ("Execução encerrada", "Execution terminated"),
    "EXECUTION_STALLED": ("Execução sem sinal de vida", "Execution stalled"),
    "RESOURCE_SWITCHED": ("Recurso alternativo em uso", "Resource switched"),
    "BATCH_ADJUSTED": ("Lote ajustado", "Batch adjusted"),
    "CIRCUIT_OPENED": ("Circuito aberto", "Circuit opened"),
    "REPLAN_REQUESTED": ("Replanejamento solicitado", "Replan requested"),
    "CHECKPOINT": ("Ponto de controle", "Checkpoint"),
}
_VERIFICATION = ("VERIFICATION_STARTED", "VERIFICATION_COMPLETED", "VERIFICATION_FAILED")


def execution_get(*, tenant: Tenant, execution_id: Any) -> Execution | None:
    """The execution in this tenant; another tenant's is the same None as a missing one."""
    try:
        return Execution.objects.for_tenant(tenant).select_related("plan").filter(pk=execution_id).first()
    except (ValueError, TypeError):
        return None


def execution_detail(*, execution: Execution) -> dict[str, Any]:
    """Steps and timeline: what the conversation's completion hook reads on every settle (kept lean)."""
    tenant_id = execution.tenant_id
    steps = plan_steps_cached(tenant_id, execution.plan_id)  # a plan's steps never change once stored
    runs = StepRun.objects.for_tenant(tenant_id).filter(execution=execution).order_by("position")
    timeline = TimelineEntry.objects.for_tenant(tenant_id).filter(execution=execution).order_by("id")
    return {
        "id": str(execution.pk), "plan_id": str(execution.plan_id), "status": execution.status,
        "needs_review": execution.needs_review, "error": execution.error, "started_at": execution.started_at,
        "finished_at": execution.finished_at, "retry_budget": execution.retry_budget,
        "plan": {"template": execution.plan.template, "risk": execution.plan.risk,
                 "hash": execution.plan.canonical_hash, "allow_partial": execution.plan.allow_partial},
        "steps": [{"id": r.step_id, "capability": steps[r.step_id].capability_id,
                   "version": steps[r.step_id].capability_version, "depends_on": steps[r.step_id].depends_on,
                   "label": steps[r.step_id].label, "input": steps[r.step_id].input, "status": r.status,
                   "attempts": r.attempts, "calls": r.calls,
                   "result": r.result, "error": r.error, "compensation": r.compensation,
                   "started_at": r.started_at, "finished_at": r.finished_at} for r in runs],
        "timeline": [{"at": e.at, "type": e.type, "step_id": e.step_id or None, "data": e.data} for e in timeline],
    }


def execution_trace(*, execution: Execution) -> dict[str, Any]:
    """The full trace of one execution (see the module docstring); every read scoped to its tenant."""
    tenant_id, plan = execution.tenant_id, execution.plan
    plan_steps = {s.step_id: s for s in PlanStep.objects.for_tenant(tenant_id).filter(plan=plan)}
    runs = list(StepRun.objects.for_tenant(tenant_id).filter(execution=execution).order_by("position"))
    timeline = list(TimelineEntry.objects.for_tenant(tenant_id).filter(execution=execution).order_by("id"))
    receipts = list(PolicyReceipt.objects.for_tenant(tenant_id).filter(plan_id=plan.pk).order_by("issued_at"))
    checks = list(ReceiptCheck.objects.for_tenant(tenant_id).filter(
        receipt_id=execution.receipt_id, execution_id=str(execution.pk)).order_by("checked_at", "id"))
    conversation = _conversation_trace(execution, plan)
    by_step = _group(timeline)
    runtime = RuntimeExecution.objects.for_tenant(tenant_id).filter(execution=execution).first()
    return {
        "id": str(execution.pk), "plan_id": str(plan.pk), "conversation_id": _str(execution.conversation_id),
        "operation_id": conversation["operation_id"], "intent_id": str(plan.intent_id),
        "receipt_id": str(execution.receipt_id), "tenant_id": str(tenant_id), "actor_id": str(execution.actor_id),
        "language": execution.language, "status": execution.status, "needs_review": execution.needs_review,
        "error": execution.error, "started_at": execution.started_at, "finished_at": execution.finished_at,
        "retry_budget": execution.retry_budget,
        "message": conversation["message"], "intent": plan.intent,
        "capabilities": _capabilities(plan_steps.values()),
        "policy": _policy(receipts, execution),
        "confirmation": _confirmation(receipts, execution),
        "plan": _plan(plan),
        "steps": [_step(run, plan_steps[run.step_id], by_step.get(run.step_id, []),
                        [c for c in checks if c.step_id == run.step_id]) for run in runs],
        "verification": [_entry(e, plan_steps) for e in timeline if e.type in _VERIFICATION],
        "compensation": _compensation(runs, timeline, plan_steps),
        "timeline": [_entry(e, plan_steps) for e in timeline],
        "conversation_events": conversation["events"],
        "runtime": _runtime(runtime),
        "response": _response(execution),
    }


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


def _group(timeline: Iterable[TimelineEntry]) -> dict[str, list[TimelineEntry]]:
    grouped: dict[str, list[TimelineEntry]] = defaultdict(list)
    for entry in timeline:
        if entry.step_id:
            grouped[entry.step_id].append(entry)
    return grouped


def _label(entry_type: str, step: PlanStep | None) -> dict[str, str]:
    pt, en = TIMELINE_LABELS.get(entry_type) or ((entry_type.replace("_", " ").capitalize(),) * 2)
    if step is None:
        return {"pt-BR": pt, "en": en}
    name = step.label if isinstance(step.label, Mapping) else {}
    # Step labels are progress phrases ("Adicionando…"); the ellipsis does not belong in a log line.
    return {"pt-BR": f"{pt}: {str(name.get('pt-BR') or step.step_id).rstrip('…')}",
            "en": f"{en}: {str(name.get('en') or step.step_id).rstrip('…')}"}


def _entry(entry: TimelineEntry, plan_steps: Mapping[str, PlanStep]) -> dict[str, Any]:
    return {"at": entry.at, "type": entry.type, "step_id": entry.step_id or None, "data": entry.data,
            "label": _label(entry.type, plan_steps.get(entry.step_id) if entry.step_id else None)}


def _capabilities(steps: Iterable[PlanStep]) -> list[dict[str, Any]]:
    seen: dict[tuple[str, int], dict[str, Any]] = {}
    for step in sorted(steps, key=lambda s: s.position):
        seen.setdefault((step.capability_id, step.capability_version), {
            "id": step.capability_id, "version": step.capability_version, "kind": step.kind, "risk": step.risk})
    return list(seen.values())


def _receipt(receipt: PolicyReceipt) -> dict[str, Any]:
    return {"id": str(receipt.pk), "stage": receipt.stage, "decision": receipt.decision, "level": receipt.level,
            "risk": receipt.risk, "reasons": receipt.reasons, "confirmation_id": _str(receipt.confirmation_id),
            "issued_at": receipt.issued_at, "expires_at": receipt.expires_at}


def _policy(receipts: list[PolicyReceipt], execution: Execution) -> dict[str, Any]:
    """The decision at planning, the receipt the execution started under, and every receipt of the plan."""
    planning = next((r for r in receipts if r.stage == "PLANNING"), None)
    running = next((r for r in receipts if r.pk == execution.receipt_id), None)
    return {"decision": _receipt(planning) if planning else None, "receipt": _receipt(running) if running else None,
            "receipts": [_receipt(r) for r in receipts]}


def _confirmation(receipts: list[PolicyReceipt], execution: Execution) -> dict[str, Any] | None:
    running = next((r for r in receipts if r.pk == execution.receipt_id), None)
    if running is None or running.confirmation_id is None:
        return None  # a read, or anything else policy allowed without asking
    return {"id": str(running.confirmation_id), "level": running.level, "received_at": running.issued_at,
            "receipt_id": str(running.pk)}


def _plan(plan: ExecutionPlan) -> dict[str, Any]:
    return {"id": str(plan.pk), "template": plan.template, "planner": plan.planner, "status": plan.status,
            "risk": plan.risk, "hash": plan.canonical_hash, "allow_partial": plan.allow_partial,
            "requires_confirmation": plan.requires_confirmation, "created_at": plan.created_at,
            "validated_at": plan.validated_at, "expires_at": plan.expires_at}


def _step(run: StepRun, step: PlanStep, entries: list[TimelineEntry], checks: list[ReceiptCheck]) -> dict[str, Any]:
    duration = ((run.finished_at - run.started_at).total_seconds() * 1000
                if run.started_at and run.finished_at else None)
    # A retried attempt's error is kept on its RETRY_SCHEDULED entry; the last one is on the run.
    errors = [e.data.get("error") for e in entries if e.type == "RETRY_SCHEDULED" and e.data.get("error")]
    if run.error:
        errors.append(run.error)
    return {
        "id": run.step_id, "capability": step.capability_id, "version": step.capability_version, "kind": step.kind,
        "risk": step.risk, "depends_on": step.depends_on, "label": step.label, "status": run.status,
        "attempts": run.attempts, "calls": run.calls, "retries": sum(e.type == "RETRY_SCHEDULED" for e in entries),
        "call_ms": round(run.call_ms, 3), "duration_ms": None if duration is None else round(duration, 3),
        "input": run.input if run.input is not None else step.input, "targets": step.targets,
        "result": run.result, "error": run.error, "errors": errors,
        "checks": [{"at": c.checked_at, "ok": c.ok, "code": c.code, "reasons": c.reasons} for c in checks],
        "verification": [{"at": e.at, "type": e.type, "data": e.data} for e in entries if e.type in _VERIFICATION],
        "compensation": run.compensation, "started_at": run.started_at, "finished_at": run.finished_at,
    }


def _compensation(runs: list[StepRun], timeline: list[TimelineEntry],
                  plan_steps: Mapping[str, PlanStep]) -> dict[str, Any] | None:
    entries = [e for e in timeline if e.type.startswith("COMPENSATION_") or e.type == "EXECUTION_COMPENSATED"]
    if not entries:
        return None
    return {"steps": [{"id": r.step_id, "compensation": r.compensation} for r in runs if r.compensation],
            "timeline": [_entry(e, plan_steps) for e in entries]}


def _runtime(runtime: RuntimeExecution | None) -> dict[str, Any] | None:
    if runtime is None:
        return None
    return {"status": runtime.status, "version": runtime.version, "reason": runtime.reason,
            "budget": runtime.budget, "api_calls": runtime.api_calls, "steps": runtime.steps,
            "llm_calls": runtime.llm_calls, "replans": runtime.replans, "deadline_at": runtime.deadline_at,
            "last_heartbeat_at": runtime.last_heartbeat_at}


def _response(execution: Execution) -> dict[str, Any] | None:
    """What the user was told when the execution settled (composed as the conversation composes it)."""
    if not execution.settled:
        return None
    return {"message": {language: compose(execution, language) for language in ("pt-BR", "en")},
            "result": execution_result(execution)}


def _conversation_trace(execution: Execution, plan: ExecutionPlan) -> dict[str, Any]:
    """The conversation's side: the operation id, the user's message that opened the intent, and the
    conversation events of this operation (the runtime's carry the operation id, execution's the plan id)."""
    empty: dict[str, Any] = {"operation_id": None, "message": None, "events": []}
    if execution.conversation_id is None:
        return empty
    events = ConversationEvent.objects.for_tenant(execution.tenant_id).filter(
        conversation_id=execution.conversation_id)
    anchors = {e.type: e for e in events.filter(
        Q(type="PLAN_CREATED", payload__plan_id=str(plan.pk))
        | Q(type="INTENT_CREATED", payload__intent_id=str(plan.intent_id))).order_by("seq")}
    created = anchors.get("PLAN_CREATED")
    operation_id = created.operation_id if created is not None else None
    opened = anchors.get("INTENT_CREATED") or created
    message = (events.filter(type="MESSAGE_RECEIVED", seq__lte=opened.seq).order_by("-seq").first()
               if opened is not None else None)
    ids = [i for i in (operation_id, plan.pk) if i is not None]
    related = events.filter(operation_id__in=ids).order_by("seq")
    return {
        "operation_id": _str(operation_id),
        "message": ({"seq": message.seq, "text": (message.payload or {}).get("text", ""), "at": message.timestamp}
                    if message is not None else None),
        "events": [{"seq": e.seq, "type": e.type, "at": e.timestamp, "actor": e.actor,
                    "operation_id": _str(e.operation_id)} for e in related],
    }
