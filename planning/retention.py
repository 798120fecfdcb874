"""Redacting what users typed from stored plans (LGPD retention, conversations/retention.py).

A plan keeps a copy of the intent it was built from, with the sentence that asked for it (`text`).
Only that text goes; the plan's steps, hash, status and every id stay (the hash never covered it).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tenancy.models import Tenant
from tenancy.retention import REDACTED, Batch, redact_in_batches, redacted_key

from .models import ExecutionPlan


def _redact_intent_text(plan: ExecutionPlan) -> bool:
    redacted = redacted_key(plan.intent)
    if redacted == plan.intent:
        return False
    plan.intent = redacted
    return True


def plan_texts_redact(*, tenant: Tenant, before: datetime, after: Any = None, limit: int = 500) -> Batch:
    """Replace the intent text of up to `limit` of the tenant's plans created before `before`."""
    rows = (ExecutionPlan.objects.for_tenant(tenant)
            .filter(created_at__lt=before, intent__has_key="text").exclude(intent__text__in=[REDACTED, ""]))
    return redact_in_batches(rows, fields=["intent"], rewrite=_redact_intent_text, after=after, limit=limit)
