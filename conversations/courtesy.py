"""The reply to a greeting, thanks, goodbye or request for help (social.py tells which): answered
from the registry — examples of what this user may do — and nothing pending is touched. The empty
conversation's welcome lists the same examples, so what the page offers first is what "oi" answers."""

from __future__ import annotations

from typing import Any

from registry.selectors import registry_snapshot
from tenancy.models import Tenant

from .flow import pending_confirmation, rest
from .grammar import SlotSpec, grammar_for
from .reads import Reader
from .social import examples
from .statemachine import Status
from .turns import Turn, reader_for

_SAMPLE = {"integer": "30", "date": {"pt-BR": "amanhã", "en": "tomorrow"}}


def courtesy(turn: Turn, kind: str, allowed: set[str]) -> None:
    if kind == "outcome":
        return _outcome(turn)
    if kind in ("recap", "pending"):
        return _recap(turn) if kind == "recap" else _pending(turn)
    listed = (examples(turn.grammar, allowed, turn.language, value_of=lambda slot: _sample(turn.reader, slot,
                                                                                        turn.language))
              if kind in ("greeting", "help") else [])
    template = f"social.{kind}"
    if kind in ("greeting", "help") and not listed:
        template = "social.nothing"
    rest(turn)
    turn.reply("answer", template, values={"examples": "\n".join(f"• {e}" for e in listed)})


def _outcome(turn: Turn) -> None:
    """"deu certo?": how the conversation's last operation ended, in its own words — or that it still runs, or
    that nothing ran. Nothing pending is touched."""
    last = turn.conversation.last_result or {}
    status = str(last.get("status") or "")
    if turn.conversation.status in (Status.EXECUTING, Status.CANCELLING):
        template = "social.outcome.running"
    elif not last:
        template = "social.outcome.none"
    else:
        template = f"social.outcome.{_OUTCOMES.get(status, 'failed')}"
    rest(turn)
    turn.reply("answer", template, values={"message": str(last.get("message") or "")})


_OUTCOMES = {"completed": "done", "partially_completed": "partial"}


def _recap(turn: Turn) -> None:
    """"o que você acabou de fazer?": the last change, in the words its end was told — a read is no change."""
    last = turn.conversation.last_result or {}
    cap = turn.grammar.capabilities.get(str(last.get("capability") or ""))
    changed = cap is not None and cap.kind == "write" and last.get("message")
    rest(turn)
    turn.reply("answer", "social.recap.done" if changed else "social.recap.none",
               values={"message": str(last.get("message") or "")})


def _pending(turn: Turn) -> None:
    """"what's pending?": the proposal that waits for a yes, said again — and still waiting."""
    pending = pending_confirmation(turn)
    if pending is None:
        rest(turn)
        return turn.reply("answer", "social.pending.none")
    turn.reply("answer", "social.pending.waiting", values={"summary": pending.summary})


def welcome_examples(*, tenant: Tenant, user: Any, role: str, language: str) -> list[str]:
    """Sentences a user of `role` may send as they are, with the tenant's own values ("abre a <entidade>
    310"): a phrasing that leans on an open entity ("abra essa <entidade>") leads nowhere in an empty
    conversation, and one whose slot has no value to show (a bracketed name) is left out."""
    snapshot = registry_snapshot()
    grammar = grammar_for(snapshot)
    reader = reader_for(user=user, tenant=tenant, snapshot=snapshot, grammar=grammar)
    allowed = {spec.id for spec in snapshot.discoverable_for(tenant=tenant, role=role)}
    listed = examples(grammar, allowed, language, value_of=lambda slot: _sample(reader, slot, language))
    return [example for example in listed if "<" not in example]


def _sample(reader: Reader, slot: SlotSpec, language: str) -> str | None:
    """A value of the tenant's for an example ("310", "Trabalho em Altura"), read through the slot's
    resolver; a number or a date for quantity and date slots; None (the slot's name shows) otherwise."""
    if slot.resolver:
        items = reader.catalog(slot)
        label = str(slot.resolver.get("label", "name"))
        return str(items[0].get(label)) if items and items[0].get(label) else None
    if slot.parse == "enum" and slot.values:
        return slot.value_label(slot.values[0], language)
    sample = _SAMPLE.get(slot.parse or "")
    return sample.get(language, sample.get("pt-BR")) if isinstance(sample, dict) else sample
