"""A capability run over a selection ("avalie as permissões em rascunho", "assess all draft permits"),
declared by the registry's `language.batch` (PRD-034 §110-§111), never special-cased here.

The selection is read *before* planning, through the batch's `select` read capability and the
Tool Runtime as the user: its language slots are the filters the message may name (a status word
from the slot's `value_synonyms`, a company...). Its ids become the plan template's `ids` slot, so
the planner pins them as the batch's targets; an empty selection is answered without planning.
A message naming neither a filter nor "every/all" evaluates the one permit it names (or the one in
focus) — a bare verb never widens to every permit.

When the runtime replans a batch with a *material* change (PRD-034 §59-§60: a new plan, already
evaluated by policy), `batch_replan_ask` — a completion hook, run when the old execution settles —
asks the user about the new plan exactly as a batch request asks (`operations.ask`, with the count
and the affected permits). Nothing of it runs before "sim". Items the runtime *deferred* (a
non-material replan) are named apart from the failed ones in the completion reply.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from django.db import transaction

from execution.models import ReplanOutcome, RuntimeReplan
from planning.labels import step_label
from registry.selectors import registry_snapshot
from tenancy import clock
from tenancy.selectors import membership_get

from . import lexicon, messages
from .batch_plan import batch_describe, text
from .flow import rest
from .grammar import CapabilityGrammar, grammar_for
from .intents import intent_state
from .models import PendingStatus
from .operations import ask, operation_open, plan_and_decide
from .persist import conversation_lock, conversation_save
from .statemachine import Status
from .turns import Turn, reader_for
from .understanding import Extractor, SlotValue
from .undo_plan import is_undo, undo_done


def _filters(turn: Turn, select: CapabilityGrammar, parts: list[str],
             extractor: Extractor) -> tuple[dict[str, Any], str]:
    """The select read's input from the filters the message names, and the scope in words."""
    extraction = extractor.extract(select, parts, use_context=False)
    query: dict[str, Any] = {}
    words: list[str] = []
    for slot in select.slots:
        values: list[SlotValue] = extraction.values.get(slot.name) or []
        if not values or values[0].source != "text":
            continue
        query[slot.field] = values[0].value
        words.append(slot.value_label(str(values[0].value), turn.language) if slot.parse == "enum"
                     else str(values[0].label))
    return query, " ".join(words)


def _one(turn: Turn, cap: CapabilityGrammar, parts: list[str], extractor: Extractor) -> list[SlotValue]:
    """The permit the message names by number, or the one in focus."""
    extraction = extractor.extract(cap, parts)
    return next((values for values in extraction.values.values() if values and values[0].entity), [])


def batch_request(turn: Turn, cap: CapabilityGrammar, parts: list[str], extractor: Extractor) -> None:
    batch = cap.batch
    assert batch is not None
    select = turn.grammar.capabilities.get(batch.select)
    query, scope = _filters(turn, select, parts, extractor) if select is not None else ({}, "")
    if query or any(p in lexicon.EVERY for p in parts):
        result = turn.reader.call(batch.select, query)
        if not result.ok:
            rest(turn)
            return turn.error("READ_FAILED", "batch.read_failed")
        items = [i for i in result.body or [] if isinstance(i, Mapping) and i.get("id") is not None]
        selected = [(int(i["id"]), str(i.get(batch.label) or i["id"])) for i in items]
    else:
        named = _one(turn, cap, parts, extractor)
        if not named:
            rest(turn)
            return turn.reply("clarification", "batch.which", values={},
                              clarification={"id": None, "question": turn.say("batch.which"), "missing_fields": [],
                                             "candidates": [], "expires_at": None})
        selected = [(int(v.value), v.label) for v in named]
    turn.event("BATCH_SELECTED", {"capability": cap.id, "select": batch.select, "filters": query,
                                  "count": len(selected)})
    if not selected:
        rest(turn)
        return turn.reply("answer", "batch.empty", message=text(batch, "empty", turn.language, {"scope": scope}))
    state = intent_state(capability=cap.id, values={}, text=turn.text, language=turn.language)
    state["batch"] = {"ids": [i for i, _ in selected], "labels": {str(i): label for i, label in selected},
                      "scope": scope}
    turn.event("INTENT_CREATED", {"intent_id": state["id"], "capability": cap.id, "batch": len(selected)})
    plan_and_decide(turn, state)


_PUT_OFF = frozenset({"DEFERRED", "REPLANNED"})

