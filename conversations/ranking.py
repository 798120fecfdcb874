"""Ranking (PRD-010 §58): which capabilities a message may ask for, best first, from cheap evidence —
no reads. A capability is a candidate when one of its verbs occurs in the message (the earliest verb
is the main one: "crie … e coloque …" creates), or when it is a sibling (same entity and kind) of such
a capability — "vá para os <filhos>" opens a tab of the entity's page. Evidence then moves the score:
the capability's own keywords (from its phrasings), entity synonyms the message names (+) or names
against it (−), numbers with a unit for integer slots, enum values, the field in the UI focus and the
conversation topic (for follow-ups such as "mude para 60"). understanding.py extracts the slots.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .grammar import (
    CapabilityGrammar,
    Grammar,
    Verb,
    camel_parts,
    same_word,
)
from .lexicon import (
    ARTICLES,
    DETERMINERS,
    asked_right_before,
    lead_in,
    tokens,
)
from .no_verb import calls_attention, no_request_here
from .numbers import numbers_in
from .verb_find import as_meant, find_verb, heads_said, led, verb_place

MASK = "\x00"  # a word that matches nothing: the place of a name's word (data_spans.py)
number_positions = numbers_in

@dataclass
class Hints:
    focus_field: str | None = None
    focus_words: list[str] = field(default_factory=list)
    topic_words: list[str] = field(default_factory=list)
    entity_types: tuple[str, ...] = ()  # types of the entities on screen, in focus, then recent
    last_asked: str | None = None  # the capability (or entity type) of the last question asked
    asked_field: str | None = None  # the field the last question asked about, when it was a field question


@dataclass
class Ranked:
    cap: CapabilityGrammar
    score: float
    verb: Verb | None = None
    verb_span: tuple[int, int] | None = None


def _content(parts: list[str]) -> tuple[list[str], list[int]]:
    """The words a verb is found in: articles (and the demonstratives that stand as one) left out, and a blanked
    name one word however long it is ("make <first last> its <field>" has the gap of "make <name> its <field>")."""
    index = [i for i, p in enumerate(parts)
             if p not in ARTICLES and p not in DETERMINERS and not (p == MASK and i and parts[i - 1] == MASK)]
    return [parts[i] for i in index], index


def same_family(a: str, b: str) -> bool:
    """"openTab" is a kind of "open", "update<Field>" of "update"; "create" is no kind of "update"."""
    return bool(a and b) and (a.startswith(b) or b.startswith(a))


def _related(a: str, b: str) -> bool:
    if a == b:
        return True
    common = set(camel_parts(a)) & set(camel_parts(b))
    return bool(common - {"type"})


def verb_matches(grammar: Grammar, parts: list[str], allowed: set[str]) -> dict[str, tuple[Verb, tuple[int, int]]]:
    words, index = _content(parts)
    place = verb_place(words)
    if place < len(words):
        words = [*words[:place], as_meant(grammar.verb_heads, words[place]), *words[place + 1:]]
    said = frozenset().union(*(heads_said(grammar.verb_heads, w) for w in set(words)))
    candidates: dict[str, list[tuple[Verb, tuple[int, int]]]] = {}
    for cap in grammar.capabilities.values():
        if cap.id not in allowed:
            continue
        for verb in cap.verbs:
            at = find_verb(words, verb.words) if verb.words and verb.words[0] in said else None
            if at is not None and verb.lead is not None and not led(parts, index[at[0]], verb.lead):
                continue  # "é de gravidade baixa" is no "dá baixa"
            if at is None or no_request_here(grammar, words, parts, index, at, verb):
                continue
            candidates.setdefault(cap.id, []).append((verb, (index[at[0]], index[at[1] - 1] + 1)))
    # Each capability's verb as `rank` would score it: a longer verb said later ("remove <x> que manda apagar a
    # <entidade> … <filhos>") never outweighs the same capability's verb said first.
    first = min((span[0] for said_ in candidates.values() for _, span in said_), default=0)
    found = {cap_id: max(said_, key=lambda m: (verb_score(parts, m[0], m[1], first), -m[1][0]))
             for cap_id, said_ in candidates.items()}
    if any(not calls_attention(parts, span[0]) for _, span in found.values()):  # "olha, … passa ela pra sexta"
        found = {c: m for c, m in found.items() if not calls_attention(parts, m[1][0])}
    return found


def verb_score(parts: list[str], verb: Verb, span: tuple[int, int], first: int) -> int:
    """How strongly a verb said at `span` asks for its capability: longer is stronger, after the message's first
    verb weaker — unless asked right before it ("I have <entity> 640 open, please add <child> to it")."""
    later = span[0] > first
    return 10 + 3 * len(verb.words) - (4 if later else 0) + (5 if later and asked_right_before(parts, span[0]) else 0)


def rank(grammar: Grammar, parts: list[str], allowed: set[str], hints: Hints) -> list[Ranked]:
    """Candidates, best first, from cheap evidence (no reads)."""
    lead = lead_in(parts)  # "go ahead and approve …": the verb is after the words that open the request
    matches = verb_matches(grammar, [MASK] * lead + parts[lead:] if lead else parts, allowed)
    if not matches:
        return []
    first = min(span[0] for _, span in matches.values())
    ranked: dict[str, Ranked] = {}
    for cap_id, (verb, span) in matches.items():
        # "I have <entity> 640 open, please add <child> to it": the verb right after "please" is the one asked for
        ranked[cap_id] = Ranked(grammar.capabilities[cap_id], verb_score(parts, verb, span, first), verb, span)
    for base in list(ranked.values()):
        for sibling in grammar.capabilities.values():
            if (sibling.id in allowed and sibling.id not in ranked and sibling.entity == base.cap.entity
                    and sibling.kind == base.cap.kind and same_family(sibling.intent, base.cap.intent)):
                ranked[sibling.id] = Ranked(sibling, base.score - 5, base.verb, base.verb_span)
    named = grammar.types_named_in(parts)
    _same_verb_other_entity(grammar, ranked, allowed, named, parts)
    _children_shown(grammar, ranked, allowed, named, parts)
    _entity_asked_last(grammar, ranked, allowed, named, hints)
    _field_asked_last(grammar, ranked, allowed, named, hints)
    _parts_just_listed(grammar, ranked, allowed, named, hints)
    for item in ranked.values():
        item.score += _evidence(grammar, item, parts, named, hints)
    # "make it 20 days": "it" is an item there is — a create makes a new one
    ranked = {k: r for k, r in ranked.items() if not (r.cap.intent == "create" and r.verb_span
                                                      and parts[r.verb_span[1]:r.verb_span[1] + 1] in _IT_SAID)}
    # "how many <children of another entity> are <value>?": a count or list of an entity the message does not
    # name, while it names only others, unrelated — no reading (not a count of something else)
    if named:
        ranked = {k: r for k, r in ranked.items() if r.cap.intent not in _OF_MANY or r.cap.entity not in
                  grammar.synonyms or any(t in r.cap.types or any(_related(t, u) for u in r.cap.types) for t in named)}
    _count_after_show(ranked)
    # of two readings as strong, the one whose verb is said first ("open 53, I need to see what was found")
    return sorted(ranked.values(), key=lambda r: (-r.score, r.verb_span[0] if r.verb_span else 99))


def _parts_just_listed(grammar: Grammar, ranked: dict[str, Ranked], allowed: set[str],
                       named: Mapping[str, tuple[int, int]], hints: Hints) -> None:
    """"remove o segundo" after an item's parts were listed: a write verb said of another entity's parts counts for
    the write of the same intent over the parts just listed (the evidence then prefers it)."""
    shown = _parts_shown(grammar, named, hints)
    if shown is None:
        return
    for base in [r for r in ranked.values() if r.verb is not None and r.cap.kind == "write"]:
        for cap in grammar.capabilities.values():
            if (cap.id in allowed and cap.id not in ranked and cap.kind == "write" and cap.intent == base.cap.intent
                    and any(s.type == shown for s in cap.slots)):
                ranked[cap.id] = Ranked(cap, base.score, base.verb, base.verb_span)


def _parts_shown(grammar: Grammar, named: Mapping[str, tuple[int, int]], hints: Hints) -> str | None:
    """The type of the parts the list just answered showed (its type comes first in the hints), when they are no
    item referred to by number and the message names none."""
    shown = hints.entity_types[0] if hints.entity_types else None
    return shown if shown is not None and shown not in grammar.referenced and not named else None


def _count_after_show(ranked: dict[str, Ranked]) -> None:
    """"me vê aí quantas <entidades> …", "show me how many …": a verb that shows, then a count asked — the show
    verb only opens the question (its reading is of the item the count is about, never a pick among them)."""
    shows = [r for r in ranked.values() if r.cap.kind == "read" and r.cap.intent == "show" and r.verb_span]
    for count in (r for r in ranked.values() if r.cap.intent == "count" and r.verb_span):
        before = [r.score for r in shows if r.verb_span[1] <= count.verb_span[0]]
        if before:
            count.score = max(count.score, max(before) + 1)


def _same_verb_other_entity(grammar: Grammar, ranked: dict[str, Ranked], allowed: set[str],
                            named: Mapping[str, tuple[int, int]], parts: list[str]) -> None:
    """"cancela a <entidade> 46", "quantas <entidades>…": a verb said of an entity the message names, whose
    capabilities list other verbs, counts for that entity's capability of the same kind and intent."""
    # "pop open <entity> 62": a verb of the named entity's own right after another's write verb is what that
    # word opens — the write verb is no verb for this entity
    own = [r.verb_span for r in ranked.values() if r.verb_span and r.cap.types & named.keys()]
    own_starts = {span[0] for span in own}
    for base in list(ranked.values()):
        # ("assign <person> to <entity> 57": a verb the named entity's own capability reads is that one's — never
        # lent to the entity's other capabilities of the intent it has for another entity, a child "<person>")
        if base.verb is None or base.cap.types & named.keys() or base.verb_span in own or (
                base.cap.kind == "write" and base.verb_span and base.verb_span[1] in own_starts):
            continue
        for other in grammar.capabilities.values():
            if (other.id in allowed and other.id not in ranked and other.kind == base.cap.kind
                    and other.intent == base.cap.intent and (other.types & named.keys() or _bare(named, parts))):
                # Named: as good as the verb's own entity. A bare number ("abre a 52") may name any entity:
                # a little behind, so the extraction (which one has a 52?) decides between them.
                ranked[other.id] = Ranked(other, base.score - (0 if named else 3), base.verb, base.verb_span)
            elif (other.id in allowed and other.id not in ranked and not named and other.kind == base.cap.kind == "read"
                  and other.intent == base.cap.intent and _a_value_of(grammar, other, parts)):
                # "how many still <value>?": a value only that entity's read filters by is said for it
                ranked[other.id] = Ranked(other, base.score - 1, base.verb, base.verb_span)


