"""A part of an item (a child entity its resolver reads under it) said without its name: the item's only part
written in the other language, the part at a place of the list just shown ("remove the 2nd"), or — with the item
open and no list shown — the part at a place or in a state said with the part's noun or "one": "get rid of the
first <filho>", "drop the HIGH one". Never a guess: one part must answer.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from .attributes import in_state, states_said
from .extraction import Situation
from .grammar import Grammar, SlotSpec, find_phrase
from .lexicon import tokens
from .matching import Mention
from .ordinals import listed_pick, ordinal_in
from .reads import Reader
from .wordlists import detect_language

# The language the tenant's data is written in when its words give no clue (the product's own: settings).
_DATA_LANGUAGE = "en" if settings.LANGUAGE_CODE.lower().startswith("en") else "pt-BR"
_ONE = frozenset(tokens("one ones"))


def parent_input(reader: Reader, slot: SlotSpec) -> str | None:
    """The input a slot's resolver needs from another entity ("<entidade>_id" for its <filhos>), or
    None when it searches the tenant's catalog (its required inputs, if any, are query fields)."""
    resolver = slot.resolver or {}
    if slot.parse == "reference" or not resolver.get("capability"):
        return None
    spec = reader.spec(str(resolver["capability"]))
    required = [str(r) for r in (spec.input_schema.get("required") or ()) if spec] if spec else []
    query = str(resolver.get("query_field") or "")
    return next((r for r in required if r != query), None)


def child_said(grammar: Grammar, reader: Reader, situation: Situation, language: str, slot: SlotSpec,
               parts: list[str], items: list[dict[str, Any]], label: str, value_key: str) -> Mention | None:
    """The part of `items` (the item's parts as read now) the words pick without naming it, else None."""
    if parent_input(reader, slot) is None:
        return None
    noun = any(find_phrase(parts, phrase) for phrase in grammar.synonyms.get(slot.type, ()))
    return (_the_only_child(language, noun, items, label) or _listed_child(situation, slot, parts, items, value_key)
            or _at_place_or_in_state(grammar, situation, slot, parts, items, noun))


def _the_only_child(language: str, noun: bool, items: list[dict[str, Any]], label: str) -> Mention | None:
    """"scrap the slippery floor <child> from <item>" when its one child is written in the other language
    ("Piso escorregadio"): the child noun said, the item has only that child, and its text is not in the
    message's language — that one, which the confirmation then names as written. In the same language,
    words that name no child still name none (asked which)."""
    if len(items) != 1 or not noun:
        return None
    written = detect_language(str(items[0].get(label) or ""), _DATA_LANGUAGE)
    return Mention(items=list(items), exact=False) if written != language else None


def _listed_child(situation: Situation, slot: SlotSpec, parts: list[str], items: list[dict[str, Any]],
                  value_key: str) -> Mention | None:
    """"remove the 2nd": of the parts of the item just listed, the one at that place — when it is still
    one of the item's (`items`: its parts as read now)."""
    picked = listed_pick(situation.listed, slot.type, parts)
    still = [i for i in items if picked is not None and str(i.get(value_key)) == str(picked.get("id"))]
    return Mention(items=still, exact=True) if still else None


def _at_place_or_in_state(grammar: Grammar, situation: Situation, slot: SlotSpec, parts: list[str],
                          items: list[dict[str, Any]], noun: bool) -> Mention | None:
    """"get rid of the first <filho>" with no list of them shown: the part at that place in the item's own order;
    "drop the HIGH one", "remove o de gravidade baixa": the one part in the state said."""
    if not items or not (noun or _ONE & set(parts) or _elided(parts)):
        return None
    place = ordinal_in(parts)
    if place is not None:  # (with a list of them shown, a place is the list's: _listed_child)
        if any(r.get("type") == slot.type for r in situation.listed):
            return None
        return Mention(items=[items[place]], exact=True) if -len(items) <= place < len(items) else None
    hits = in_state(items, states_said(grammar, slot.type, parts)[0])
    return Mention(items=hits, exact=True) if len(hits) == 1 else None


_ELIDING = frozenset(tokens("o a aquele aquela esse essa"))
_OF_WITH = frozenset(tokens("de do da com"))


def _elided(parts: list[str]) -> bool:
    """"remove o de gravidade baixa", "tira aquela com <estado>": the noun left out, an article then "de"/"com"."""
    return any(p in _ELIDING and parts[i + 1:i + 2] and parts[i + 1] in _OF_WITH for i, p in enumerate(parts))
