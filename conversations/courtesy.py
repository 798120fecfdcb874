"""The reply to a greeting, thanks, goodbye or request for help (social.py tells which): answered
from the registry — examples of what this user may do — and nothing pending is touched."""

from __future__ import annotations

from .flow import rest
from .social import examples
from .turns import Turn


def courtesy(turn: Turn, kind: str, allowed: set[str]) -> None:
    listed = examples(turn.grammar, allowed, turn.language) if kind in ("greeting", "help") else []
    template = f"social.{kind}"
    if kind in ("greeting", "help") and not listed:
        template = "social.nothing"
    rest(turn)
    turn.reply("answer", template, values={"examples": "\n".join(f"• {e}" for e in listed)})
