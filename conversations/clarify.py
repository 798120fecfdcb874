"""Asking a clarification (PRD-010 §13-§14): which of the candidates, a value that was not found, or
the missing field — the one question every handler asks when an intent is incomplete. Answering
it is clarification.py's handler.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from django.conf import settings

from . import messages
from .flow import pending_clarification, rest
from .models import Clarification, PendingStatus
from .reads import entity_ref
from .state import clarification_view, situation_for
from .statemachine import Status
from .turns import Turn
from .understanding import Extraction, Extractor


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
        if slot is not None and slot.parse == "reference":  # the options shown: "a segunda" next picks (ordinals.py)
            listed = [dict(c["entity"], type=slot.type) for c in candidates]
            turn.conversation.context = {**(turn.conversation.context or {}), "listed": listed}
        if slot is not None and slot.parse == "reference" and collide:  # "2 <entidades> 340: …"
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
    elif extraction.invalid:
        slot_name, bad = next(iter(extraction.invalid.items()))
        question, template = _invalid_question(turn, cap, slot_name, bad, extraction), "clarify.invalid_number"
        missing = [slot_name]
    else:
        slot_name = extraction.missing[0]
        slot = cap.slot(slot_name)
        if slot_name == "source" or (slot is not None and slot.parse == "reference"):
            entity = slot.type if slot is not None else cap.entity
            question, template = turn.say("clarify.missing_entity", **turn.nouns(entity)), "clarify.missing_entity"
        else:
            question, template = _missing_question(turn, cap, slot, slot_name, extraction), "clarify.missing"
            if slot is not None and slot.resolver:
                # The children of the entity already named ("o <item> da <entidade> 51"), else the catalog.
                items = Extractor(grammar=turn.grammar, reader=turn.reader, situation=situation_for(turn.conversation),
                                  text=turn.text, language=turn.language).catalog(slot, extraction)
                label = str(slot.resolver.get("label", "name"))
                value_key = str(slot.resolver.get("value", "id"))
                if 0 < len(items) <= 8:
                    candidates = [{"id": str(i.get("id")), "label": str(i.get(label)), "slot": slot_name,
                                   "value": i.get(value_key), "entity": entity_ref(slot.type, i, label_field=label)}
                                  for i in items]
        missing = list(extraction.missing)
    clarification_open(turn, state, question=question, template=template, missing=missing, candidates=candidates)


def _invalid_question(turn: Turn, cap: Any, slot_name: str, bad: Mapping[str, Any], extraction: Extraction) -> str:
    """"-5 is not a valid value for <field> of <entity> 312: it cannot be negative." — a number is never changed
    silently, and the item it was meant for is named (a value computed from its own says whose)."""
    problem = str(bad.get("problem"))
    if problem == "range" and bad.get("maximum") is None:
        problem = "range_min"
    why = turn.say(f"number.{problem}", minimum=bad.get("minimum", 0), maximum=bad.get("maximum"))
    field = _slot_term(turn, cap.slot(slot_name), slot_name)
    found = _item_of(cap, extraction)
    if found is not None:  # "<campo> da <entidade> 312", "<field> of <entity> 312"
        of = turn.nouns(found[0])["of_noun"]  # ("da <entidade>" / "<entity>")
        field = f"{field} {'of ' if turn.language.startswith('en') else ''}{of} {found[1].label}"
    return turn.say("clarify.invalid_number", said=bad.get("said"), field=field, why=why)


def _missing_question(turn: Turn, cap: Any, slot: Any, slot_name: str, extraction: Extraction) -> str:
    """"Qual data você deseja para a <entidade> 57?": the value asked for, and the item it is for when one is
    known — the user sees which item the answer will change (a reply that names none left them guessing)."""
    field, found = _slot_term(turn, slot, slot_name), _item_of(cap, extraction)
    if found is None:
        return turn.say("clarify.missing", field=field)
    return turn.say("clarify.missing_for", field=field, target=f"{turn.nouns(found[0])['noun']} {found[1].label}")


def _item_of(cap: Any, extraction: Extraction) -> tuple[str, Any] | None:
    """(type, value) of the item the write is for that the extraction found (said, in focus or selected): one of the
    capability's own entity first, else its parent (a child's write: "Which <field> do you want for <entity> 57?")."""
    return next(((s.type, v[0]) for s in sorted(cap.slots, key=lambda s: s.type != cap.entity)
                 if s.parse == "reference" and (v := extraction.values.get(s.name))), None)


def clarification_open(turn: Turn, state: Mapping[str, Any], *, question: str, template: str, missing: list[str],
                       candidates: list[dict[str, Any]]) -> None:
    conversation = turn.conversation
    previous = pending_clarification(turn)
    if previous is not None:
        Clarification.objects.for_tenant(turn.tenant).filter(pk=previous.pk).update(
            status=PendingStatus.INVALIDATED, closed_at=turn.now)
        previous.status = PendingStatus.INVALIDATED
    ttl = int(settings.AGENT_CLARIFICATION_TTL_SECONDS)
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
