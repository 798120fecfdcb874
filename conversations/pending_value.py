"""A value for the proposal on screen said with another capability's verb: "troca pra <pessoa>" with a creation whose
responsible is another, "sim, e põe o <pessoa> como inspetor" with a creation waiting — the verb also names another
write ("trocar", "pôr" assign a person elsewhere), but the message names no item for it, and the value is one the
proposal on screen takes and does not have yet. It changes the proposal (corrections.correction_apply, planned and
confirmed again) — it never asks "which item?" for another write the user did not mean.
"""

from __future__ import annotations

import re

from . import lexicon
from .flow import pending_confirmation
from .ranking import rank
from .state import hints_for, situation_for
from .turns import Turn
from .understanding import Extractor


def value_for_the_pending(turn: Turn, parts: list[str], allowed: set[str]) -> bool:
    """The message gives the pending operation a value of its own, by another write's verb (module docstring)."""
    pending = pending_confirmation(turn)
    cap = turn.grammar.capabilities.get(str((pending.intent or {}).get("capability"))) if pending else None
    if cap is None or any(p.isdigit() for p in parts) or set(turn.grammar.types_named_in(parts)) & (
            turn.grammar.referenced - {cap.entity}) or _opens_with_a_no(turn.text):
        return False
    ranked = rank(turn.grammar, parts, allowed, hints_for(turn.conversation, with_topic=False))
    if not ranked or ranked[0].verb is None or ranked[0].cap.kind != "write" or ranked[0].cap.id == cap.id:
        return False
    extractor = Extractor(grammar=turn.grammar, reader=turn.reader, situation=situation_for(turn.conversation),
                          text=turn.text, language=turn.language)
    said = extractor.extract(cap, parts, use_context=False)
    slots = (pending.intent or {}).get("slots") or {}
    return any(s.parse != "reference" and s.resolver and s.name in said.from_text
               and [str(v.value) for v in said.values[s.name]] != [str(v.get("value")) for v in slots.get(s.name) or ()]
               for s in cap.slots) and not lexicon.asks(parts, turn.text)


def _opens_with_a_no(text: str) -> bool:
    """"Esquece, deixa pra lá, depois eu vejo isso com <pessoa>": a no or a stop first — a person named after it is
    whom the user will see, no value."""
    first = re.split(r"[,;.!?—–]", text, maxsplit=1)[0]
    return lexicon.control_run(lexicon.phrase(first)) in ("decline", "cancel")
