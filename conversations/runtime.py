"""The turn pipeline (PRD-010 §3, §58): message → state → intent → references → plan → policy →
execution → next state, with the fast deterministic path first and the LLM last.

Order of interpretation, each a generic language rule (lexicon.py) or registry metadata:
control words (yes / no / cancel / undo / retry / resume) → the answer to a pending
clarification → a correction → an operational, navigation or read intent → a field question →
the LLM intent parser (when configured) → a clarification. Never an invented answer.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from django.conf import settings

from knowledge.selectors import knowledge_search
from planning.services import IllegalTransition, plan_status_set
from policy.services import evaluate
from registry.roles import permissions_for_role
from tenancy.db import update_row_deferred

from . import lexicon, messages
from .grammar import CapabilityGrammar, camel_parts, same_word
from .models import Clarification, Confirmation, PendingStatus
from .operations import (
    approve_and_start,
    clarification_drop,
    intent_state,
    invalidate_pending,
    plan_and_decide,
    plan_and_steps_for,
    plan_for,
    slot_values,
)
from .reads import entity_ref
from .state import clarification_view, entity_activate, hints_for, situation_for
from .statemachine import Status
from .turns import Turn
from .understanding import Extraction, Extractor, Ranked, SlotValue, rank, reference

CLONE_MARKERS = frozenset(lexicon.tokens("igual mesma mesmo copia copie copiar clone clonar duplicar duplique "
                                         "same copy like identical duplicate"))
MAX_CLARIFICATION_ATTEMPTS = 3


# --- helpers ---------------------------------------------------------------------------------


def allowed_capabilities(turn: Turn) -> set[str]:
    permissions = permissions_for_role(turn.role_name())
    return {cap_id for cap_id in turn.grammar.capabilities
            if (spec := turn.snapshot.get(cap_id, tenant=turn.tenant)) is not None
            and (spec.kind != "read" or spec.permitted_for(permissions))}


def pending_confirmation(turn: Turn) -> Confirmation | None:
    pending = turn.conversation.pending_confirmation
    return pending if pending is not None and pending.status == PendingStatus.PENDING else None


def pending_clarification(turn: Turn) -> Clarification | None:
    pending = turn.conversation.pending_clarification
    return pending if pending is not None and pending.status == PendingStatus.PENDING else None


def rest(turn: Turn) -> None:
    """Back to a resting status that tells the truth about what is pending."""
    if pending_confirmation(turn) is not None:
        turn.go(Status.CONFIRMATION_REQUIRED)
    elif pending_clarification(turn) is not None:
        turn.go(Status.CLARIFICATION_REQUIRED)
    elif turn.conversation.status in (Status.UNDERSTANDING, Status.CORRECTING, Status.RESUMING):
        turn.go(turn.resting_before if turn.resting_before in (Status.EXECUTING, Status.SUCCESS, Status.FAILED,
                                                                 Status.PARTIAL_SUCCESS, Status.CANCELLED)
                else Status.IDLE)


def expire_pending(turn: Turn) -> None:
    """TTL enforced on read: a pending question or confirmation past its expiry completes nothing."""
    clarification = pending_clarification(turn)
    if clarification is not None and clarification.expires_at <= turn.now:
        Clarification.objects.for_tenant(turn.tenant).filter(pk=clarification.pk, status=PendingStatus.PENDING) \
            .update(status=PendingStatus.EXPIRED, closed_at=turn.now)
        clarification.status = PendingStatus.EXPIRED
        turn.event("CLARIFICATION_EXPIRED", {"clarification_id": str(clarification.pk)})
    confirmation = pending_confirmation(turn)
    if confirmation is not None and confirmation.expires_at <= turn.now:
        Confirmation.objects.for_tenant(turn.tenant).filter(pk=confirmation.pk, status=PendingStatus.PENDING) \
            .update(status=PendingStatus.EXPIRED, decided_at=turn.now)
        confirmation.status = PendingStatus.EXPIRED
        turn.event("CONFIRMATION_EXPIRED", {"confirmation_id": str(confirmation.pk)},
                   operation_id=confirmation.operation_id)


# --- entry points ----------------------------------------------------------------------------


def handle(turn: Turn, kind: str, *, confirmation_id: Any = None) -> None:
    turn.resting_before = turn.conversation.status
    running = turn.resting_before in (Status.EXECUTING, Status.CANCELLING)
    if kind == "resume" and running:  # nothing to resume while it runs; the table has no EXECUTING → RESUMING
        return turn.error("BUSY", "busy")
    turn.go(Status.RESUMING if kind == "resume" else Status.UNDERSTANDING)
    expire_pending(turn)
    if kind == "confirm":
        confirm(turn, confirmation_id=confirmation_id)
    elif kind == "cancel":
        cancel(turn)
    elif kind == "undo":
        undo(turn)
    elif kind == "resume":
        resume(turn)
    else:
        message(turn)
    if turn.response is None:
        turn.error("UNKNOWN", "clarify.unknown")
    if turn.conversation.status in (Status.UNDERSTANDING, Status.RESUMING, Status.CORRECTING):
        rest(turn)


def message(turn: Turn) -> None:
    text = turn.text
    phrase = lexicon.phrase(text)
    turn.event("MESSAGE_RECEIVED", {"text": text[:2000], "language": turn.language}, actor="user")
    if lexicon.is_confirmation(phrase):
        return confirm(turn)
    if phrase in lexicon.DECLINE:
        return decline(turn)
    if phrase in lexicon.CANCEL:
        return cancel(turn)
    if phrase in lexicon.UNDO:
        return undo(turn)
    if phrase in lexicon.RETRY:
        return retry(turn)
    if phrase in lexicon.RESUME:
        return resume(turn)
    parts = lexicon.strip_filler(lexicon.tokens(text))
    allowed = allowed_capabilities(turn)
    clarification = pending_clarification(turn)
    if clarification is not None and not _commands(turn, parts, allowed):
        return clarification_answer(turn, clarification, parts)
    remainder = lexicon.correction_remainder(text)
    if remainder is not None and _correctable(turn):
        return correction(turn, remainder)
    if (pending_confirmation(turn) is not None and parts and parts[0] in lexicon.CORRECTION_LEADS
            and not _commands(turn, parts[1:], allowed)):
        return correction(turn, parts[1:])
    understand(turn, parts, allowed)


def _commands(turn: Turn, parts: list[str], allowed: set[str]) -> bool:
    """Does the message start a new request (a verb of a capability near its start)?"""
    ranked = rank(turn.grammar, parts, allowed, hints_for(turn.conversation, with_topic=False))
    return bool(ranked) and ranked[0].verb_span is not None and ranked[0].verb_span[0] <= 2


def _correctable(turn: Turn) -> bool:
    return bool(pending_confirmation(turn) or turn.conversation.active_intent
                or (turn.conversation.context or {}).get("last_navigation"))


# --- understanding ---------------------------------------------------------------------------


def understand(turn: Turn, parts: list[str], allowed: set[str]) -> None:
    hints = hints_for(turn.conversation, with_topic=True)
    ranked = rank(turn.grammar, parts, allowed, hints)
    # "quem é o inspetor da inspeção 45?": a question naming a field of an entity is answered from
    # that entity's data before any capability whose verb the question happens to contain.
    asks = any(p in lexicon.QUESTION_WORDS for p in parts) and not any(p in lexicon.COUNT_WORDS for p in parts)
    if asks and field_question(turn, parts):
        return
    if not ranked:
        return unparsed(turn, parts)
    extractor = Extractor(grammar=turn.grammar, reader=turn.reader, situation=situation_for(turn.conversation),
                          text=turn.text, language=turn.language)
    best, extraction = choose(turn, ranked, parts, extractor)
    cap = best.cap
    page = _page_of(turn, cap, parts, allowed)
    if page is not None:
        cap, extraction = page, extractor.extract(page, parts)
    if any(s.type == "knowledgeRef" for s in cap.slots):
        return explain(turn, parts)
    if cap.kind == "navigation":
        return navigate(turn, cap, extraction, parts)
    if cap.kind == "write" and turn.conversation.status == Status.EXECUTING:
        return turn.error("BUSY", "busy")
    if cap.batch is not None and best.verb is not None and best.verb.batch and best.cap.id == cap.id:
        from .batch import batch_request

        return batch_request(turn, cap, parts, extractor)
    clone = cap.intent == "create" and any(p in CLONE_MARKERS for p in parts)
    if clone:
        extraction = clone_extraction(turn, cap, parts, extractor)
    operate(turn, cap, extraction, parts, clone=clone)


def _page_of(turn: Turn, cap: CapabilityGrammar, parts: list[str], allowed: set[str]) -> CapabilityGrammar | None:
    """"mostre a permissão 123" / "show permit 123" is known navigation: showing one entity opens its page
    (a question about it — "qual é…?" — is answered instead)."""
    if cap.kind != "read" or cap.intent != "show" or any(p in lexicon.QUESTION_WORDS for p in parts):
        return None
    return next((c for c in turn.grammar.capabilities.values() if c.id in allowed and c.kind == "navigation"
                 and c.entity == cap.entity and c.intent == "open"), None)


def choose(turn: Turn, ranked: list[Ranked], parts: list[str],
           extractor: Extractor) -> tuple[Ranked, Extraction]:
    """Among close candidates, prefer the one the message itself fills best with the tenant's data."""
    top = ranked[0].score
    scored: list[tuple[float, int, Ranked, Extraction]] = []
    for order, item in enumerate([r for r in ranked if r.score >= top - 8][:5]):
        extraction = extractor.extract(item.cap, parts)
        bonus = 0.0
        for slot in item.cap.slots:
            if slot.name in extraction.from_text:
                bonus += 4 if slot.required else 1
            elif slot.name in extraction.ambiguous:
                bonus += 2
            elif slot.name in extraction.not_found and slot.required:
                bonus -= 1
        scored.append((item.score + bonus, -order, item, extraction))
    scored.sort(key=lambda t: (t[0], t[1]), reverse=True)
    return scored[0][2], scored[0][3]


