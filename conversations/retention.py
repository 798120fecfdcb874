"""Retention of message text (LGPD, issue #16 item 6): after N days what a user typed is replaced by
the marker "[redacted]" everywhere it was stored; ids, decisions, receipts and audit rows stay.

Where the words of a message are kept, and what happens to them here:
- the event log: MESSAGE_RECEIVED's payload `text` (events.retention — the only UPDATE its trigger
  allows, and only to the maintainer);
- a turn row: `text`, and the `payload.text` of the events its stored response carries;
- the IntentState copies, whose `text` is the sentence that asked: the conversation's
  `active_intent`, `active_operation.intent`, `last_result.intent` (and any `intent` in its
  `last_response`), each clarification's and confirmation's `intent`, and each plan's `intent`
  (planning.retention).
A conversation is redacted once it has not changed for N days; every other row once it is older.

`message_texts_redact` runs per tenant, in rounds of at most `batch_size` rows of each kind; a round is
one transaction inside the maintainer window (tenancy.db.purge_window) that also writes the tenant's
audit row (what, how many, cutoff, by whom). A run ends with one audit row of its own (the tenant's
when run for one tenant, else platform-wide). Idempotent: redacted rows are not selected again.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from events.retention import event_texts_redact
from planning.retention import plan_texts_redact
from policy.audit import audit_record
from tenancy.db import purge_window
from tenancy.models import Tenant
from tenancy.retention import REDACTED, Batch, maintainer_window_check, redact_in_batches, redacted_key

from .models import Clarification, Confirmation, Conversation, Turn

AUDIT_ROUND = "retention.message_text.redacted"
AUDIT_RUN = "retention.message_text.run"
_NOT_REDACTED = [REDACTED, ""]


@dataclass
class RedactionRun:
    run_id: str
    days: int
    cutoff: datetime | None  # None: retention is off (keep forever), nothing was read or written
    counts: Counter = field(default_factory=Counter)  # kind → rows redacted
    tenants: int = 0  # tenants with at least one row redacted

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def _events_in(response: Any) -> Any:
    """A stored turn response with the text of the events it carries redacted."""
    if not isinstance(response, dict) or not isinstance(response.get("events"), list):
        return response
    events = [{**e, "payload": {**e["payload"], "text": REDACTED}}
              if isinstance(e, dict) and isinstance(e.get("payload"), dict) and e["payload"].get("text")
              else e for e in response["events"]]
    return {**response, "events": events}


def _rewrite(obj: Any, name: str, value: Any) -> bool:
    if value == getattr(obj, name):
        return False
    setattr(obj, name, value)
    return True


def _turn(turn: Turn) -> bool:
    changed = _rewrite(turn, "response", _events_in(turn.response))
    return _rewrite(turn, "text", REDACTED) or changed


def _intents_in(value: Any) -> Any:
    """`value` with the text of every IntentState it holds (under an `intent` key) redacted."""
    if isinstance(value, dict):
        return {k: redacted_key(v) if k == "intent" else _intents_in(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_intents_in(item) for item in value]
    return value


def _conversation(conversation: Conversation) -> bool:
    changed = [_rewrite(conversation, "active_intent", redacted_key(conversation.active_intent)),
               _rewrite(conversation, "active_operation", _intents_in(conversation.active_operation)),
               _rewrite(conversation, "last_result", _intents_in(conversation.last_result)),
               _rewrite(conversation, "last_response", _events_in(_intents_in(conversation.last_response)))]
    return any(changed)


def _intent(row: Clarification | Confirmation) -> bool:
    return _rewrite(row, "intent", redacted_key(row.intent))


def turn_texts_redact(*, tenant: Tenant, before: datetime, after: Any = None, limit: int = 500) -> Batch:
    rows = Turn.objects.for_tenant(tenant).filter(created_at__lt=before).exclude(text__in=_NOT_REDACTED)
    return redact_in_batches(rows, fields=["text", "response"], rewrite=_turn, after=after, limit=limit)


def conversation_texts_redact(*, tenant: Tenant, before: datetime, after: Any = None, limit: int = 500) -> Batch:
    # `updated_at` in the UPDATE's WHERE too: a turn that touched the conversation meanwhile wins.
    waiting = Q()
    for column in ("active_intent", "active_operation__intent", "last_result__intent"):
        waiting |= Q(**{f"{column}__has_key": "text"}) & ~Q(**{f"{column}__text__in": _NOT_REDACTED})
    rows = Conversation.objects.for_tenant(tenant).filter(waiting, updated_at__lt=before)
    fields = ["active_intent", "active_operation", "last_result", "last_response"]
    return redact_in_batches(rows, fields=fields, rewrite=_conversation, after=after, limit=limit)


def clarification_texts_redact(*, tenant: Tenant, before: datetime, after: Any = None, limit: int = 500) -> Batch:
    rows = (Clarification.objects.for_tenant(tenant).filter(created_at__lt=before, intent__has_key="text")
            .exclude(intent__text__in=_NOT_REDACTED))
    return redact_in_batches(rows, fields=["intent"], rewrite=_intent, after=after, limit=limit)


def confirmation_texts_redact(*, tenant: Tenant, before: datetime, after: Any = None, limit: int = 500) -> Batch:
    rows = (Confirmation.objects.for_tenant(tenant).filter(created_at__lt=before, intent__has_key="text")
            .exclude(intent__text__in=_NOT_REDACTED))
    return redact_in_batches(rows, fields=["intent"], rewrite=_intent, after=after, limit=limit)


KINDS: dict[str, Callable[..., Batch]] = {
    "events": event_texts_redact, "turns": turn_texts_redact, "plans": plan_texts_redact,
    "clarifications": clarification_texts_redact, "confirmations": confirmation_texts_redact,
    "conversations": conversation_texts_redact,
}


def message_texts_redact(*, by: str, actor: Any = None, days: int | None = None, tenant: Tenant | None = None,
                         now: datetime | None = None, batch_size: int = 500) -> RedactionRun:
    """Redact the message texts older than `days` (default AGENT_MESSAGE_TEXT_RETENTION_DAYS; 0 keeps
    them forever) of `tenant`, or of every tenant. `by` names who ran it (the beat task, a command)."""
    days = settings.AGENT_MESSAGE_TEXT_RETENTION_DAYS if days is None else days
    run = RedactionRun(run_id=str(uuid.uuid4()), days=days, cutoff=None)
    if days <= 0:
        return run
    if batch_size < 1:
        raise ValueError("batch_size must be >= 1")
    maintainer_window_check()
    run.cutoff = (now or timezone.now()) - timedelta(days=days)
    for each in [tenant] if tenant is not None else list(Tenant.objects.order_by("pk")):
        counts = _tenant_redact(run, each, by=by, actor=actor, batch_size=batch_size)
        run.counts.update(counts)
        run.tenants += bool(sum(counts.values()))
    with transaction.atomic():
        audit_record(tenant=tenant, actor=actor, event_type=AUDIT_RUN, target_type="tenant" if tenant else "platform",
                     target_id=str(tenant.pk) if tenant else "", extra=_audit_data(run, by, run.counts, run.tenants))
    return run


def _tenant_redact(run: RedactionRun, tenant: Tenant, *, by: str, actor: Any, batch_size: int) -> Counter:
    after: dict[str, Any] = dict.fromkeys(KINDS)
    left = list(KINDS)
    total: Counter = Counter()
    while left:
        with purge_window():  # one transaction: this round's rows and the audit row that records them
            counts: Counter = Counter()
            for kind in list(left):
                batch = KINDS[kind](tenant=tenant, before=run.cutoff, after=after[kind], limit=batch_size)
                counts[kind] += batch.changed
                after[kind] = batch.after
                if batch.after is None:
                    left.remove(kind)
            if sum(counts.values()):
                audit_record(tenant=tenant, actor=actor, event_type=AUDIT_ROUND, target_type="tenant",
                             target_id=str(tenant.pk), extra=_audit_data(run, by, counts))
        total.update(counts)
    return total


def _audit_data(run: RedactionRun, by: str, counts: Counter, tenants: int | None = None) -> dict[str, Any]:
    data = {"run_id": run.run_id, "by": by, "days": run.days, "cutoff": run.cutoff.isoformat() if run.cutoff else None,
            "marker": REDACTED, "counts": {kind: counts.get(kind, 0) for kind in KINDS}}
    if tenants is not None:
        data["tenants"] = tenants
    return data