_OF_MANY = ("count", "list")


def _a_value_of(grammar: Grammar, cap: CapabilityGrammar, parts: list[str]) -> bool:
    return any(s.parse == "enum" and s.values and grammar.enum_value(s, parts) for s in cap.slots)


def asked_entity(grammar: Grammar, hints: Hints) -> str | None:
    """The entity of the last question: its capability's entity, or the type a field question named."""
    last = grammar.capabilities.get(hints.last_asked or "")
    return last.entity if last is not None else hints.last_asked


def _entity_asked_last(grammar: Grammar, ranked: dict[str, Ranked], allowed: set[str],
                       named: Mapping[str, tuple[int, int]], hints: Hints) -> None:
    """"how many <entities> are <state>?" then "and how many <other state>?": a read verb said with no
    entity named counts for the same read of the entity asked about last (`_evidence` then prefers it)."""
    entity = asked_entity(grammar, hints)
    if named or not entity:
        return
    for base in [r for r in ranked.values() if r.verb is not None and r.cap.kind == "read"]:
        for other in grammar.capabilities.values():
            if (other.id in allowed and other.id not in ranked and other.entity == entity
                    and other.kind == "read" and other.intent == base.cap.intent):
                ranked[other.id] = Ranked(other, base.score, base.verb, base.verb_span)