def clone_extraction(turn: Turn, cap: CapabilityGrammar, parts: list[str], extractor: Extractor) -> Extraction:
    """"Crie uma igual à atual, mas com …": the source is a reference; the rest are changes."""
    source_type = next((s.type for c in turn.grammar.capabilities.values() if c.entity == cap.entity
                        for s in c.slots if s.parse == "reference" and s.type == cap.entity), cap.entity)
    extraction = extractor.extract(cap, parts, use_context=False)
    source = reference(source_type, parts, extractor.situation)
    extraction.missing = []
    extraction.ambiguous.pop("company", None)
    extraction.values.pop("company", None)
    if source is None:
        extraction.missing = ["source"]
    else:
        extraction.values["source"] = [source]
    return extraction


def operate(turn: Turn, cap: CapabilityGrammar, extraction: Extraction, parts: list[str], *,
            clone: bool = False) -> None:
    if cap.kind == "write" and not clone:
        _require_a_change(turn, cap, extraction)
    state = intent_state(capability=cap.id, values=extraction.values, text=turn.text, language=turn.language,
                         clone=clone)
    turn.event("INTENT_CREATED", {"intent_id": state["id"], "capability": cap.id})
    if not extraction.complete:
        return clarify(turn, state, extraction)
    activate_targets(turn, state)
    if cap.kind == "read" and not _is_count(cap):
        return read_answer_direct(turn, cap, state)
    plan_and_decide(turn, state)


