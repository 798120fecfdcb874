"""Navigation (known navigation capabilities): open an entity's page or one of its tabs, after
policy allowed it; the entity becomes the active one and the page the last navigation (which a
correction may change)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from execution.runtime import navigation_instruction
from policy.services import evaluate

from . import messages
from .clarify import clarify
from .ellipsis import remember_capability
from .flow import clarification_drop, rest
from .grammar import CapabilityGrammar
from .intents import intent_state, slot_values
from .reads import entity_ref
from .state import entity_activate
from .turns import Turn
from .understanding import Extraction


def navigate(turn: Turn, cap: CapabilityGrammar, extraction: Extraction, parts: list[str]) -> None:
    state = intent_state(capability=cap.id, values=extraction.values, text=turn.text, language=turn.language)
    if not extraction.complete:
        if set(extraction.missing) <= {"tab"} and not extraction.ambiguous and not extraction.not_found:
            pass
        else:
            return clarify(turn, state, extraction)
    navigate_state(turn, cap, state)


def navigate_state(turn: Turn, cap: CapabilityGrammar, state: Mapping[str, Any]) -> None:
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
    remember_capability(context, cap.id, state["slots"])  # "e a 311?" opens the next one
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