def _field_asked_last(grammar: Grammar, ranked: dict[str, Ranked], allowed: set[str],
                      named: Mapping[str, tuple[int, int]], hints: Hints) -> None:
    """"who is the <field> of <entity> 52?" then "change it to <value>": a write verb said with no entity named
    counts for the write of the field just asked about, on that entity (the extraction then says which fills)."""
    entity = asked_entity(grammar, hints)
    if named or not entity or not hints.asked_field:
        return
    writes = [c for c in grammar.capabilities.values() if c.id in allowed and c.kind == "write" and c.entity == entity
              and any(s.field == hints.asked_field and s.parse != "reference" for s in c.slots)]
    for base in [r for r in ranked.values() if r.verb is not None and r.cap.kind == "write" and r.cap.entity != entity]:
        for other in writes:
            if other.id not in ranked:
                ranked[other.id] = Ranked(other, base.score, base.verb, base.verb_span)


def _children_shown(grammar: Grammar, ranked: dict[str, Ranked], allowed: set[str],
                    named: Mapping[str, tuple[int, int]], parts: list[str]) -> None:
    """"gimme the <children> on 52": a verb that shows or opens, said of a kind of child only one entity's
    list has, counts for that list — and so the bare number is that entity's, whatever the verb's own
    entity. Not when the words name a value of what the verb opens: "me leva pros <filhos>" opens their tab."""
    shows = [r for r in ranked.values() if r.verb is not None and r.cap.intent.startswith(_SHOW_INTENTS)]
    if any(s.parse == "enum" and grammar.enum_value(s, parts) for r in shows for s in r.cap.slots):
        return
    for type_ in named.keys() if shows else ():
        lists = child_lists(grammar, type_, allowed)
        if len(lists) != 1 or lists[0].id in ranked or any(type_ in r.cap.types for r in shows):
            continue
        best = max(shows, key=lambda r: r.score)
        ranked[lists[0].id] = Ranked(lists[0], best.score - 1, best.verb, best.verb_span)