def _require_a_change(turn: Turn, cap: CapabilityGrammar, extraction: Extraction) -> None:
    """A write that changes values (update) needs at least one of them; it never runs empty."""
    values = [s for s in cap.slots if not (s.from_context and turn.reader.read_capability(s.type))
              and s.type not in ("text",) or (s.type == "text" and s.parse == "reference")]
    values = [s for s in values if s.type != "knowledgeRef" and not (s.type == "text" and s.parse == "text")]
    if values and not any(extraction.values.get(s.name) or extraction.ambiguous.get(s.name)
                          or extraction.not_found.get(s.name) for s in values):
        required = [s.name for s in values if s.required]
        extraction.missing.extend(m for m in (required or [values[0].name]) if m not in extraction.missing)


def _is_count(cap: CapabilityGrammar) -> bool:
    return cap.intent == "count"


def activate_targets(turn: Turn, state: Mapping[str, Any]) -> None:
    for values in (state.get("slots") or {}).values():
        for value in values:
            entity = value.get("entity")
            if isinstance(entity, Mapping) and entity.get("type") and value.get("source") in ("text", "ui"):
                entity_activate(turn.conversation, entity, version=turn.version)
                turn.event("REFERENCE_RESOLVED", {"type": entity.get("type"), "id": str(entity.get("id")),
                                                  "source": value.get("source")})
                return


# --- clarification ---------------------------------------------------------------------------


def _candidate_label(ref: Mapping[str, Any]) -> str:
    company = (ref.get("company") or {}).get("name") if isinstance(ref.get("company"), Mapping) else None
    return f"{ref.get('label')} \u2014 {company}" if company else str(ref.get("label"))


def _slot_term(turn: Turn, slot: Any, slot_name: str) -> str:
    return turn.grammar.slot_label(slot, turn.language) if slot is not None else messages.term(slot_name, turn.language)


def clarify(turn: Turn, state: Mapping[str, Any], extraction: Extraction) -> None:
    cap = turn.grammar.capabilities[state["capability"]]
    language = turn.language
    candidates: list[dict[str, Any]] = []
    if extraction.ambiguous:
        slot_name, options = next(iter(extraction.ambiguous.items()))
        plain = [str(o.get("label")) for o in options]
        collide = len(set(plain)) < len(plain)
        candidates = [{"id": str(o.get("id")), "label": _candidate_label(o) if collide else str(o.get("label")),
                       "slot": slot_name, "value": o.get("value", o.get("id")),
                       "entity": {k: v for k, v in o.items() if k != "value"}} for o in options]
        labels = messages.join_list([c["label"] for c in candidates], language)
        slot = cap.slot(slot_name)
        if slot is not None and slot.parse == "reference":
            question = turn.say("clarify.which_entity", count=len(candidates), number=options[0].get("label"),
                                options=labels, **turn.nouns(slot.type))
        else:
            question = turn.say("clarify.which", count=len(candidates), options=labels)
        missing, template = [slot_name], "clarify.which"
    elif extraction.not_found:
        slot_name, raw = next(iter(extraction.not_found.items()))
        slot = cap.slot(slot_name)
        if slot is not None and slot.parse == "reference":
            rest(turn)
            return turn.error("NOT_FOUND", "clarify.entity_not_found", number=raw, **turn.nouns(slot.type))
        question = turn.say("clarify.not_found", field=_slot_term(turn, slot, slot_name), text=raw)
        missing, template = [slot_name], "clarify.not_found"
    else:
        slot_name = extraction.missing[0]
        slot = cap.slot(slot_name)
        if slot_name == "source" or (slot is not None and slot.parse == "reference"):
            entity = slot.type if slot is not None else cap.entity
            question, template = turn.say("clarify.missing_entity", **turn.nouns(entity)), "clarify.missing_entity"
        else:
            question = turn.say("clarify.missing", field=_slot_term(turn, slot, slot_name))
            template = "clarify.missing"
            if slot is not None and slot.resolver:
                items = turn.reader.catalog(slot)
                label = str(slot.resolver.get("label", "name"))
                value_key = str(slot.resolver.get("value", "id"))
                if 0 < len(items) <= 8:
                    candidates = [{"id": str(i.get("id")), "label": str(i.get(label)), "slot": slot_name,
                                   "value": i.get(value_key), "entity": entity_ref(slot.type, i, label_field=label)}
                                  for i in items]
        missing = list(extraction.missing)
    clarification_open(turn, state, question=question, template=template, missing=missing, candidates=candidates)


