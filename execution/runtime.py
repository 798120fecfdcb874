"""What a step needs around the Tool Runtime: a reusable session per (user, tenant) in this process,
and navigation instructions built from the capability's `navigation` block. The fresh facts about
a step's (or a whole plan's) targets are read under the envelope: execution/facts.py.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

from django.contrib.auth import get_user_model

from registry.selectors import CapabilitySpec
from tenancy.models import Tenant

from .tool_runtime import TOKEN_TTL, ToolSession

_local = threading.local()
# A session's token lives TOKEN_TTL; reuse it for well under that.
_SESSION_REUSE_S = TOKEN_TTL.total_seconds() / 3


def session_for(*, user_id: int, tenant: Tenant) -> ToolSession:
    """One ToolSession per (user, tenant) per thread, renewed before its token expires."""
    sessions: dict[tuple[int, Any], tuple[float, ToolSession]] = getattr(_local, "sessions", None) or {}
    _local.sessions = sessions
    key = (user_id, tenant.pk)
    cached = sessions.get(key)
    if cached and time.monotonic() - cached[0] < _SESSION_REUSE_S:
        return cached[1]
    if cached:
        cached[1].close()
    session = ToolSession(user=get_user_model().objects.get(pk=user_id), tenant=tenant)
    sessions[key] = (time.monotonic(), session)
    return session


def sessions_close() -> None:
    for _, session in (getattr(_local, "sessions", None) or {}).values():
        session.close()
    _local.sessions = {}


def navigation_instruction(spec: CapabilitySpec, values: Mapping[str, Any], *, label: str | None) -> dict[str, Any]:
    """`{route, entity: {type, id, label}, tab}` from the capability's declared route; no URL by hand."""
    nav = spec.navigation or {}
    route = str(nav.get("route", "")).format_map({k: str(v) for k, v in values.items()})
    id_field = next((f for f in spec.input_schema.get("required", []) if f.endswith("_id")), None)
    entity_id = values.get(id_field) if id_field else None
    tab_field = nav.get("tab")
    return {"route": route, "entity": {"type": nav.get("entity"), "id": str(entity_id) if entity_id is not None
                                       else None, "label": label},
            "tab": values.get(tab_field) if tab_field else None}
