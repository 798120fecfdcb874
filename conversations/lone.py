"""A message that is only a reference or only an entity noun, with nothing pending: "57", "a 312",
"<entidades>", "<entities>", "<entidade> do <atributo>", "<atributo>", "<filhos> da 52". A lone number
opens the one entity that has it (the navigation capability of each entity type is asked, through the
normal extraction); a lone noun lists that entity's items (its search capability, no filter); a noun
followed by what names one of its items (the manifest's named_by) opens that one, and so does that value
alone (or after an open verb) when it names one item of one type only; a kind of child and a number list
that item's children.
Nothing here knows an entity.
"""

from __future__ import annotations

from .attributes import named_by_attribute, states_said
from .flow import pending_confirmation, rest
from .grammar import CapabilityGrammar, find_phrase
from .lexicon import ARTICLES, OPENING, OTHER, tokens
from .navigation import navigate
from .operations import operate
from .plurals import plural_types
from .ranking import Ranked, child_lists
from .reads import entity_ref
from .text_filter import text_filter
from .turns import Turn
from .understanding import Extraction, Extractor, SlotValue


def lone_turn(turn: Turn, parts: list[str], allowed: set[str], extractor: Extractor) -> bool:
    if pending_confirmation(turn) is not None:  # "312" then is about the operation on screen
        return False
    content = [p for p in parts if p not in ARTICLES]
    while len(content) > 1 and content[0] in _WANTING:  # "quero a <entidade> 340", "I need 52": the item wanted
        content = content[1:]
    if len(said := [p for p in content if p not in OTHER]) == 1 and said[0].isdigit():  # "57", "the other 340"
        return _open_the_one(turn, content, allowed, extractor)
    # "inspecton 53": a noun (a slip allowed) and a number
    numbered = 1 < len(content) <= 4 and content[-1].isdigit() and _named_whole(turn, content[:-1])
    if numbered:  # ("<filhos> da 52": that item's list of them)
        return (_open_the_one(turn, content, allowed, extractor, numbered)
                or _children_of_the_one(turn, content, allowed, extractor, numbered))
    if _list_them(turn, content, allowed):
        return True
    if _value_and_its_noun(turn, content, allowed, extractor):  # "<valor> tab pls", "aba de <valor>"
        return True
    if _list_filtered(turn, content, parts, allowed, extractor):  # "<entidades> <estado> nos próximos 12 dias"
        return True
    # "<entidade> do <atributo>": a noun, then what names one of its items (manifest named_by), no number
    # (or the noun closes it: "the <local> <entity>", "<pessoa>'s <entity>")
    types = _leading_noun(turn, content) or _trailing_noun(turn, content)
    if types:
        return (len(content) <= _ATTRIBUTE_WORDS and not any(p.isdigit() for p in content)
                and _open_the_one(turn, content, allowed, extractor, types))
    return len(content) <= _ATTRIBUTE_WORDS and _open_by_its_value(turn, content, allowed)


_ATTRIBUTE_WORDS = 6
_ANYTHING = frozenset(tokens("anything any something algo alguma algum"))
# ("eu quero a 311"; "sobre a <entidade> 312", "about 52": the item spoken of)
_WANTING = frozenset(tokens("eu quero queria preciso i want need gimme sobre about regarding re"))
_CUT_SHORT = 4  # "<four letters of a noun> 60": the fewest letters of a noun cut short


def _value_and_its_noun(turn: Turn, content: list[str], allowed: set[str], extractor: Extractor) -> bool:
    """A navigation's choice said with the noun its verbs end with, and nothing else ("<valor> tab", "aba de
    <valor>"): that navigation, on the item its extraction finds (the one in focus) — when one capability does."""
    found = []
    for cap in turn.grammar.capabilities.values():
        choice = next((s for s in cap.slots if s.parse == "enum" and s.required), None)
        if cap.id not in allowed or cap.kind != "navigation" or choice is None:
            continue
        nouns = {v.words[-1] for v in cap.verbs if len(v.words) > 1}
        rest = [p for p in content if turn.grammar.enum_value(choice, [p]) is None]
        if (len(rest) == len(content) or not rest or not all(p in nouns for p in rest)
                or turn.grammar.enum_value(choice, content) is None):
            continue
        extraction = extractor.extract(cap, content)
        if extraction.complete:
            found.append((cap, extraction))
    if len(found) != 1:
        return False
    navigate(turn, found[0][0], found[0][1], content)
    return True


def _leading_noun(turn: Turn, content: list[str]) -> set[str]:
    """The entity types whose noun opens the message, with words after it."""
    return {type_ for type_, phrases in turn.grammar.synonyms.items()
            if any((at := find_phrase(content, p)) is not None and at[0] == 0 and at[1] < len(content)
                   for p in phrases)}


def _trailing_noun(turn: Turn, content: list[str]) -> set[str]:
    """The entity types whose noun closes the message, with words before it."""
    return {type_ for type_, phrases in turn.grammar.synonyms.items()
            if any((at := find_phrase(content, p)) is not None and at[0] > 0 and at[1] == len(content)
                   for p in phrases)}


def _named_whole(turn: Turn, words: list[str]) -> set[str]:
    """The entity types one of whose nouns is exactly `words` — or, for one word, the one type whose noun it
    begins ("<a noun cut short> 60")."""
    named = {type_ for type_, phrases in turn.grammar.synonyms.items()
             if any(find_phrase(words, p) == (0, len(words)) for p in phrases)}
    if named or len(words) != 1 or len(words[0]) < _CUT_SHORT or not words[0].isalpha():
        return named
    cut = {type_ for type_, phrases in turn.grammar.synonyms.items()
           if any(len(p) == 1 and p[0].startswith(words[0]) for p in phrases)}
    return cut if len(cut) == 1 else set()