def clarification_open(turn: Turn, state: Mapping[str, Any], *, question: str, template: str, missing: list[str],
                       candidates: list[dict[str, Any]]) -> None:
    conversation = turn.conversation
    previous = pending_clarification(turn)
    if previous is not None:
        Clarification.objects.for_tenant(turn.tenant).filter(pk=previous.pk).update(
            status=PendingStatus.INVALIDATED, closed_at=turn.now)
        previous.status = PendingStatus.INVALIDATED
    ttl = int(settings.AGENT_CLARIFICATION_TTL_SECONDS)
    from datetime import timedelta

    clarification = Clarification.objects.create(
        tenant=turn.tenant, conversation=conversation, intent=dict(state), question=question, template=template,
        missing_fields=missing, candidates=candidates, created_at=turn.now, expires_at=turn.now + timedelta(
            seconds=ttl))
    conversation.pending_clarification = clarification
    conversation.active_intent = dict(state)
    turn.go(Status.CLARIFICATION_REQUIRED)
    turn.event("CLARIFICATION_REQUIRED", {"clarification_id": str(clarification.pk), "missing": missing,
                                          "candidates": len(candidates)})
    turn.reply("clarification", template, message=question, clarification=clarification_view(clarification))


def clarification_answer(turn: Turn, clarification: Clarification, parts: list[str]) -> None:
    """The answer completes the pending intent (§13-§14); it never starts a new one."""
    state = dict(clarification.intent)
    slot_name = clarification.missing_fields[0] if clarification.missing_fields else None
    chosen = _pick_candidate(clarification.candidates, parts) if clarification.candidates else None
    values = dict(state.get("slots") or {})
    if chosen is not None:
        values[slot_name] = [SlotValue(chosen["value"], str(chosen["entity"].get("label")), chosen["entity"],
                                       "text").to_dict()]
    elif slot_name:
        cap = turn.grammar.capabilities[state["capability"]]
        extractor = Extractor(grammar=turn.grammar, reader=turn.reader, situation=situation_for(turn.conversation),
                          text=turn.text, language=turn.language)
        if slot_name == "source":
            found = None
            cap_types = [s for s in cap.slots if s.parse == "reference"]
            if cap_types:
                probe = extractor.extract(cap, parts, only={cap_types[0].name}, use_context=False)
                found = (probe.values.get(cap_types[0].name) or [None])[0]
            if found is not None:
                values["source"] = [found.to_dict()]
        else:
            extraction = extractor.extract(cap, parts, only={slot_name}, use_context=False)
            if extraction.values.get(slot_name):
                values[slot_name] = [v.to_dict() for v in extraction.values[slot_name]]
            elif extraction.ambiguous.get(slot_name):
                state["slots"] = values
                return clarify(turn, state, Extraction(ambiguous={slot_name: extraction.ambiguous[slot_name]}))
    if not values.get(slot_name):
        attempts = clarification.attempts + 1
        Clarification.objects.for_tenant(turn.tenant).filter(pk=clarification.pk).update(attempts=attempts)
        clarification.attempts = attempts
        if attempts >= MAX_CLARIFICATION_ATTEMPTS:
            _close_clarification(turn, clarification, PendingStatus.CANCELLED)
            turn.go(Status.CANCELLED)
            return turn.reply("error", "clarification.cancelled",
                              error={"code": "CLARIFICATION_ABANDONED", "detail": ""})
        turn.go(Status.CLARIFICATION_REQUIRED)
        return turn.reply("clarification", clarification.template, message=clarification.question,
                          clarification=clarification_view(clarification))
    state["slots"] = values
    _close_clarification(turn, clarification, PendingStatus.CONSUMED)
    turn.event("CLARIFICATION_RESOLVED", {"clarification_id": str(clarification.pk), "slot": slot_name})
    resume_intent(turn, state)


def _close_clarification(turn: Turn, clarification: Clarification, status: str) -> None:
    Clarification.objects.for_tenant(turn.tenant).filter(pk=clarification.pk).update(status=status,
                                                                                       closed_at=turn.now)
    clarification.status = status


def _pick_candidate(candidates: list[dict[str, Any]], parts: list[str]) -> dict[str, Any] | None:
    from .matching import mention

    items = [{**c, "text": " ".join(str(x) for x in [c.get("label"), (c.get("entity") or {}).get("label")])}
             for c in candidates]
    found = mention(parts, items, "text")
    if found is not None and len(found.items) == 1:
        return next(c for c in candidates if c["id"] == found.items[0]["id"])
    numbers = [p for p in parts if p.isdigit()]
    if len(numbers) == 1 and 1 <= int(numbers[0]) <= len(candidates) and len(parts) <= 2:
        return candidates[int(numbers[0]) - 1]
    return None


def resume_intent(turn: Turn, state: dict[str, Any]) -> None:
    """Continue an intent whose missing pieces were just given: re-check what is still missing."""
    cap = turn.grammar.capabilities[state["capability"]]
    extraction = Extraction(values={k: [SlotValue.from_dict(v) for v in vals]
                                    for k, vals in (state.get("slots") or {}).items()})
    if state.get("clone"):
        extraction.missing = [] if extraction.values.get("source") else ["source"]
    else:
        for slot in cap.slots:
            if slot.required and not extraction.values.get(slot.name):
                if slot.from_context:
                    ref = reference(slot.type, [], situation_for(turn.conversation))
                    if ref is not None:
                        extraction.values[slot.name] = [ref]
                        continue
                extraction.missing.append(slot.name)
    state["slots"] = {k: [v.to_dict() for v in vals] for k, vals in extraction.values.items()}
    if not extraction.complete:
        return clarify(turn, state, extraction)
    activate_targets(turn, state)
    if cap.kind == "navigation":
        return navigate_state(turn, cap, state)
    if cap.kind == "read" and not _is_count(cap):
        return read_answer_direct(turn, cap, state)
    plan_and_decide(turn, state)


