"""`audit_record`: the one writer of AuditEvent, for every app.

Call it inside the transaction of the change it records, so both commit or neither does. The
row is append-only (a trigger refuses UPDATE; DELETE/TRUNCATE need the maintainer role).
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from tenancy.models import Tenant

from .canonical import canonical_json
from .models import AuditEvent


def _jsonable(value: Any) -> Any:
    """Old/new values must be JSON; refuse silently-lossy values early (and keep them canonical)."""
    canonical_json(value)
    return value


def audit_record(*, tenant: Tenant | None, actor: Any, event_type: str, target_type: str, target_id: str = "",
                 old: Any = None, new: Any = None, extra: dict[str, Any] | None = None) -> AuditEvent:
    """Record who changed what (old → new). `tenant=None` only for platform-wide changes.

    One INSERT, atomic by itself: inside the caller's transaction it commits or rolls back with the
    change it describes (no savepoint of its own)."""
    event = audit_event(tenant=tenant, actor=actor, event_type=event_type, target_type=target_type,
                        target_id=target_id, old=old, new=new, extra=extra)
    event.save(force_insert=True)
    return event


def audit_event(*, tenant: Tenant | None, actor: Any, event_type: str, target_type: str, target_id: str = "",
                old: Any = None, new: Any = None, extra: dict[str, Any] | None = None) -> AuditEvent:
    """The audit row, not yet written (for a caller that writes it together with its change)."""
    return AuditEvent(
        tenant=tenant,
        actor=actor if getattr(actor, "pk", None) else None,
        event_type=event_type,
        target_type=target_type,
        target_id=str(target_id),
        data=_jsonable({"old": old, "new": new, **(extra or {})}),
        created_at=timezone.now(),
    )
