"""Which reading of a request to act on: among the close candidates the ranking gives, the one the message
itself fills best with the tenant's data (request.understand, read_and_write and compound_request call it)."""

from __future__ import annotations

from . import lexicon
from .field_write import field_writes, fields_outweighing, moves_its_own
from .grammar import CapabilityGrammar, SlotSpec, find_phrase, same_word
from .picked_question import picked_words
from .plurals import plural_types
from .question import numbered_by_another
from .ranking import of_the_types_said
from .turns import Turn
from .understanding import Extraction, Extractor, Ranked, masked, number_positions


def choose(turn: Turn, ranked: list[Ranked], parts: list[str], extractor: Extractor,
           allowed: set[str]) -> tuple[Ranked, Extraction]:
    """Among close candidates, prefer the one the message itself fills best with the tenant's data."""
    top = ranked[0].score
    scored: list[tuple[float, int, Ranked, Extraction]] = []
    named = extractor.named_numbers(parts)
    view = masked(parts, extractor.data[1]) if parts == extractor.data[0] else parts  # names are not numbers
    many = plural_types(turn.grammar, view) if not any(p.isdigit() for p in view) else set()
    # Only when the verb's best reading is about the entity said in the plural ("vá para os <filhos>"
    # opens a tab of another entity's page: no list there), or lists the children of one of them ("quais
    # <entidades> têm <filhos>?" asks which of many, not the children of one).
    best = [r.cap for r in ranked if r.score >= ranked[0].score]  # (the best readings, when they tie)
    many &= {c.entity for c in best} | {s.type for c in best for s in c.slots if _of_parent(c, s)}
    ranked = _with_lists(turn, ranked, many, allowed)
    # A field the message names is evidence for the write that fills it, just below the verbs' readings.
    # An amount in a slot's unit is evidence for its write against another write the verb reads ("bota 20 dias
    # na 340", "tira 5 dias da 311": those verbs also add or remove a child) — not against a read or a create
    # ("faz uma igual à 311 com 20 dias")
    by_unit = all(r.cap.kind == "write" and r.cap.intent != "create" for r in ranked if r.score >= top)
    # (not in a question that names no write nor an item: "tem <entidade> marcada pra amanhã?" asks which there are)
    asked = (lexicon.asks(parts, turn.text) and all(r.cap.kind != "write" for r in ranked if r.score >= top)
             and not any(not unit for _, _, unit in number_positions(view))
             and not set(parts) & lexicon.DEMONSTRATIVES)
    # (a field said to pick an item of the last list, "a que tá marcada pra daqui 14 dias", is no write's evidence)
    said = masked(parts, picked_words(turn, parts))
    fields = [Ranked(cap, top - 1) for cap in field_writes(turn, said, allowed, by_unit=by_unit) if all(
        r.cap.id != cap.id for r in ranked) and not moves_its_own(turn, ranked[0], cap, said)] if not asked else []
    verb = parts[span[0]:span[1]] if (span := ranked[0].verb_span) is not None else []
    named_field = fields_outweighing(turn, ranked[0].cap, verb, said, allowed) if not asked else set()
    ranked = sorted(ranked + fields, key=lambda r: -r.score)
    # "abra a <entidade> 802": a reading of another entity, whose item the message does not name, is not read
    types = turn.grammar.types_named_in(view)
    near = [r for r in ranked if r.score >= top - 8]
    near = of_the_types_said(near, types, turn.grammar.referenced, numbered=numbered_by_another(view, types))
    close = [(item, extractor.extract(item.cap, parts, verb_end=item.verb_span[1] if item.verb_span else None))
             for item in near[:5]]
    # "make <person> <field> for 312": a bare number one reading resolves to an existing item is that item's,
    # no evidence for a reading that takes it as an amount
    items = {str(v.label) for _, e in close for vs in e.values.values() for v in vs if v.entity and v.source == "text"}
    taken = {d for _, d, unit in number_positions(view) if not unit} & items
    # "put <person> as <label> on 340": the field a name goes to, said by its label, is that slot's
    labelled = {s.type for item, e in close for s in item.cap.slots if s.name in e.from_text and _label_said(s, parts)}
    # "assign a <role> to <entity> 57": the words of the best reading's verb phrase are no text value of another
    span = ranked[0].verb_span
    verb_words = frozenset(parts[span[0]:span[1]]) if span is not None and span[1] - span[0] > 1 else frozenset()
    for order, (item, extraction) in enumerate(close):
        # "… the <field> of <entity> 311": an entity the message names that the capability has no
        # place for (a create of that entity, another entity's operation) is evidence against it.
        bonus = -4.0 if named - extraction.used else 0.0
        if any(_of_parent(item.cap, s) and s.type in many for s in item.cap.slots):
            bonus -= 3.0  # "quais <entidades> têm <filhos>?": many parents said, no list of one's children
        elif item.cap.entity in many:  # "as <entidades> em rascunho da X": many of them, no number — a list
            # of them, not of one's children ("<entity>.<children>.list" needs the one it lists from)
            bonus += 6.0 if item.cap.intent in _MANY_INTENTS and not _of_one(item.cap) else -3.0
        bonus += _filled(item.cap, extraction, parts, extractor, taken, verb_words if order else frozenset())
        bonus += 4.0 if item.cap.id in named_field else 0.0
        bonus += sum(3.0 if _label_said(s, parts) else -3.0 for s in item.cap.slots
                     if s.resolver and s.parse is None and s.name in extraction.from_text and s.type in labelled)
        scored.append((item.score + bonus, -order, item, extraction))
    scored.sort(key=lambda t: (t[0], t[1]), reverse=True)
    return scored[0][2], scored[0][3]