# --- navigation ------------------------------------------------------------------------------


def navigate(turn: Turn, cap: CapabilityGrammar, extraction: Extraction, parts: list[str]) -> None:
    state = intent_state(capability=cap.id, values=extraction.values, text=turn.text, language=turn.language)
    if not extraction.complete:
        if set(extraction.missing) <= {"tab"} and not extraction.ambiguous and not extraction.not_found:
            pass
        else:
            return clarify(turn, state, extraction)
    navigate_state(turn, cap, state)


def navigate_state(turn: Turn, cap: CapabilityGrammar, state: Mapping[str, Any]) -> None:
    from execution.runtime import navigation_instruction

    spec = turn.snapshot.require(cap.id, tenant=turn.tenant)
    values: dict[str, Any] = {}
    target: dict[str, Any] | None = None
    for slot in cap.slots:
        vals = slot_values(state, slot.name)
        if not vals:
            continue
        if vals[0].entity and turn.reader.read_capability(slot.type):
            body = turn.reader.entity(slot.type, vals[0].value)
            if body is None:
                rest(turn)
                return turn.error("NOT_FOUND", "clarify.entity_not_found", number=vals[0].label,
                                  **turn.nouns(slot.type))
            target = entity_ref(slot.type, body, label_field=str((slot.resolver or {}).get("label", "name")))
        values[slot.field] = vals[0].value
    tab_slot = next((s for s in cap.slots if s.parse == "enum"), None)
    if target is None:
        return turn.error("NOT_FOUND", "clarify.missing_entity", **turn.nouns(cap.entity))
    decision = evaluate(actor=turn.user, tenant=turn.tenant,
                        steps=[{"id": "nav", "capability": spec.id, "version": spec.version, "input": values,
                                "targets": [{"type": target["type"], "id": str(target["id"])}]}],
                        facts={f"{target['type']}:{target['id']}": {"tenant": str(turn.tenant.pk), "exists": True,
                                                                      "status": target.get("status"),
                                                                      "revision": target.get("revision")}})
    if not decision.allowed:
        rest(turn)
        return turn.error("POLICY_DENIED", "policy.denied", reason=messages.reason_text(decision.codes,
                                                                                         turn.language))
    clarification_drop(turn)
    instruction = navigation_instruction(spec, values, label=target.get("label"))
    instruction["entity"]["company"] = (target.get("company") or {}).get("name")
    instruction["focus"] = None
    entity_activate(turn.conversation, target, version=turn.version)
    context = dict(turn.conversation.context or {})
    tab = values.get(tab_slot.field) if tab_slot else None
    context["active_tab"] = tab
    context["last_navigation"] = {"intent": dict(state), "capability": cap.id}
    turn.conversation.context = context
    turn.conversation.active_intent = dict(state)
    turn.event("CONTEXT_UPDATED", {"active_entity": {"type": target["type"], "id": str(target["id"])},
                                   "tab": tab})
    company = instruction["entity"]["company"] or ""
    template = "navigation.tab" if tab else "navigation.open"
    rest(turn)
    tab_text = tab_slot.value_label(str(tab), turn.language) if tab and tab_slot else ""
    turn.reply("navigation", template, values={"label": target.get("label"), "company": company, "tab": tab_text,
                                               **turn.nouns(str(target["type"]))},
               navigation=instruction)


# --- knowledge and reads ---------------------------------------------------------------------


def _topic_words(turn: Turn, parts: list[str]) -> list[str]:
    skip = set(lexicon.DEMONSTRATIVES) | set(lexicon.EXPLAIN_MARKERS) | set(lexicon.ARTICLES)
    skip |= {w for phrases in turn.grammar.synonyms.values() for p in phrases for w in p}
    knowledge = next((c for c in turn.grammar.capabilities.values()
                      if any(s.type == "knowledgeRef" for s in c.slots)), None)
    verbs = {w for v in knowledge.verbs for w in v.words} if knowledge else set()
    from knowledge.text import is_stop_word

    return [p for p in parts if p not in skip and p not in verbs and not is_stop_word(p) and not p.isdigit()]


def topic_set(turn: Turn, *, words: list[str], entity: Mapping[str, Any] | None, semantic_id: str | None) -> None:
    context = dict(turn.conversation.context or {})
    old = context.get("topic") or {}
    same = sorted(old.get("words") or []) == sorted(words) and old.get("entity") == entity
    topic = {"id": old.get("id") if same else str(uuid.uuid4()), "words": words, "entity": entity,
             "semantic_id": semantic_id, "started_at": old.get("started_at") if same else turn.now.isoformat(),
             "last_activity_at": turn.now.isoformat()}
    context["topic"] = topic
    turn.conversation.context = context
    if not same:
        turn.event("TOPIC_CHANGED", {"topic_id": topic["id"], "words": words, "semantic_id": semantic_id})


