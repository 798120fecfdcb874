"""The reply to a greeting, thanks, goodbye or request for help (social.py tells which): answered
from the registry — examples of what this user may do — and nothing pending is touched."""

from __future__ import annotations

from .flow import rest
from .grammar import SlotSpec
from .social import examples
from .turns import Turn

_SAMPLE = {"integer": "30", "date": {"pt-BR": "amanhã", "en": "tomorrow"}}


def courtesy(turn: Turn, kind: str, allowed: set[str]) -> None:
    listed = (examples(turn.grammar, allowed, turn.language, value_of=lambda slot: _sample(turn, slot))
              if kind in ("greeting", "help") else [])
    template = f"social.{kind}"
    if kind in ("greeting", "help") and not listed:
        template = "social.nothing"
    rest(turn)
    turn.reply("answer", template, values={"examples": "\n".join(f"• {e}" for e in listed)})


def _sample(turn: Turn, slot: SlotSpec) -> str | None:
    """A value of the tenant's for an example ("310", "Trabalho em Altura"), read through the slot's
    resolver; a number or a date for quantity and date slots; None (the slot's name shows) otherwise."""
    if slot.resolver:
        items = turn.reader.catalog(slot)
        label = str(slot.resolver.get("label", "name"))
        return str(items[0].get(label)) if items and items[0].get(label) else None
    if slot.parse == "enum" and slot.values:
        return slot.value_label(slot.values[0], turn.language)
    sample = _SAMPLE.get(slot.parse or "")
    return sample.get(turn.language, sample.get("pt-BR")) if isinstance(sample, dict) else sample
