"""A create asked as "a new one": an open verb said of "uma <entidade> nova" / "a new <entity>", or a want of "an
<entity>" with no verb ("we need an <entity> for <owner>"). An article alone ("abre uma <entidade>", "open an
<entity>") is a create only when the message also gives the create a value: alone it asks which one to open.
"""

from __future__ import annotations

from . import lexicon
from .grammar import CapabilityGrammar
from .turns import Turn
from .understanding import Extractor

_A_NEW = frozenset(lexicon.tokens("um uma an nova novo new"))  # "uma <entidade>", "a new <entity>"
_NEW = frozenset(lexicon.tokens("nova novo new"))


def a_new_one(turn: Turn, cap: CapabilityGrammar, parts: list[str], allowed: set[str],
              extractor: Extractor) -> CapabilityGrammar | None:
    """An open verb said of "uma <entidade> nova" / "a new <entity>" with no number of it: that entity's create.
    "abre uma <entidade>" / "open an <entity>", an article alone, is a create only with a value for it ("… pra
    <dona>"): alone it asks which one to open, and a number then opens it."""
    if cap.kind != "navigation" or cap.intent != "open":
        return None
    at = turn.grammar.types_named_in(parts).get(cap.entity)
    if at is None or any(p.isdigit() for p in parts[at[1]:at[1] + 1]):
        return None
    around = set(parts[max(0, at[0] - 1):at[0]]) | set(parts[at[1]:at[1] + 1])
    create = _the_create(turn, cap.entity, allowed) if around & _A_NEW else None
    if create is None or around & _NEW:
        return create
    return create if extractor.extract(create, parts).from_text else None


def _the_create(turn: Turn, entity: str, allowed: set[str]) -> CapabilityGrammar | None:
    """The entity's one create capability this user may use, else None."""
    creates = [c for c in turn.grammar.capabilities.values() if c.id in allowed and c.entity == entity
               and c.kind == "write" and c.intent == "create"]
    return creates[0] if len(creates) == 1 else None


_WANTING = frozenset(lexicon.tokens("need needs want wanna preciso precisamos precisa quero queremos queria gostaria "
                                    "tem ter must should"))


def wanted_new(turn: Turn, parts: list[str], allowed: set[str]) -> CapabilityGrammar | None:
    """"we need an <entity> for <owner>", "precisamos de uma <entidade> no <local>": a want, then "a/uma" and an
    entity noun with no number after it — that entity's one create (no verb said, nothing else to read)."""
    if not any(p in _WANTING for p in parts[:4]):
        return None
    for type_, (start, end) in turn.grammar.types_named_in(parts).items():
        if start == 0 or parts[start - 1] not in _A_NEW or any(p.isdigit() for p in parts[end:end + 1]):
            continue
        create = _the_create(turn, type_, allowed)
        if create is not None:
            return create
    return None