def explain(turn: Turn, parts: list[str]) -> None:
    situation = situation_for(turn.conversation)
    entity = None
    pointing = any(p in lexicon.DEMONSTRATIVES for p in parts)
    named = turn.grammar.types_named_in(parts)
    if pointing:
        candidates = list(situation.created) + ([situation.active] if situation.active else [])
        for ref in candidates:
            if not named or any(_similar_type(t, str(ref.get("type"))) for t in named):
                entity = ref
                break
    words = _topic_words(turn, parts)
    focus = (turn.conversation.last_ui_context or {}).get("focus") or {}
    if not words and isinstance(focus, Mapping) and focus.get("label") and pointing and entity is None:
        words = lexicon.tokens(str(focus.get("label")))
    knowledge_entity = None
    if entity is not None:
        kind = [p for p in camel_parts(str(entity.get("type"))) if p not in ("permit", "type", "work")]
        knowledge_entity = {"type": kind[-1] if kind else entity.get("type"), "key": entity.get("key"),
                            "name": entity.get("label")}
    result = knowledge_search(tenant=turn.tenant, query=turn.text, entity=knowledge_entity,
                              ui_context=turn.conversation.last_ui_context or None,
                              topic=" ".join(words) or None, language="en" if turn.language == "en" else "pt")
    turn.llm_calls += result.llm_calls
    topic_set(turn, words=words, entity=entity, semantic_id=None)
    context = dict(turn.conversation.context or {})
    context["knowledge_version"] = result.knowledge_version
    turn.conversation.context = context
    rest(turn)
    turn.reply("answer", "knowledge.answer", message=result.answer.text,
               citations=[{"id": c.id, "title": c.title, "source": c.source, "version": c.version}
                          for c in result.answer.citations])


def _similar_type(a: str, b: str) -> bool:
    return a == b or bool((set(camel_parts(a)) & set(camel_parts(b))) - {"type", "permit", "work"})


def read_answer_direct(turn: Turn, cap: CapabilityGrammar, state: Mapping[str, Any]) -> None:
    """A read the fast path answers itself (show/list): through the planner and executor like any plan."""
    plan_and_decide(turn, state)


def field_question(turn: Turn, parts: list[str]) -> bool:
    """"qual é a validade da permissão 123?": the named or active entity's field, read now (§ item 3)."""
    for cap in turn.grammar.capabilities.values():
        if cap.kind != "read" or cap.intent != "show":
            continue
        slot = next((s for s in cap.slots if s.parse == "reference"), None)
        if slot is None or not turn.reader.spec(cap.id):
            continue
        extractor = Extractor(grammar=turn.grammar, reader=turn.reader, situation=situation_for(turn.conversation),
                          text=turn.text, language=turn.language)
        extraction = extractor.extract(cap, parts)
        value = (extraction.values.get(slot.name) or [None])[0]
        if value is None:
            continue
        body = turn.reader.entity(slot.type, value.value)
        if body is None:
            continue
        field = _field_named(turn, parts, body)
        if field is None:
            continue
        shown = _shown(body[field], turn.language)
        unit = f" {messages.term('days', turn.language)}" if field.endswith("_days") else ""
        entity = entity_ref(slot.type, body, label_field=str((slot.resolver or {}).get("label", "name")))
        entity_activate(turn.conversation, entity, version=turn.version)
        topic_set(turn, words=[p for p in parts if any(same_word(p, k) for k in _field_words(turn, field))],
                  entity=entity, semantic_id=None)
        rest(turn)
        turn.reply("answer", "answer.field", values={"field": _field_label(turn, field).capitalize(),
                                                      "label": entity.get("label"), "value": f"{shown}{unit}",
                                                      **turn.nouns(slot.type)})
        return True
    return False


def _field_label(turn: Turn, field: str) -> str:
    """A field as replies name it: the label of a slot that fills it (manifest), else the term."""
    for cap in turn.grammar.capabilities.values():
        for slot in cap.slots:
            if field in (slot.field, slot.name) and (slot.label or slot.type in turn.grammar.nouns):
                return turn.grammar.slot_label(slot, turn.language)
    return messages.term(field, turn.language)


def _shown(value: Any, language: str) -> str:
    """A field's value as a reply shows it: a related record by its name, a list as a list of names."""
    if isinstance(value, Mapping):
        return str(value.get("name") or value.get("description") or value.get("number") or value.get("id"))
    if isinstance(value, list):
        return messages.join_list([_shown(v, language) for v in value], language) or "—"
    return "—" if value is None else str(value)


def _field_words(turn: Turn, field: str) -> set[str]:
    words = set(lexicon.tokens(field.replace("_", " ")))
    for cap in turn.grammar.capabilities.values():
        if cap.kind == "write" and any(s.field == field or s.name == field for s in cap.slots):
            words |= set(cap.keywords)
    return words


def _field_named(turn: Turn, parts: list[str], body: Mapping[str, Any]) -> str | None:
    nouns = {w for phrases in turn.grammar.synonyms.values() for p in phrases for w in p}
    content = [p for p in parts if p not in lexicon.ARTICLES and p not in lexicon.QUESTION_WORDS and len(p) > 3
               and p not in nouns]
    for field in body:
        if any(same_word(p, w) for p in content for w in lexicon.tokens(field.replace("_", " "))):
            return field
    for cap in turn.grammar.capabilities.values():
        if cap.kind != "write":
            continue
        fields = [s.field for s in cap.slots if s.field in body and not s.from_context]
        if len(fields) == 1 and any(same_word(p, k) for p in content for k in cap.keywords):
            return fields[0]
    return None


