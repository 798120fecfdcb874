"""The Conversation Context Package (PRD-010 §36): the compact JSON an LLM is given — never the
history. Topic, active entity and tab, the operation in progress, pending clarification or
confirmation, the last result, recent references and the UI context; ids and labels only.
"""

from __future__ import annotations

from typing import Any


def _ref(ref: Any) -> dict[str, Any] | None:
    if not isinstance(ref, dict):
        return None
    return {k: ref.get(k) for k in ("type", "id", "label") if ref.get(k) is not None}


def context_package(turn: Any) -> dict[str, Any]:
    conversation = turn.conversation
    context = conversation.context or {}
    operation = conversation.active_operation or {}
    pending = conversation.pending_confirmation
    clarification = conversation.pending_clarification
    last = conversation.last_result or {}
    ui = conversation.last_ui_context or {}
    topic = context.get("topic") or {}
    return {
        "topic": {"words": topic.get("words"), "entity": _ref(topic.get("entity"))} if topic else None,
        "active_entity": _ref(context.get("active_entity")),
        "active_tab": context.get("active_tab"),
        "operation": {"capability": operation.get("capability"), "status": operation.get("status")}
        if operation else None,
        "pending_confirmation": {"summary": pending.summary, "level": pending.level}
        if pending is not None and pending.status == "PENDING" else None,
        "pending_clarification": {"question": clarification.question, "missing": clarification.missing_fields}
        if clarification is not None and clarification.status == "PENDING" else None,
        "last_result": {"capability": last.get("capability"), "status": last.get("status"),
                        "created": [_ref(c) for c in last.get("created") or []]} if last else None,
        "recent": [_ref(r) for r in (context.get("recent_entities") or [])[:5]],
        "ui": {"page": (ui.get("page") or {}).get("id") if isinstance(ui.get("page"), dict) else ui.get("page"),
               "tab": (ui.get("tab") or {}).get("id") if isinstance(ui.get("tab"), dict) else None,
               "focus": ui.get("focus"), "selection": _ref(context.get("selection"))},
    }
