"""A correction of a proposal made of several steps ("cancela a 60 e a 62" → "não, peraí, a 62 continua. Só a 60."):
the steps kept are those whose item the correction names after "só"/"only"/"just"; the others are left out and the
rest is proposed again, confirmed anew. When the correction says no such thing, the proposal is set aside and the
user is asked to say one step at a time — a correction is never answered with the same steps proposed again (a
step the user had just taken back would be in it).
(Hand-written: a closed list of words that restrict a request to some of its items.)
"""

from __future__ import annotations

from typing import Any

from . import lexicon
from .flow import invalidate_pending
from .operations import plan_and_decide
from .sequence import one_step_at_a_time
from .turns import Turn

_ONLY = frozenset(lexicon.tokens("so somente apenas only just"))


def compound_corrected(turn: Turn, base: dict[str, Any], parts: list[str]) -> None:
    """Propose again only the steps the correction keeps, else set the proposal aside and ask (module docstring)."""
    kept = _kept_numbers(parts)
    steps = [part for part in base.get("compound") or () if _labels(part) & kept]
    if not kept or not steps or len(steps) == len(base.get("compound") or ()):
        invalidate_pending(turn, reason="corrected")
        one_step_at_a_time(turn)
        return
    compound = [{**part, "part": f"s{i + 1}", "depends_on": [f"s{i}"] if i else []} for i, part in enumerate(steps)]
    plan_and_decide(turn, {**base, "capability": compound[-1]["state"]["capability"], "compound": compound})


def _kept_numbers(parts: list[str]) -> set[str]:
    """The numbers said after "só", "only" (articles between them allowed): "só a 60", "only 51 and 52"."""
    kept: set[str] = set()
    for i, word in enumerate(parts):
        if word in _ONLY:
            for after in parts[i + 1:]:
                if after.isdigit():
                    kept.add(after)
                elif after not in lexicon.ARTICLES:
                    break
    return kept


def _labels(part: dict[str, Any]) -> set[str]:
    slots = (part.get("state") or {}).get("slots") or {}
    return {str(v.get("label")) for values in slots.values() for v in values or ()
            if isinstance(v, dict) and v.get("entity")}
