"""A value meant and a value denied, while a proposal waits: "lucia not tiago", "no wait, Marta, not Rafael",
"quarta não, quinta", "not friday, monday", "a Sônia em vez do Caio". The denied part goes; what is meant is the
correction (corrections.correction_apply plans the proposal again with it). Names and days only: numbers have
their own rules (lexicon.denied_numbers, relative_turn.swap_apply). Hand-written: three shapes of the two
languages' negation, closed-class like lexicon.py.
"""

from __future__ import annotations

import re

from knowledge.text import fold

from .dates import date_in, today
from .lexicon import tokens

_LEAD = r"^(?:(?:no|nao|wait|pera|perai|espera|opa|ops|oops|hmm|ah|actually|na verdade|sorry|desculpa)\W+)*"
_ARTICLE = r"(?:(?:the|a|o|na|no|pra|para|pro|on|to)\s+)?"
# "lucia not tiago", "Marta, not Rafael", "a Sônia em vez do Caio", "thursday instead of wednesday"
_MEANT_FIRST = re.compile(_LEAD + r"(?P<meant>[^,.;!?]+?)\W*\s(?:not|nao|e nao|and not|em vez d[aoe]|instead of|"
                          r"ao inves d[aoe]|rather than)\s+" + _ARTICLE + r"(?P<denied>[^,.;!?]+?)\W*$")
# "quarta não, quinta", "not friday, monday", "não a quarta, a quinta"
_DENIED_FIRST = re.compile(_LEAD + r"(?:(?:not|nao)\s+" + _ARTICLE + r"(?P<denied1>[^,.;!?]+?)|"
                           + _ARTICLE + r"(?P<denied2>[^,.;!?]+?)\s+(?:not|nao))\s*[,;]\s*" + _ARTICLE
                           + r"(?P<meant>[^,.;!?]+?)\W*$")
_MOST_WORDS = 4


def meant_not_denied(text: str, proposal: str, language: str) -> list[str] | None:
    """The words of the value meant when the message says one value instead of another — the denied one a word of
    the `proposal` on screen or a day — else None ("não, pensando bem melhor não, a auditoria…" denies no value)."""
    folded = fold(text).strip()
    found = _MEANT_FIRST.match(folded) or _DENIED_FIRST.match(folded)
    if found is None:
        return None
    meant = tokens(found.group("meant"))
    denied = tokens(next(g for g in (found.groupdict().get(k) for k in ("denied", "denied1", "denied2")) if g))
    if not meant or not denied or len(meant) > _MOST_WORDS or len(denied) > _MOST_WORDS:
        return None
    if any(p.isdigit() for p in meant + denied):
        return None
    shown = set(tokens(proposal))
    if not any(len(p) >= 3 and p in shown for p in denied) and date_in(" ".join(denied), today(), language) is None:
        return None
    return meant
