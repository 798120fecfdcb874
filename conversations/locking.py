"""Taking a conversation for one turn: its row lock and everything the turn reads first, in one statement.

PostgreSQL: one SELECT … FOR UPDATE OF the conversation and its event stream returns the
conversation, its pending confirmation (with its plan and the plan's steps) and clarification, the
stream's last `seq` (locked, so the turn numbers its events itself and writes them with its last
statement) and the registry version — and, for a turn that will confirm (`live=True`), the live
policy state for the pending plan's capabilities (`policy.live.live_state_sql`), which the
confirmation's re-evaluation would otherwise read in a round trip of its own.
Written by hand because the ORM cannot lock two tables of a join or tell whether the lock waited.

Why the pending rows can be joined: they are not locked, so a joined row comes from the statement's
snapshot. If the lock had to wait for a racing turn, that turn may have decided the confirmation
after the snapshot — but every turn also bumps the conversation's version. The statement reads the
version twice: through the lock (the newest row) and in a subquery (its snapshot). Equal: nothing
committed in between, the joined rows are current. Different: they are read again, and the live
policy state read ahead is dropped (the confirmation reads it afresh); either way each step
re-checks it right before its call (invariant 3). Elsewhere
(SQLite) and for a conversation without a stream row yet, the ORM path of before.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from django.db import connection

from events.models import EventStream
from events.services import stream_open
from planning.models import PlanStep
from planning.selectors import plan_with_steps_from_json, plan_with_steps_sql
from policy.live import live_state_parse, live_state_sql
from registry.selectors import registry_version_sql
from tenancy.db import columns_sql, instance_from_row
from tenancy.models import Tenant

from .models import Clarification, Confirmation, Conversation, PendingStatus


class ConversationNotFound(LookupError):
    """Missing, another user's or another tenant's: the same 404."""


@dataclass
class Taken:
    conversation: Conversation
    last_seq: int | None  # the stream's, locked for the rest of the transaction (None: not read)
    registry_version: int | None  # None: not read here
    # The pending confirmation's plan and steps (None: not read here — read them when needed)
    plan: Any = None
    plan_steps: list[Any] | None = None
    live: Any = None  # policy.live.LiveRead for the pending plan, read ahead (None: not read here)


def conversation_take(*, tenant: Tenant, user: Any | None, conversation_id: uuid.UUID, live: bool = False) -> Taken:
    """`live`: also read the policy live state for a pending confirmation's plan (the user's own turn)."""
    live = live and user is not None
    if connection.vendor == "postgresql":
        taken = _take_one_statement(tenant, user, conversation_id, live)
        if taken is not None:
            return taken
        if not _exists(tenant, user, conversation_id):
            raise ConversationNotFound
        stream_open(tenant=tenant, conversation_id=conversation_id)  # a conversation from before streams
        taken = _take_one_statement(tenant, user, conversation_id, live)
        if taken is not None:
            return taken
    return Taken(_take_orm(tenant, user, conversation_id), None, None)


def _exists(tenant: Tenant, user: Any | None, conversation_id: uuid.UUID) -> bool:
    query = Conversation.objects.for_tenant(tenant).filter(pk=conversation_id)
    return (query.filter(user=user) if user is not None else query).exists()


@lru_cache(maxsize=4)
def _sql(by_user: bool, live: bool) -> str:
    conversation, stream = Conversation._meta.db_table, EventStream._meta.db_table
    keys = (f"ARRAY(SELECT DISTINCT k.capability_id FROM {PlanStep._meta.db_table} k "
            f"WHERE k.plan_id = p.plan_id ORDER BY 1)")
    # Only while the confirmation is pending: the only case the turn may start the plan.
    ahead = (f", CASE WHEN p.status = %s THEN "
             f"{live_state_sql(tenant_sql='c.tenant_id', user_sql='c.user_id', keys_sql=keys)} END"
             if live else ", NULL")
    return (
        f"SELECT {columns_sql(Conversation, 'c')}, {columns_sql(Confirmation, 'p')}, "
        f"{columns_sql(Clarification, 'q')}, "
        f"s.last_seq, (SELECT v.version FROM {conversation} v WHERE v.id = c.id), {registry_version_sql()}, "
        f"{plan_with_steps_sql('p.plan_id')}{ahead} "
        f"FROM {conversation} c "
        f"JOIN {stream} s ON s.conversation_id = c.id AND s.tenant_id = c.tenant_id "
        f"LEFT JOIN {Confirmation._meta.db_table} p ON p.id = c.pending_confirmation_id AND p.tenant_id = c.tenant_id "
        f"LEFT JOIN {Clarification._meta.db_table} q "
        f"ON q.id = c.pending_clarification_id AND q.tenant_id = c.tenant_id "
        f"WHERE c.tenant_id = %s AND c.id = %s{' AND c.user_id = %s' if by_user else ''} "
        f"FOR UPDATE OF c, s")


def _take_one_statement(tenant: Tenant, user: Any | None, conversation_id: uuid.UUID, live: bool) -> Taken | None:
    params = ([PendingStatus.PENDING.value] if live else []) + [tenant.pk, conversation_id] + (
        [user.pk] if user is not None else [])
    with connection.cursor() as cursor:
        cursor.execute(_sql(user is not None, live), params)
        row = cursor.fetchone()
    if row is None:
        return None
    sizes = [len(m._meta.concrete_fields) for m in (Conversation, Confirmation, Clarification)]
    conversation_values = row[:sizes[0]]
    confirmation_values = row[sizes[0]:sizes[0] + sizes[1]]
    clarification_values = row[sizes[0] + sizes[1]:sum(sizes)]
    last_seq, seen_version, registry, plan_text, steps_text, live_text = row[sum(sizes):]
    conversation = instance_from_row(Conversation, conversation_values)
    taken = Taken(conversation, int(last_seq), None if registry is None else int(registry))
    if seen_version != conversation.version:  # the lock waited for a turn: its decisions are newer
        _pending_read(conversation, tenant)
        return taken
    conversation.pending_confirmation = (instance_from_row(Confirmation, confirmation_values)
                                         if any(v is not None for v in confirmation_values) else None)
    conversation.pending_clarification = (instance_from_row(Clarification, clarification_values)
                                          if any(v is not None for v in clarification_values) else None)
    if plan_text and conversation.pending_confirmation is not None:
        plan, steps = plan_with_steps_from_json(plan_text, steps_text)
        if plan is not None and plan.tenant_id == tenant.pk:
            taken.plan, taken.plan_steps = plan, steps
            # Asked for the capabilities of these very step rows (same statement, same snapshot).
            taken.live = live_state_parse(live_text, tenant_id=conversation.tenant_id, user_id=conversation.user_id,
                                          keys={step.capability_id for step in steps})
    return taken


def _take_orm(tenant: Tenant, user: Any | None, conversation_id: uuid.UUID) -> Conversation:
    query = Conversation.objects.for_tenant(tenant).select_for_update(of=("self",)).filter(pk=conversation_id)
    if user is not None:
        query = query.filter(user=user)
    conversation = query.first()
    if conversation is None:
        raise ConversationNotFound
    _pending_read(conversation, tenant)
    return conversation


def _pending_read(conversation: Conversation, tenant: Tenant) -> None:
    """The pending rows in a statement of their own, after the lock (so a racing turn's decision is seen)."""
    conversation.pending_confirmation = (Confirmation.objects.for_tenant(tenant)
                                         .filter(pk=conversation.pending_confirmation_id).first()
                                         if conversation.pending_confirmation_id else None)
    conversation.pending_clarification = (Clarification.objects.for_tenant(tenant)
                                          .filter(pk=conversation.pending_clarification_id).first()
                                          if conversation.pending_clarification_id else None)
