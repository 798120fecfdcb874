"""Redacting what users typed from the event log (LGPD retention, conversations/retention.py).

Events are append-only; the one change the database allows is the maintainer setting a payload's
`text` to the marker, within the maintainer window (events/migrations/0005). Only the text goes:
id, type, seq, actor, timestamps and every other payload key stay as they were.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tenancy.models import Tenant
from tenancy.retention import REDACTED, Batch, redact_in_batches

from .models import ConversationEvent


def _redact_payload_text(event: ConversationEvent) -> bool:
    payload = event.payload
    if not isinstance(payload, dict) or payload.get("text") in (None, "", REDACTED):
        return False
    event.payload = {**payload, "text": REDACTED}  # the key keeps its place: only its value differs
    return True


def event_texts_redact(*, tenant: Tenant, before: datetime, after: Any = None, limit: int = 500) -> Batch:
    """Replace the `text` of up to `limit` of the tenant's events older than `before` by the marker.

    Inside `tenancy.db.purge_window()` (the caller's transaction): elsewhere the trigger refuses."""
    rows = (ConversationEvent.objects.for_tenant(tenant)
            .filter(timestamp__lt=before, payload__has_key="text").exclude(payload__text__in=[REDACTED, ""]))
    return redact_in_batches(rows, fields=["payload"], rewrite=_redact_payload_text, after=after, limit=limit)