def _open_the_one(turn: Turn, content: list[str], allowed: set[str], extractor: Extractor,
                  types: set[str] | None = None) -> bool:
    found: list[tuple[CapabilityGrammar, Extraction]] = []
    missing = []
    for cap in turn.grammar.capabilities.values():
        if cap.id not in allowed or cap.kind != "navigation" or cap.intent != "open":
            continue
        if types is not None and cap.entity not in types:
            continue
        extraction = extractor.extract(cap, content, use_context=False)
        if extraction.values or extraction.ambiguous:
            found.append((cap, extraction))
        missing.append(bool(extraction.not_found))
    if not found and missing and all(missing) and types is None:  # "59" alone, and no item has that number
        rest(turn)
        turn.error("NOT_FOUND", "clarify.number_not_found", number=next(p for p in content if p.isdigit()))
        return True
    if len(found) != 1:  # none has it, or several types do: not a guess
        return False
    navigate(turn, found[0][0], found[0][1], content)
    return True


def _children_of_the_one(turn: Turn, content: list[str], allowed: set[str], extractor: Extractor,
                         types: set[str]) -> bool:
    """"<filhos> da 52": a kind of child only one list has, and the number of the item whose list it is."""
    lists = {c.id: c for t in types for c in child_lists(turn.grammar, t, allowed)}
    if len(lists) != 1:
        return False
    cap = next(iter(lists.values()))
    extraction = extractor.extract(cap, content, use_context=False)
    if not extraction.from_text:
        return False
    operate(turn, cap, extraction, content)
    return True


def open_said_value(turn: Turn, parts: list[str], ranked: list[Ranked], allowed: set[str]) -> bool:
    """"open Caldeiraria", "abre o Refeitório", "show me <place>": an open, show or list verb (after words that only
    open a request), then only what names one item of one entity type — that item opened."""
    top = ranked[0] if ranked else None
    if (top is None or top.verb_span is None or top.cap.intent not in ("open", "show", "search", "list")
            or top.cap.kind not in ("navigation", "read")
            or any(p not in OPENING for p in parts[:top.verb_span[0]])):
        return False
    content = parts[top.verb_span[1]:]
    while content and (content[0] in OPENING or content[0] in ARTICLES or content[0] == "pro"):  # "leva pro <place>"
        content = content[1:]
    # an entity noun said ("open the <status> <entities>") is no value naming one item
    return (0 < len(content) <= _ATTRIBUTE_WORDS and not turn.grammar.types_named_in(content)
            and _open_by_its_value(turn, content, allowed))


def _open_by_its_value(turn: Turn, content: list[str], allowed: set[str]) -> bool:
    """"subestação 2": the whole message, word for word, is what names one item (a named_by value) — of one
    entity type only, and one item only (a name several items share is no reference)."""
    found = []
    for cap in turn.grammar.capabilities.values():
        slot = next((s for s in cap.slots if s.parse == "reference" and s.type == cap.entity), None)
        if cap.id not in allowed or cap.kind != "navigation" or cap.intent != "open" or slot is None:
            continue
        items, at = named_by_attribute(turn.reader, slot, content)
        if items and at == set(range(len(content))):
            found.append((cap, slot, items))
    if len(found) != 1 or len(found[0][2]) != 1:
        return False
    cap, slot, items = found[0]
    ref = entity_ref(slot.type, items[0], label_field=str((slot.resolver or {}).get("label", "number")))
    navigate(turn, cap, Extraction(values={slot.name: [SlotValue(ref["id"], ref["label"], ref, "text")]}), content)
    return True


_FILTER_WORDS = 7


def _list_filtered(turn: Turn, content: list[str], parts: list[str], allowed: set[str], extractor: Extractor) -> bool:
    """"<entidades> <estado> nos próximos 12 dias", "<entities> of <owner>": a short message opened by a plural
    noun, in which its search finds at least one filter and nothing it cannot apply — that search, filtered (a
    read: nothing is done)."""
    types = _leading_noun(turn, content) & plural_types(turn.grammar, content[:2])
    searches = [cap for cap in turn.grammar.capabilities.values() if cap.id in allowed and cap.kind == "read"
                and cap.intent == "search"]
    if not types and content[:1] and content[0] in _ANYTHING:  # "anything scheduled at <local>?": the one entity
        types = {c.entity for c in searches if states_said(turn.grammar, c.entity, content[1:])[0]}  # in that state
    lists = [cap for cap in searches if cap.entity in types]
    if len(lists) != 1 or len(content) > _FILTER_WORDS:
        return False
    # (read with its prepositions: "at the <Lugar>" is a filter of its own, never dropped unread)
    extraction = extractor.extract(lists[0], parts)
    unread = text_filter(turn, lists[0], extraction, parts, None, extractor.skip_words(lists[0]))
    if unread or not extraction.values or not extraction.complete:
        return False
    operate(turn, lists[0], extraction, parts)
    return True


def _list_them(turn: Turn, content: list[str], allowed: set[str]) -> bool:
    if not content or len(content) > 3:
        return False
    named = _named_whole(turn, content)
    lists = [cap for cap in turn.grammar.capabilities.values() if cap.id in allowed and cap.kind == "read"
             and cap.intent == "search" and cap.entity in named]
    if len(lists) != 1:
        return False
    operate(turn, lists[0], Extraction(), content)
    return True