def unparsed(turn: Turn, parts: list[str]) -> None:
    from .llm import llm_understand

    if llm_understand(turn, parts):
        return
    rest(turn)
    turn.reply("clarification", "clarify.unknown", values={},
               clarification={"id": None, "question": turn.say("clarify.unknown"), "missing_fields": [],
                              "candidates": [], "expires_at": None})


# --- confirmation ----------------------------------------------------------------------------


def confirm(turn: Turn, *, confirmation_id: Any = None) -> None:
    confirmation = turn.conversation.pending_confirmation
    if confirmation_id is not None and (confirmation is None or str(confirmation.pk) != str(confirmation_id)):
        rest(turn)
        return turn.error("CONFIRMATION_STALE", "confirmation.stale_id")
    if confirmation is None or confirmation.status not in (PendingStatus.PENDING, PendingStatus.EXPIRED):
        rest(turn)
        return turn.error("NOTHING_PENDING", "nothing.pending")
    if confirmation.status == PendingStatus.EXPIRED:
        return reask_expired(turn, confirmation)
    if confirmation.level == "human_review":
        rest(turn)
        return turn.error("REVIEW_REQUIRED", "confirmation.review_waiting")
    if stale_context(turn, confirmation):
        return
    update_row_deferred(Confirmation, where={"tenant": turn.tenant.pk, "id": confirmation.pk},
                        values={"status": PendingStatus.CONSUMED, "decided_at": turn.now, "decided_by": turn.user.pk})
    confirmation.status = PendingStatus.CONSUMED
    turn.event("CONFIRMATION_RECEIVED", {"confirmation_id": str(confirmation.pk), "plan_id": str(confirmation.plan_id)},
               actor="user", operation_id=confirmation.operation_id)
    known = turn.pending_plan
    plan, rows = (known if known is not None and known[0].pk == confirmation.plan_id
                  else plan_and_steps_for(turn, confirmation))
    if plan is None:
        turn.go(Status.FAILED)
        return turn.error("NOT_FOUND", "nothing.pending")
    approve_and_start(turn, plan, confirmation, rows=rows)


def reask_expired(turn: Turn, confirmation: Confirmation) -> None:
    """After expiry: say so and ask again with a fresh plan and policy decision (§17)."""
    if turn.conversation.active_operation and str(turn.conversation.active_operation.get("confirmation_id")) != str(
            confirmation.pk):
        rest(turn)
        return turn.error("NOTHING_PENDING", "nothing.pending")
    state = dict(confirmation.intent)
    state["id"] = str(uuid.uuid4())
    plan_and_decide(turn, state, lead=turn.say("confirmation.expired"))
    if turn.response and turn.response.get("type") == "confirmation":
        turn.response["error"] = {"code": "CONFIRMATION_EXPIRED", "detail": turn.say("confirmation.expired")}


def stale_context(turn: Turn, confirmation: Confirmation) -> bool:
    """The UI selection moved since the plan was prepared: keep the plan's target and ask first (§29)."""
    snapshot = confirmation.ui_snapshot or {}
    current = (turn.conversation.context or {}).get("selection") or {}
    if confirmation.stale_warned or not snapshot or not current:
        return False
    if (snapshot.get("type"), str(snapshot.get("id"))) == (current.get("type"), str(current.get("id"))):
        return False
    Confirmation.objects.for_tenant(turn.tenant).filter(pk=confirmation.pk).update(stale_warned=True)
    confirmation.stale_warned = True
    target = next((a for a in confirmation.affected if a.get("type") == snapshot.get("type")), None) or snapshot
    turn.event("STALE_CONTEXT_DETECTED", {"confirmation_id": str(confirmation.pk),
                                          "planned": {"type": snapshot.get("type"), "id": str(snapshot.get("id"))},
                                          "selected": {"type": current.get("type"), "id": str(current.get("id"))}},
               operation_id=confirmation.operation_id)
    turn.go(Status.CONFIRMATION_REQUIRED)
    from .state import confirmation_view

    nouns = turn.nouns(str(target.get("type") or snapshot.get("type")))
    turn.reply("confirmation", "stale.context", values={"label": target.get("label"), **nouns},
               confirmation=confirmation_view(confirmation),
               error={"code": "STALE_CONTEXT", "detail": turn.say("stale.context", label=target.get("label"),
                                                                   **nouns)})
    return True


def decline(turn: Turn) -> None:
    confirmation = pending_confirmation(turn)
    if confirmation is None:
        if pending_clarification(turn) is not None:
            return cancel(turn)
        rest(turn)
        return turn.error("NOTHING_PENDING", "nothing.pending")
    _cancel_confirmation(turn, confirmation, PendingStatus.DECLINED)
    turn.reply("answer", "confirmation.declined", values={})


def _cancel_confirmation(turn: Turn, confirmation: Confirmation, status: str) -> None:
    Confirmation.objects.for_tenant(turn.tenant).filter(pk=confirmation.pk).update(status=status,
                                                                                    decided_at=turn.now)
    confirmation.status = status
    plan = plan_for(turn, confirmation)
    if plan is not None:
        try:
            plan_status_set(plan=plan, status="cancelled")
        except IllegalTransition:
            pass
    operation = turn.conversation.active_operation or {}
    operation["status"] = "cancelled"
    turn.conversation.active_operation = operation
    turn.go(Status.CANCELLED)
    turn.event("EXECUTION_CANCELLED", {"confirmation_id": str(confirmation.pk), "plan_id": str(confirmation.plan_id),
                                       "before_execution": True}, operation_id=confirmation.operation_id)


