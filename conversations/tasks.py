"""Celery beat: the TTL sweep. Thin: one service call; safe to run from two beat processes at once."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="conversations.expire_pending", queue="default", acks_late=True, ignore_result=True)
def expire_pending_task() -> int:
    from .hooks import pending_expire
    from .metrics import abandoned_observe

    expired = pending_expire()
    # Each row is claimed by one sweeper only (conditional UPDATE), so two beats never count one twice.
    abandoned_observe(expired=expired)
    return expired


# --- LGPD retention (conversations/retention.py): daily, one service call, idempotent -------------


@shared_task(name="conversations.redact_message_text", queue="default", acks_late=True, ignore_result=True)
def redact_message_text_task() -> int:
    from .retention import message_texts_redact

    return message_texts_redact(by="beat:conversations.redact_message_text").total