_SHOW_INTENTS = ("open", "show")  # and their kinds: "openTab"


def child_lists(grammar: Grammar, type_: str, allowed: set[str]) -> list[CapabilityGrammar]:
    """The read capabilities that list children of the kind `type_` names, each of one parent item."""
    return [c for c in grammar.capabilities.values() if c.id in allowed and c.kind == "read"
            and c.intent == "list" and _related(type_, c.entity) and _of_parent(c)]


def _of_parent(cap: CapabilityGrammar) -> bool:
    """A list of one entity's children: it needs the entity it lists from."""
    return any(s.required and s.parse == "reference" and s.type != cap.entity for s in cap.slots)


def _bare(named: Mapping[str, tuple[int, int]], parts: list[str]) -> bool:
    """No entity noun in the message, but a number that may name one."""
    return not named and any(p.isdigit() for p in parts)


_IT_SAID = [[w] for w in tokens("it ela ele isso")]


def _evidence(grammar: Grammar, item: Ranked, parts: list[str], named: Mapping[str, tuple[int, int]],
              hints: Hints) -> float:
    cap, score = item.cap, 0.0
    verb_span = set(range(*item.verb_span)) if item.verb_span else set()
    synonym_span = {i for a, b in named.values() for i in range(a, b)}
    for i, word in enumerate(parts):
        if i in verb_span or word in ARTICLES or word.isdigit():
            continue
        if any(same_word(word, k) for k in cap.keywords):
            score += 1 if i in synonym_span else 2
    # A noun inside one of the capability's enum phrases is that value's word, not an entity named
    # against it ("as <entidades> que têm <item> de <valor>" filters the entities).
    phrased = {i for slot in cap.slots if slot.parse == "enum" and (said := grammar.enum_phrase(slot, parts))
               for i in range(*said[1])}
    for type_, (start, end) in named.items():
        if type_ in cap.types:
            score += 3
        elif set(range(start, end)) <= phrased:
            continue
        elif not any(_related(type_, t) for t in cap.types):
            score -= 3
    numbers = number_positions(parts)
    # The field in focus and the topic are about the entity in focus: they speak for the capabilities
    # that act on it, never for a create ("quantos <itens> estão cadastrados?" after a field question).
    on_focus = any(s.parse == "reference" and s.type in hints.entity_types for s in cap.slots)
    for slot in cap.slots:
        if slot.parse == "integer" and numbers:
            score += 3 if any(unit for _, _, unit in numbers) else 2
        elif slot.parse == "enum" and slot.values and grammar.enum_value(slot, parts):
            # A declared phrase of several words ("sem inspetor definido") says more than one value word.
            said = grammar.enum_phrase(slot, parts)
            score += 4 if slot.required or (said and said[1][1] - said[1][0] > 1) else 1
        if hints.focus_field and hints.focus_field in (slot.name, slot.field) and on_focus:
            score += 4
    focus = next((t for t in hints.entity_types if t in grammar.referenced), None)
    if focus and not named and any(s.parse == "reference" and s.type == focus for s in cap.slots):
        score += 2  # "assign Peter" on an entity's page: the capability of the entity in focus
    shown = _parts_shown(grammar, named, hints)
    if shown is not None and any(s.type == shown for s in cap.slots):
        score += 3  # "remove the 2nd one" after an item's parts were listed: the capability over those parts
    if not named and cap.kind == "read" and cap.entity == asked_entity(grammar, hints):
        score += 1  # "how many <entities> …?" then "and how many are <state>?": still about that entity
    for word in hints.focus_words:
        if any(same_word(word, k) for k in cap.keywords):
            score += 2
    for word in hints.topic_words if on_focus or not hints.entity_types else ():
        if any(same_word(word, k) for k in cap.keywords):
            score += 3
    return score


def _own_type(cap: CapabilityGrammar) -> str | None:
    """The type of the item the capability acts on, when it takes one by reference."""
    return next((s.type for s in cap.slots if s.parse == "reference" and s.type == cap.entity), None)


def of_the_types_said(near: list[Ranked], types: Mapping[str, tuple[int, int]], referenced: frozenset[str], *,
                      numbered: bool) -> list[Ranked]:
    """Of close readings, the ones on an item of a type the message names ("abra a <entidade> 802": a reading of
    another entity, whose item the message does not name, is not read; "adia a primeira <entidade>": no write on
    another type's item). `numbered`: every number stands after a named type's noun. None left: all of them."""
    if numbered:
        near = [r for r in near if _own_type(r.cap) in {*types, None}] or near
    if said := set(types) & referenced:
        near = [r for r in near if _own_type(r.cap) in said or _own_type(r.cap) not in referenced] or near
    return near
