"""Words said for each slot (by the LLM, as data) resolved like typed text: the same extractor, the
same tenant data, units and dates — a model's answer never carries an id or a value we did not find."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import lexicon
from .state import situation_for
from .understanding import Extraction, Extractor


def extract_said(turn: Any, cap: Any, said: Mapping[str, str], *, skip: frozenset[str] = frozenset()) -> Extraction:
    """`said[slot]` resolved per slot; a slot not said may come from the conversation's context."""
    extractor = Extractor(grammar=turn.grammar, reader=turn.reader, situation=situation_for(turn.conversation),
                          text=turn.text, language=turn.language)
    extraction = Extraction()
    for slot in cap.slots:
        if slot.name in skip:
            continue
        words = lexicon.tokens(str(said.get(slot.name, "")))
        probe = extractor.extract(cap, words, only={slot.name}, use_context=not words)
        for key in ("values", "ambiguous", "not_found"):
            getattr(extraction, key).update(getattr(probe, key))
        extraction.missing.extend(m for m in probe.missing if m not in extraction.missing)
    return extraction
