"""Whole messages made of control phrases end to end ("never mind, forget it", "não, espera"), below lexicon.py.

By hand: the phrases are fixed sets of thousands and a message is split into them by reach over word positions
(no kept library splits a text into members of a set); the one-word slip is rapidfuzz's.
"""

from __future__ import annotations

from functools import lru_cache

from rapidfuzz import process
from rapidfuzz.distance import OSA

from knowledge.text import fold, words

INTERJECTION_LEADS = frozenset(words(fold("oops ops opa whoops ah ih xi eita hmm hum putz actually argh ugh")))


@lru_cache(maxsize=64)
def _longest(phrases: frozenset[str]) -> int:
    """Words in the longest of `phrases` (a few fixed sets of thousands: counted once each)."""
    return max(len(p.split()) for p in phrases)


def end_to_end(parts: list[str], phrases: frozenset[str], words: frozenset[str] = frozenset()) -> bool:
    """The words split into `phrases` (and single `words`), end to end."""
    longest = _longest(phrases)
    reach = {0}
    for start in range(len(parts)):
        if start in reach:
            reach.update(start + n for n in range(1, min(longest, len(parts) - start) + 1)
                         if " ".join(parts[start:start + n]) in phrases or (n == 1 and parts[start] in words))
    return len(parts) in reach


def run_of(phrases: frozenset[str], text: str) -> bool:
    """The whole message is phrases of one kind end to end, maybe after an interjection: "never mind,
    forget it", "não, espera", "oops, undo that"."""
    parts = text.split()
    if parts[:1] and parts[0] in INTERJECTION_LEADS:
        parts = parts[1:]
    if not parts:
        return False
    if len(parts) == 1 and parts[0] not in phrases and len(parts[0]) >= 6:  # "cofirma": one slip in one word
        return process.extractOne(parts[0], _long_words(phrases), scorer=OSA.distance, score_cutoff=1) is not None
    return end_to_end(parts, phrases)


@lru_cache(maxsize=64)
def _long_words(phrases: frozenset[str]) -> tuple[str, ...]:
    """The one-word phrases of 6 letters or more, the only ones a slip is forgiven in: picked once per set (a set
    holds thousands, and run_of is asked of every head of a message's clauses)."""
    return tuple(p for p in phrases if " " not in p and len(p) >= 6)
