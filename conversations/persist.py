"""Taking and writing the conversation row: locked with its pending rows (locking.py), written back
with its version check. Used by the turn (services.py) and by what settles a conversation outside a
user's turn (hooks, review, batch's replan question), which must not import services: services
imports the dispatcher and, through it, every handler."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from tenancy.db import update_row_sql, write_in_one_statement
from tenancy.models import Tenant

from .locking import conversation_take
from .metrics import task_track
from .models import Conversation
from .turns import VersionConflict


def conversation_lock(*, tenant: Tenant, user: Any | None, conversation_id: Any) -> Conversation:
    """The conversation, locked for the rest of the transaction, with its pending rows (locking.py)."""
    return conversation_take(tenant=tenant, user=user, conversation_id=conversation_id).conversation


def conversation_save(conversation: Conversation, *, read_version: int, now: Any, rows: tuple[Any, ...] = ()) -> None:
    """Write the conversation with its version check, and `rows` (the turn's record) in the same statement.

    Every change of a conversation's state comes through here, a user's turn (with its row) or what
    settles it from outside (hooks, review, batch): so the task record (metrics.task_track) moves here."""
    observe = task_track(conversation, turn=bool(rows))
    update = update_row_sql(
        Conversation, where={"tenant": conversation.tenant_id, "id": conversation.pk, "version": read_version},
        values={"status": conversation.status, "language": conversation.language,
                "active_intent": conversation.active_intent, "active_operation": conversation.active_operation,
                "last_result": conversation.last_result, "context": conversation.context,
                "last_ui_context": conversation.last_ui_context, "references": conversation.references,
                "pending_confirmation": conversation.pending_confirmation_id,
                "pending_clarification": conversation.pending_clarification_id,
                "last_response": conversation.last_response, "updated_at": now},
        increment=("version",))
    if write_in_one_statement(*([row] for row in rows), then=update) != 1:
        raise VersionConflict
    conversation.version = read_version + 1
    transaction.on_commit(observe)
