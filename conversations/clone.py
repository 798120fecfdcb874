"""A copy asked for ("cria uma igual à 310", "copy 312 but make <person> the <field>", "faz uma igual a essa"):
whether the words ask for one, and the source and changes of the create that makes it. Nothing here knows an
entity: the source is the create's own entity, found by its reference slot.
"""

from __future__ import annotations

from typing import Any

from . import lexicon
from .grammar import CapabilityGrammar, same_word
from .turns import Turn
from .understanding import Extraction, Extractor, SlotValue, number_positions, reference

CLONE_MARKERS = frozenset(lexicon.tokens("igual mesma mesmo copia copie copiar clone clonar duplicar duplique "
                                         "same copy like identical duplicate"))


def clone_said(parts: list[str], nouns: frozenset[str] = frozenset()) -> bool:
    """A word that asks for a copy ("igual à 310", "one like 310") — not "like" of a wish ("I'd like to …"), nor
    "same" said of one value (`nouns`: "for the same <owner> as this one" copies the <owner>, not the item)."""
    def wished(i: int) -> bool:
        return parts[i + 1:i + 2] == ["to"] or (i > 0 and parts[i - 1] in _WISH)
    return any(_marker(p) and not (p == "like" and wished(i)) and not set(parts[i + 1:i + 2]) & nouns
               for i, p in enumerate(parts))


def copies_the_item(turn: Turn, cap: CapabilityGrammar, parts: list[str]) -> bool:
    """A create said with a copy's word, not of one value: the one-word nouns of the values it takes from other
    items (the <dona>/<owner> nouns) after "same"/"mesma" copy that value only."""
    nouns = frozenset(p[0] for s in cap.slots if s.type != cap.entity for p in turn.grammar.synonyms.get(s.type, ())
                      if len(p) == 1)
    return clone_said(parts, nouns)


def copy_asked(ranked: list[Any], best: Any, parts: list[str]) -> CapabilityGrammar | None:
    """"Crie uma <entidade> igual à 310, mas com <campo> de 20 dias": a create verb said first, with a copy's word,
    asks for a copy of 310 — never the write on 310 itself that the change's words fill better. Not a create verb
    said after the request's own ("apaga a 340, foi criada em duplicidade") nor two items named ("put <entity> 60
    on the same day as 52": a write on one of them)."""
    cap = best.cap
    if cap.intent == "create" or not clone_said(parts) or len([n for n in number_positions(parts) if not n[2]]) > 1:
        return None
    first = best.verb_span[0] if best.verb_span else len(parts)
    return next((r.cap for r in ranked if r.cap.intent == "create" and r.cap.kind == "write" and r.verb is not None
                 and r.cap.entity == cap.entity and r.verb_span is not None and r.verb_span[0] <= first), None)


def _marker(word: str) -> bool:
    # any form of a copy verb ("duplica", "clona", "copiem"), not only the forms listed
    return word in CLONE_MARKERS or (len(word) >= 5 and any(same_word(word, m) for m in CLONE_MARKERS if len(m) >= 5))


_WISH = frozenset(lexicon.tokens("would d i we you they"))


def clone_extraction(turn: Turn, cap: CapabilityGrammar, parts: list[str], extractor: Extractor) -> Extraction:
    """"Crie uma igual à atual, mas com …": the source is a reference; the rest are changes."""
    source_type = next((s.type for c in turn.grammar.capabilities.values() if c.entity == cap.entity
                        for s in c.slots if s.parse == "reference" and s.type == cap.entity), cap.entity)
    extraction = extractor.extract(cap, parts, use_context=False)
    # the item said ("igual à 310") before the one in context ("igual à atual", the open one)
    source = _source_said(turn, source_type, parts, extractor) or reference(source_type, parts, extractor.situation)
    extraction.missing = []
    for slot in cap.slots:  # what the context would give a new one comes from the source instead
        if slot.from_context:
            extraction.ambiguous.pop(slot.name, None)
            extraction.values.pop(slot.name, None)
    if source is None:
        extraction.missing = ["source"]
    else:
        extraction.values["source"] = [source]
        for slot in cap.slots:  # the source's number is no amount of the copy ("igual à 310")
            said = [str(v.value) for v in extraction.values.get(slot.name) or ()] or [
                str((extraction.invalid.get(slot.name) or {}).get("said"))]
            if slot.parse == "integer" and said == [str(source.label)]:
                extraction.values.pop(slot.name, None)
                extraction.invalid.pop(slot.name, None)
    return extraction


def _source_said(turn: Turn, source_type: str, parts: list[str], extractor: Extractor) -> SlotValue | None:
    """"cria uma igual à 310": the item the copy is made of, by its number (the entity's own reference slot)."""
    for reader in turn.grammar.capabilities.values():
        slot = next((s for s in reader.slots if s.parse == "reference" and s.type == source_type), None)
        if slot is not None and reader.kind == "read":
            found = extractor.extract(reader, parts, only={slot.name}, use_context=False).values.get(slot.name)
            return found[0] if found else None
    return None
