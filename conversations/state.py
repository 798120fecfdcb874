"""The conversation's structured context (§8): UI context validation, active entity, recent
entities, topic, and the state document the API returns.

The UI context is the client's claim, never trusted (§54): a selection is kept only after a
server-side read as the authenticated user finds it; one the user may not see is dropped and
never echoed. A company filter is kept only when it names one of the tenant's companies.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .lexicon import tokens
from .models import Clarification, Confirmation, Conversation, PendingStatus
from .reads import Reader, entity_ref
from .understanding import Hints, Situation

RECENT_LIMIT = 10


def ui_sanitize(raw: Any) -> dict[str, Any]:
    """Keep only API.md's ui_context keys, as plain JSON of bounded size."""
    if not isinstance(raw, Mapping):
        return {}
    keep = ("applicationId", "route", "page", "tab", "focus", "selection", "filters", "visibleArea")
    clean: dict[str, Any] = {}
    for key in keep:
        value = raw.get(key)
        if value is None:
            continue
        if isinstance(value, str):
            clean[key] = value[:300]
        elif isinstance(value, Mapping):
            clean[key] = {str(k)[:60]: (v[:300] if isinstance(v, str) else v) for k, v in list(value.items())[:20]
                          if isinstance(v, str | int | float | bool | type(None) | list)}
    return clean


def ui_validate(ui: Mapping[str, Any], reader: Reader) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """(selection entity ref, company filter) the user may actually see; anything else is dropped."""
    selection = None
    raw = ui.get("selection") if isinstance(ui.get("selection"), Mapping) else None
    if raw and raw.get("entityType") and raw.get("entityId") is not None:
        body = reader.entity(str(raw["entityType"]), raw["entityId"])
        if body is not None:
            selection = entity_ref(str(raw["entityType"]), body, label_field=_label_field(reader, raw["entityType"]))
    company = None
    filters = ui.get("filters") if isinstance(ui.get("filters"), Mapping) else {}
    wanted = filters.get("company")
    if wanted not in (None, ""):
        slot = _company_slot(reader)
        items = reader.catalog(slot) if slot else []
        company = next((dict(c) for c in items if str(c.get("id")) == str(wanted)
                        or tokens(str(c.get("name"))) == tokens(str(wanted))), None)
    return selection, company


def _label_field(reader: Reader, entity_type: str) -> str:
    for cap in reader.grammar.capabilities.values():
        for slot in cap.slots:
            if slot.type == entity_type and slot.resolver:
                return str(slot.resolver.get("label", "name"))
    return "name"


def _company_slot(reader: Reader):
    for cap in reader.grammar.capabilities.values():
        for slot in cap.slots:
            if slot.type == "company" and slot.resolver:
                return slot
    return None


def situation_for(conversation: Conversation) -> Situation:
    context = conversation.context or {}
    last = conversation.last_result or {}
    created = [c for c in last.get("created") or [] if isinstance(c, Mapping)]
    return Situation(
        selection=context.get("selection"),
        selection_fresh=int(context.get("selection_version") or 0) >= int(context.get("active_version") or 0),
        active=context.get("active_entity"),
        created=created,
        recent=list(context.get("recent_entities") or []),
        filter_company=context.get("filter_company"),
        listed=list(context.get("listed") or []),
    )


def hints_for(conversation: Conversation, *, with_topic: bool) -> Hints:
    context = conversation.context or {}
    focus = (conversation.last_ui_context or {}).get("focus") or {}
    words: list[str] = []
    if isinstance(focus, Mapping):
        words = tokens(str(focus.get("label") or ""))
    topic = context.get("topic") or {}
    # the type of the list just answered first: "abre a segunda" picks one of its items (ordinals.py)
    listed = (context.get("listed") or [{}])[:1]
    refs = [*listed, context.get("selection") or {}, context.get("active_entity") or {},
            *(context.get("recent_entities") or [])]
    in_focus = tuple(dict.fromkeys(str(r.get("type")) for r in refs if isinstance(r, Mapping) and r.get("type")))
    return Hints(focus_field=str(focus.get("fieldName")) if isinstance(focus, Mapping) and focus.get("fieldName")
                 else None, focus_words=words, topic_words=list(topic.get("words") or []) if with_topic else [],
                 entity_types=in_focus, last_asked=_last_asked(context), asked_field=_asked_field(context))