# --- cancel, undo, retry, resume -------------------------------------------------------------


def cancel(turn: Turn) -> None:
    confirmation = pending_confirmation(turn)
    if confirmation is not None:
        _cancel_confirmation(turn, confirmation, PendingStatus.CANCELLED)
        return turn.reply("answer", "cancel.done", values={})
    clarification = pending_clarification(turn)
    if clarification is not None:
        _close_clarification(turn, clarification, PendingStatus.CANCELLED)
        turn.go(Status.CANCELLED)
        turn.event("EXECUTION_CANCELLED", {"clarification_id": str(clarification.pk), "before_execution": True})
        return turn.reply("answer", "clarification.cancelled", values={})
    operation = turn.conversation.active_operation or {}
    if turn.resting_before in (Status.EXECUTING, Status.CANCELLING) and operation.get("execution_id"):
        return cancel_running(turn, operation)
    rest(turn)
    turn.error("NOTHING_PENDING", "nothing.to_cancel")


def cancel_running(turn: Turn, operation: dict[str, Any]) -> None:
    from execution.models import Execution, StepRun
    from execution.services import execution_cancel
    from planning.models import PlanStep

    execution = Execution.objects.for_tenant(turn.tenant).filter(pk=operation["execution_id"]).first()
    if execution is None or execution.finished_at is not None:
        rest(turn)
        return turn.error("NOTHING_PENDING", "nothing.to_cancel")
    pending = set(StepRun.objects.for_tenant(turn.tenant).filter(execution=execution, status="pending")
                  .values_list("step_id", flat=True))
    capabilities = PlanStep.objects.for_tenant(turn.tenant).filter(plan=execution.plan_id, step_id__in=pending) \
        .values_list("capability_id", flat=True)
    cancellable = bool(pending) and all(
        (spec := turn.snapshot.get(c, tenant=turn.tenant)) is not None and spec.cancellable for c in capabilities)
    if not cancellable:
        turn.go(Status.EXECUTING)
        return turn.reply("answer", "cancel.not_cancellable", values={})
    turn.go(Status.CANCELLING)
    execution_cancel(execution_id=execution.pk, tenant=turn.tenant, actor=turn.user, reason="user")
    turn.reply("execution", "cancel.running", values={},
               execution={"id": str(execution.pk), "status": "cancelled", "steps": []})


def undo(turn: Turn) -> None:
    from .undo import undo_request

    undo_request(turn)


def retry(turn: Turn) -> None:
    """A failed operation again (§41): re-validated as a new plan; a still-valid soft confirmation of the
    same plan hash is reused, anything stronger is asked again (invariant 4)."""
    operation = turn.conversation.active_operation or {}
    last = turn.conversation.last_result or {}
    failed = turn.resting_before == Status.FAILED or last.get("status") in ("failed", "compensated")
    if not failed or not operation.get("intent"):
        rest(turn)
        return turn.error("NOTHING_PENDING", "nothing.to_retry")
    state = dict(operation["intent"])
    state["id"] = str(uuid.uuid4())
    for _name, values in (state.get("slots") or {}).items():
        for value in values:
            entity = value.get("entity")
            if entity and turn.reader.read_capability(str(entity.get("type"))):
                if turn.reader.entity(str(entity.get("type")), value.get("value")) is None:
                    rest(turn)
                    return turn.error("NOT_FOUND", "clarify.entity_not_found", number=value.get("label"),
                                      **turn.nouns(str(entity.get("type"))))
    action = str(operation.get("summary") or "")
    plan_and_decide(turn, state, reuse_soft_of=operation.get("confirmation_id"),
                    lead=turn.say("retry.asks_again", action=action) if action else "")


def resume(turn: Turn) -> None:
    confirmation = pending_confirmation(turn)
    if confirmation is not None:
        from .state import confirmation_view

        turn.go(Status.CONFIRMATION_REQUIRED)
        return turn.reply("confirmation", confirmation.template, message=confirmation_question(turn, confirmation),
                          confirmation=confirmation_view(confirmation))
    clarification = pending_clarification(turn)
    if clarification is not None:
        turn.go(Status.CLARIFICATION_REQUIRED)
        return turn.reply("clarification", clarification.template, message=clarification.question,
                          clarification=clarification_view(clarification))
    if turn.resting_before == Status.FAILED:
        return retry(turn)
    rest(turn)
    turn.error("NOTHING_PENDING", "nothing.to_resume")


def confirmation_question(turn: Turn, confirmation: Confirmation) -> str:
    return messages.say(confirmation.template, turn.language, action=confirmation.summary,
                        risk=messages.RISK_WORDS[turn.language].get(confirmation.risk, confirmation.risk),
                        affected=messages.join_list([str(a.get("label")) for a in confirmation.affected],
                                                    turn.language))


# --- correction ------------------------------------------------------------------------------


def correction(turn: Turn, remainder: list[str]) -> None:
    """"não, a da Beta" / "é a 456" / "quero Trabalho a Quente": change the pending or last intent (§19-§20,
    §48-§49); the earlier confirmation is invalidated and policy runs again."""
    from .corrections import correction_apply

    correction_apply(turn, remainder)


__all__ = ["handle", "invalidate_pending"]
