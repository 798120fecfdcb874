"""One turn of a conversation: the lock, the version, the walk through the status table, the
events and the reply — everything a handler touches, in one object for one transaction.

`Turn.finish()` writes the row with `UPDATE … WHERE version = <read version>`: under the row lock
it always matches, and it is the belt to the lock's braces — a write that somehow raced (another
code path without the lock) makes the turn fail with VersionConflict instead of being lost.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser

from events.models import Actor, ConversationEvent
from events.services import event_append
from registry.selectors import RegistrySnapshot
from tenancy.models import Tenant
from tenancy.selectors import membership_get

from . import messages
from .grammar import Grammar
from .models import Conversation
from .reads import Reader
from .statemachine import check_transition


class VersionConflict(Exception):
    """The conversation changed under this turn (HTTP 409)."""


@dataclass
class Turn:
    conversation: Conversation
    user: AbstractBaseUser
    tenant: Tenant
    language: str
    snapshot: RegistrySnapshot
    grammar: Grammar
    reader: Reader
    now: datetime
    text: str = ""
    response: dict[str, Any] | None = None
    llm_calls: int = 0
    fast_path: bool = True
    appended: list[ConversationEvent] = field(default_factory=list)
    read_version: int = 0
    started_execution: str | None = None
    started_read: bool = False
    read_settled: bool = False  # the read plan it started ran and settled in its transaction (services)
    resting_before: str = ""
    turn_id: str | None = None
    result: dict[str, Any] | None = None  # the API reply, when known before the commit
    # The pending confirmation's plan and steps, when the turn's first statement read them (locking.py)
    pending_plan: tuple[Any, list[Any]] | None = None
    pending_live: Any = None  # policy.live.LiveRead for pending_plan, read with the lock (locking.py)
    # Redone after a deferred write's check failed (tenancy.db.DeferredCheckFailed): defer nothing.
    strict: bool = False
    # The user's role in the tenant, read when a handler first needs it (most turns never do; a
    # confirmation is authorised by policy's own live membership check). Use role_name().
    role: str | None = None
    # The model's answer asked outside the lock for this turn (conversations.llm.ModelNeeded), if any.
    model_answer: Any = None

    def role_name(self) -> str:
        if self.role is None:
            membership = membership_get(user=self.user, tenant_id=self.tenant.pk)
            self.role = membership.role if membership else ""
        return self.role

    @property
    def version(self) -> int:
        """The version this turn writes (events carry it as state_version)."""
        return self.read_version + 1

    def go(self, status: str) -> None:
        self.conversation.status = check_transition(self.conversation.status, status)

    def walk(self, *statuses: str) -> None:
        for status in statuses:
            self.go(status)

    def event(self, type_: str, payload: dict[str, Any] | None = None, *, actor: str = Actor.AGENT,
              operation_id: Any = None) -> None:
        event = event_append(tenant=self.tenant, conversation_id=self.conversation.pk, type=type_, actor=actor,
                             state_version=self.version, payload=payload or {},
                             operation_id=uuid.UUID(str(operation_id)) if operation_id else None)
        self.appended.append(event)

    @property
    def events(self) -> list[dict[str, Any]]:
        """The events this turn appended (their `seq` is known once the turn's batch is written)."""
        return [{"seq": event.seq, "type": event.type} for event in self.appended]

    def say(self, template: str, **values: Any) -> str:
        return messages.say(template, self.language, **values)

    def nouns(self, entity_type: str) -> dict[str, str]:
        """How this turn's replies name `entity_type` (the manifest's nouns): `noun` ("a inspeção" /
        "inspection"), `of_noun` ("da inspeção" / "inspection"), `nouns` (plural), `noun_bare`, `noun_one`."""
        noun, english = self.grammar.noun, self.language.startswith("en")
        female = noun(entity_type, self.language, article="the").startswith("a ")
        bare = noun(entity_type, self.language)
        one = ("an " if bare[:1].lower() in "aeiou" else "a ") if english else "uma " if female else "um "
        return {"noun": noun(entity_type, self.language, article="" if english else "the"),
                "of_noun": noun(entity_type, self.language, article="" if english else "of"),
                "nouns": noun(entity_type, self.language, many=True),
                "noun_bare": bare, "noun_one": one + bare}

    def reply(self, type_: str, template: str, *, message: str | None = None, **parts: Any) -> dict[str, Any]:
        response: dict[str, Any] = {
            "type": type_, "message": message if message is not None else self.say(template, **parts.pop(
                "values", {})), "template": template, "citations": parts.pop("citations", []),
            "navigation": parts.pop("navigation", None), "clarification": parts.pop("clarification", None),
            "confirmation": parts.pop("confirmation", None), "execution": parts.pop("execution", None),
            "error": parts.pop("error", None),
        }
        self.response = response
        return response

    def error(self, code: str, template: str, **values: Any) -> dict[str, Any]:
        message = self.say(template, **values)
        return self.reply("error", template, message=message, error={"code": code, "detail": message})


def reader_for(*, user: Any, tenant: Tenant, snapshot: RegistrySnapshot, grammar: Grammar) -> Reader:
    return Reader(user=user, tenant=tenant, snapshot=snapshot, grammar=grammar)