def _last_asked(context: Mapping[str, Any]) -> str | None:
    """The capability of the last read asked, or the entity type of the last field question."""
    request = context.get("last_request")
    if not isinstance(request, Mapping):
        return None
    return str(request.get("capability") or request.get("type") or "") or None


def _asked_field(context: Mapping[str, Any]) -> str | None:
    request = context.get("last_request")
    if not isinstance(request, Mapping) or request.get("kind") != "field":
        return None
    return str(request.get("field") or "") or None


def entity_activate(conversation: Conversation, ref: Mapping[str, Any], *, version: int) -> None:
    """Make `ref` the active entity and the most recent one (§8 recentEntities)."""
    context = dict(conversation.context or {})
    ref = dict(ref)
    context["active_entity"] = ref
    context["active_version"] = version
    recent = [r for r in context.get("recent_entities") or []
              if (r.get("type"), str(r.get("id"))) != (ref.get("type"), str(ref.get("id")))]
    context["recent_entities"] = [ref, *recent][:RECENT_LIMIT]
    conversation.context = context


def entity_remember(conversation: Conversation, ref: Mapping[str, Any]) -> None:
    context = dict(conversation.context or {})
    recent = [r for r in context.get("recent_entities") or []
              if (r.get("type"), str(r.get("id"))) != (ref.get("type"), str(ref.get("id")))]
    context["recent_entities"] = [dict(ref), *recent][:RECENT_LIMIT]
    conversation.context = context


def confirmation_view(confirmation: Confirmation | None) -> dict[str, Any] | None:
    if confirmation is None:
        return None
    return {"id": str(confirmation.pk), "plan_id": str(confirmation.plan_id), "risk": confirmation.risk,
            "level": confirmation.level, "summary": confirmation.summary, "affected": confirmation.affected,
            "expires_at": confirmation.expires_at.isoformat(), "status": confirmation.status}


def clarification_view(clarification: Clarification | None) -> dict[str, Any] | None:
    if clarification is None:
        return None
    return {"id": str(clarification.pk), "question": clarification.question,
            "missing_fields": clarification.missing_fields,
            "candidates": [{"id": str(c.get("id")), "label": c.get("label")} for c in clarification.candidates],
            "expires_at": clarification.expires_at.isoformat(), "attempts": clarification.attempts,
            "status": clarification.status}


def state_view(conversation: Conversation) -> dict[str, Any]:
    """GET /agent/conversations/{id}: everything a client (or the scenario runner) needs."""
    context = conversation.context or {}
    confirmation = conversation.pending_confirmation
    clarification = conversation.pending_clarification
    pending = confirmation if confirmation is not None and confirmation.status == PendingStatus.PENDING else None
    asked = clarification if clarification is not None and clarification.status == PendingStatus.PENDING else None
    return {
        "id": str(conversation.pk), "status": conversation.status, "version": conversation.version,
        "language": conversation.language,
        "active_entity": context.get("active_entity"), "active_tab": context.get("active_tab"),
        "active_intent": conversation.active_intent, "active_operation": conversation.active_operation,
        "pending_clarification": clarification_view(asked), "pending_confirmation": confirmation_view(pending),
        "last_result": conversation.last_result, "topic": context.get("topic"),
        "recent_entities": context.get("recent_entities") or [],
        "last_response": conversation.last_response,
        "created_at": conversation.created_at.isoformat(), "updated_at": conversation.updated_at.isoformat(),
    }