def _only_its_noun(cap: CapabilityGrammar, label: object, extractor: Extractor) -> bool:
    words = set(lexicon.tokens(str(label))) - lexicon.ARTICLES
    nouns = {w for phrase in extractor.grammar.synonyms.get(cap.entity, ()) for w in phrase}
    return bool(words) and all(any(same_word(w, n) for n in nouns) for w in words)


def _filled(cap: CapabilityGrammar, extraction: Extraction, parts: list[str], extractor: Extractor,
            taken: set[str], verb_words: frozenset[str] = frozenset()) -> float:
    """How well the message fills the capability's slots (`taken`: bare numbers a reading resolves to items;
    `verb_words`: the words of another reading's verb phrase, no value here)."""
    bonus = 0.0
    pointed = any(p in lexicon.DEMONSTRATIVES for p in parts)
    for slot in cap.slots:
        said = slot.name in extraction.from_text
        if said and slot.parse == "text" and verb_words and set(lexicon.tokens(
                str(extraction.values[slot.name][0].label))) <= verb_words:
            said = False
        if said and slot.parse == "text" and _only_its_noun(cap, extraction.values[slot.name][0].label, extractor):
            said = False  # "list the <entities> of <owner>": the entity's own noun is no query of its search
        if said and slot.parse == "integer" and str(extraction.values[slot.name][0].label) in taken:
            said = False  # the number names an item another reading resolves
        if said and slot.parse == "text" and _holds_a_name(extraction, slot.name, parts, extractor):
            pass  # "põe o <nome> na 57": a name of the tenant's is a value of a slot that resolves it
        elif said:
            bonus += 4 if slot.required else 1
        elif slot.name in extraction.ambiguous:
            bonus += 2
        elif slot.name in extraction.not_found and slot.parse == "reference":
            bonus -= 4  # "abre a 55": no such entity of this type — another type may have one
        elif slot.parse == "reference" and slot.name in extraction.values and pointed:
            bonus += 2  # "abre ela": the item a pronoun points at is of this type
        elif slot.name in extraction.not_found and slot.required:
            bonus -= 1
    return bonus


def _label_said(slot: SlotSpec, parts: list[str]) -> bool:
    return any(find_phrase(parts, tuple(lexicon.tokens(label))) for label in (slot.label or {}).values())


_MANY_INTENTS = frozenset({"search", "list", "count"})


def _of_parent(cap: CapabilityGrammar, slot: SlotSpec) -> bool:
    """`slot` is the one item `cap` lists the children of."""
    return cap.intent in _MANY_INTENTS and slot.required and slot.parse == "reference" and slot.type != cap.entity


def _of_one(cap: CapabilityGrammar) -> bool:
    return any(s.required and s.parse == "reference" and s.type == cap.entity for s in cap.slots)


def _with_lists(turn: Turn, ranked: list[Ranked], many: set[str], allowed: set[str]) -> list[Ranked]:
    """"me mostra as <entidades> …": a show (or open) verb said of many is the entity's search, even when
    the search lists other verbs."""
    extra = []
    for item in ranked:
        # (an entity's page too: "gimme all of <name>'s <entities>" opens no page of one of them)
        if item.cap.entity in many and item.cap.kind in ("read", "navigation") and item.cap.intent not in _MANY_INTENTS:
            extra += [Ranked(cap, item.score, item.verb, item.verb_span) for cap in turn.grammar.capabilities.values()
                      if cap.entity == item.cap.entity and cap.kind == "read" and cap.intent == "search"
                      and cap.id in allowed and all(r.cap.id != cap.id for r in ranked + extra)]
    return sorted(ranked + extra, key=lambda r: -r.score)


def _holds_a_name(extraction: Extraction, slot: str, parts: list[str], extractor: Extractor) -> bool:
    names = {parts[i] for i in extractor.data[1] if i < len(parts)}
    said = set(lexicon.tokens(" ".join(str(v.label) for v in extraction.values.get(slot) or ())))
    return bool(names & said)
