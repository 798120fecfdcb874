from __future__ import annotations

import uuid

from tenancy.models import Tenant

from .models import Conversation


def conversation_for_review(tenant: Tenant, conversation_id: uuid.UUID) -> Conversation | None:
    """For policy's reviewer check (guardian object permission `review_conversation`)."""
    return Conversation.objects.for_tenant(tenant).filter(pk=conversation_id).first()