# Texts of this module that the registry's `language.batch` does not word (one catalogue per language).
TEXTS: dict[str, dict[str, str]] = {
    "pt-BR": {
        "deferred": " Adiada(s) porque um serviço ficou indisponível: {names}.",
        "replan": "A etapa “{step}” não pode continuar: {resource} ficou indisponível e não há outra fonte "
                  "registrada; {done} de {total} "
                  "permissão(ões) concluída(s). Há um plano alternativo para as {count} restante(s), mas ele "
                  "muda o que foi aprovado ({changes}), então preciso de uma nova confirmação.",
        # The same ask when the replan's trigger was not an unavailable resource (execution/replan_triggers.py).
        "replan_rate_limited": "A etapa “{step}” não pode continuar: {resource} segue recusando as chamadas por "
                               "limite de requisições, mesmo depois das novas tentativas permitidas; {done} de "
                               "{total} concluído(s). Há um plano alternativo para os {count} restante(s), mas ele "
                               "muda o que foi aprovado ({changes}), então preciso de uma nova confirmação.",
        "replan_contract": "A etapa “{step}” não pode continuar como foi aprovada: a operação que ela usa mudou de "
                           "versão desde a confirmação; {done} de {total} concluído(s). Há um plano para os "
                           "{count} restante(s) na nova versão ({changes}), então preciso de uma nova confirmação.",
        "changed": "etapas alteradas: {steps}",
        "without": "sem: {steps}",
        "scope": "mais itens",
        "risk": "risco maior",
    },
    "en": {
        "deferred": " Deferred because a service became unavailable: {names}.",
        "replan": "Step “{step}” cannot go on: {resource} became unavailable and no other source is "
                  "registered; {done} of {total} "
                  "permit(s) finished. There is an alternative plan for the {count} left, but it changes what "
                  "was approved ({changes}), so I need a new confirmation.",
        "replan_rate_limited": "Step “{step}” cannot go on: {resource} keeps refusing calls over its rate limit, "
                               "even after the retries allowed; {done} of {total} finished. There is an "
                               "alternative plan for the {count} left, but it changes what was approved "
                               "({changes}), so I need a new confirmation.",
        "replan_contract": "Step “{step}” cannot go on as approved: the operation it uses changed version since "
                           "the confirmation; {done} of {total} finished. There is a plan for the {count} left on "
                           "the new version ({changes}), so I need a new confirmation.",
        "changed": "changed steps: {steps}",
        "without": "without: {steps}",
        "scope": "more items",
        "risk": "higher risk",
    },
}


# What the user is told a replan was for, by its trigger (the default: the resource is unavailable).
_REPLAN_TEXT = {"RATE_LIMITED": "replan_rate_limited", "CONTRACT_CHANGED": "replan_contract"}


def _say(key: str, language: str, **values: Any) -> str:
    return (TEXTS.get(language) or TEXTS["pt-BR"])[key].format(**values)


def batch_done(detail: Mapping[str, Any], state: Mapping[str, Any], grammar: Any, language: str) -> str | None:
    """The completion reply: how many were evaluated, the tally (approved / flagged), the failed ones by
    name, and apart from them the ones deferred because a resource became unavailable."""
    if is_undo(state):
        return undo_done(detail, state, grammar, language)
    cap = grammar.capabilities.get(state.get("capability"))
    if cap is None or cap.batch is None:
        return None
    chosen = state["batch"]
    results: dict[str, Any] = {}
    put_off: set[str] = set()
    for step in detail["steps"]:
        result = step.get("result")
        if not isinstance(result, Mapping):
            continue
        if step["capability"] == cap.id:
            results.update(result.get("items") or {})
        put_off |= {str(f.get("target_id")) for f in result.get("failed") or []
                    if isinstance(f.get("error"), Mapping) and f["error"].get("code") in _PUT_OFF}
    counts = {name: sum(1 for r in results.values() if isinstance(r, Mapping)
                        and r.get(cap.batch.tally_field or "") == value) for name, value in cap.batch.tally.items()}
    missing = [str(i) for i in chosen["ids"] if str(i) not in results]
    label = chosen["labels"].get
    failed = [label(i, i) for i in missing if i not in put_off]
    deferred = [label(i, i) for i in missing if i in put_off]
    reply = text(cap.batch, "done", language, {**counts, "count": len(results), "scope": chosen.get("scope"),
                                                "failed": messages.join_list(failed, language)})
    if deferred:
        reply += _say("deferred", language, names=messages.join_list(deferred, language))
    return reply


# --- a material replan, asked like a batch request ---------------------------------------------


def batch_replan_ask(execution: Any) -> None:
    """Completion hook: the settled execution was replanned with a material change → ask the user
    about the replacement plan (policy already evaluated it; confirming re-evaluates, invariant 3)."""
    if execution.conversation_id is None or execution.status not in ("partially_completed", "failed"):
        return
    replan = (RuntimeReplan.objects.for_tenant(execution.tenant_id).select_related("plan")
              .filter(execution=execution, outcome=ReplanOutcome.REAPPROVAL_REQUIRED, plan__isnull=False)
              .order_by("-id").first())
    if replan is None:
        return
    with transaction.atomic():
        _replan_ask(execution, replan)


def _replan_turn(conversation: Any, tenant: Any, user: Any) -> Any:
    snapshot = registry_snapshot()
    grammar = grammar_for(snapshot)
    membership = membership_get(user=user, tenant_id=tenant.pk)
    return Turn(conversation=conversation, user=user, tenant=tenant, role=membership.role if membership else "",
                language=conversation.language, snapshot=snapshot, grammar=grammar,
                reader=reader_for(user=user, tenant=tenant, snapshot=snapshot, grammar=grammar), now=clock.now(),
                read_version=conversation.version)


def _replan_ask(execution: Any, replan: Any) -> None:
    conversation = conversation_lock(tenant=execution.tenant, user=None, conversation_id=execution.conversation_id)
    operation = conversation.active_operation or {}
    intent = operation.get("intent") or {}
    pending = conversation.pending_confirmation
    if (str(operation.get("execution_id")) != str(execution.pk) or not intent.get("batch")
            or (pending is not None and pending.status == PendingStatus.PENDING)):
        return  # the user moved on, or something else is waiting for an answer
    turn = _replan_turn(conversation, execution.tenant, execution.actor)
    try:
        if conversation.status in (Status.EXECUTING, Status.CANCELLING):
            turn.go(Status.UNDERSTANDING)
        turn.go(Status.RESUMING)
        plan = replan.plan
        ids = sorted({int(t["id"]) for step in plan.steps.all() for t in step.targets})
        state = {**intent, "id": str(uuid.uuid4()), "batch": {**intent["batch"], "ids": ids}}
        opened = operation_open(turn, state, plan)
        turn.event("PLAN_CREATED", {"plan_id": str(plan.pk), "template": plan.template, "risk": plan.risk,
                                    "hash": plan.canonical_hash, "replan_of": str(execution.plan_id),
                                    "impact": replan.impact}, operation_id=opened["operation_id"])
        action, affected = batch_describe(turn, state)
        lead = _replan_lead(turn, execution, replan, intent, len(ids))
        ask(turn, plan, state, replan.decision.get("level", "soft"), replan.decision.get("risk", plan.risk),
            action, affected, lead=lead)
        conversation.last_response = turn.response
        conversation_save(conversation, read_version=turn.read_version, now=turn.now)
    finally:
        turn.reader.close()


def _replan_lead(turn: Turn, execution: Any, replan: Any, intent: Mapping[str, Any], count: int) -> str:
    impact, language = replan.impact or {}, turn.language
    steps = {s.step_id: s.capability_id for s in replan.plan.steps.all()}
    old_steps = dict(execution.plan.steps.values_list("step_id", "capability_id"))

    def labels(ids: Any, source: Mapping[str, str]) -> str:
        return messages.join_list([step_label(source.get(i, ""), i)[language].rstrip("…") for i in ids], language)
    changes = []
    if impact.get("changed_steps"):
        changes.append(_say("changed", language, steps=labels(impact["changed_steps"], steps)))
    dropped = [i for i in impact.get("deferred_steps") or [] if i not in steps]
    if dropped:
        changes.append(_say("without", language, steps=labels(dropped, old_steps)))
    if (impact.get("scope_delta") or 0) > 0:
        changes.append(_say("scope", language))
    if (impact.get("risk_delta") or 0) > 0:
        changes.append(_say("risk", language))
    total = len(intent["batch"]["ids"])
    key = _REPLAN_TEXT.get(replan.trigger, "replan")
    return _say(key, language, step=labels([replan.step_id], old_steps), resource=replan.resource,
                done=max(0, total - count), total=total, count=count, changes="; ".join(changes) or "-")
