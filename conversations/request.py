"""A new request: the message names a capability (operational, navigation, read, knowledge, batch)
or asks about a field. The capability the message fills best is chosen; what the fast path cannot
parse goes to the LLM intent parser (when configured), else to a clarification. Never an invented
answer."""

from __future__ import annotations

from . import lexicon
from .asked_first import question_then_request
from .batch import batch_request
from .both_items import both_asked
from .clone import clone_extraction, copies_the_item, copy_asked
from .compared import compared_positions, values_compared
from .compared_filter import compared_filter, compared_read, comparison_unread
from .compound_said import compound_shape, said_part
from .courtesy import courtesy
from .data_spans import data_spans, name_word_positions
from .date_write import date_for_an_item, date_moved, date_write
from .explain import explain, explains, explanation_first
from .field_write import field_write, field_write_of, field_writes, fields_outweighing, moves_its_own
from .flow import allowed_capabilities, operated_mark, rest
from .freetext import described_positions, quoted_positions
from .grammar import CapabilityGrammar, SlotSpec, find_phrase, same_word
from .llm import llm_understand
from .lone import lone_turn, open_said_value
from .navigation import navigate
from .negated_filter import negated_filter
from .new_one import a_new_one, wanted_new
from .operations import operate
from .picked_question import picked_question, picked_words
from .plurals import plural_types
from .question import field_question, numbered_by_another
from .ranking import of_the_types_said
from .read_and_write import read_and_write
from .sequence import compound_request
from .social import social_said
from .state import hints_for, situation_for
from .state_question import state_question
from .statemachine import Status
from .status_goal import status_goal, status_instead
from .tab_shown import tab_shown
from .text_filter import text_filter
from .turns import Turn
from .two_questions import two_questions
from .understanding import Extraction, Extractor, Ranked, masked, number_positions, rank


def understand(turn: Turn, parts: list[str], allowed: set[str]) -> None:
    if both_asked(turn, parts):  # "lista os <filhos> das duas": asked of each of the last two items
        return
    hints = hints_for(turn.conversation, with_topic=True)
    situation = situation_for(turn.conversation)
    # The tenant's names said in the message are values: their words never pick a verb, noun or target.
    spans = data_spans(turn.grammar, turn.reader, parts, situation)
    spans |= name_word_positions(turn.grammar, turn.reader, parts)  # "da Delta" (of "Delta Engenharia"): no "deleta"
    spans |= compared_positions(parts, turn.text)  # "a mesma <campo> da 312": never the target
    # and what the user quoted, or what an item is said to say ("o <item> que manda …"): values as typed
    spans |= quoted_positions(turn.text, parts) | described_positions(turn.text, parts, _data_nouns(turn),
                                                                      _numbered_nouns(turn))
    ranked = explanation_first(rank(turn.grammar, masked(parts, spans), allowed, hints))
    # "adicione X e depois aprove", "se estiver vencida, renove": never one action of several silently.
    shape = (compound_shape(turn.grammar, said_part(turn.text, masked(parts, spans)), allowed, hints)
             if ranked else None)
    extractor = Extractor(grammar=turn.grammar, reader=turn.reader, situation=situation, text=turn.text,
                          language=turn.language, data=(parts, spans))
    if (shape is None or shape.kind == "sequence") and read_and_write(
            turn, parts, spans, allowed, understand, extractor, choose):
        return  # "qual a <campo> da 312 e aumenta ela em 5 dias", "open 52 and reschedule it …"
    if shape is not None:
        return compound_request(turn, parts, shape, spans, allowed, choose)
    # "quem é o <campo> da <entidade> 45?": a question naming a field of an entity is answered from
    # that entity's data before any capability whose verb the question happens to contain.
    if question_then_request(turn, allowed, understand):  # "qual a <campo> da 312? e já aumenta em 5 dias"
        return
    if two_questions(turn, parts):  # "who's <field> of 318, and is it <state> yet?": both answered
        return
    if state_question(turn, parts):  # "… 54 foi cancelada?": a state asked, before "cancelar" is read as a verb
        return
    if picked_question(turn, parts):  # "which one's further out?" after a list
        return
    if compared_read(turn, parts, allowed, extractor, bool(ranked) and ranked[0].cap.kind == "write"):
        return  # "quais <entidades> têm <campo> de 30 dias ou mais?": a list, not a question about one
    # "você poderia prorrogar a 311?", "será que dava pra passar a <campo> da 311 pra 25 dias?", "could you take
    # me to its <tab>?": a write or a navigation asked politely is a request, not a question about a field.
    asks = lexicon.asks(parts, turn.text) and not (lexicon.polite(parts) and (
        (ranked and ranked[0].cap.kind in ("write", "navigation"))
        or field_write_of(turn, parts, allowed) is not None)) and not _opens_with_a_command(ranked, parts, turn.text) \
        and not (ranked and explains(ranked[0]))  # "can you explain this <child>?" asks the knowledge base
    if asks and _what_this_field_is(parts):  # "o que é esse campo?", "what's this field?": what it means
        return explain(turn, parts)
    tab = tab_shown(turn, ranked, parts, allowed, extractor)  # "mostra os <filhos>" with its item's page open
    if tab is not None:
        return navigate(turn, tab[0], tab[1], parts)
    # ("quanto de <campo> tem a 311?" asks an amount of one item's field, no count)
    counts = any(p in lexicon.COUNT_WORDS and parts[i + 1:i + 2] != ["de"] for i, p in enumerate(parts))
    if asks and field_question(turn, parts, phrases_with=lexicon.COUNT_WORDS if counts else None, data=spans):
        return
    if not ranked and lone_turn(turn, parts, allowed, extractor):  # "57", "<entidades>"
        return
    if open_said_value(turn, parts, ranked, allowed):  # "open <the place of one item>"
        return
    if not ranked and field_write(turn, parts, allowed, extractor):  # "<campo> da 310 pra 40 dias"
        return
    if not ranked and any(p.isdigit() for p in parts) and field_question(turn, parts, data=spans):
        return  # "<field> of 320": asked without asking (its item's number said: no "which one?" for a remark)
    if not ranked and date_write(turn, parts, allowed, extractor):  # "can we do 62 in 3 days?"
        return
    # "I need <entity> 311 cancelled": a status wanted, said outside names and dictated text
    if not ranked and status_goal(turn, said_part(turn.text, masked(parts, spans)), allowed, extractor):
        return
    wanted = wanted_new(turn, parts, allowed) if not ranked else None
    if wanted is not None:  # "we need an <entity> for <owner>": that entity's create, asked for what it lacks
        return operate(turn, wanted, extractor.extract(wanted, parts), parts)
    if not ranked:
        return unparsed(turn, parts)
    if explains(ranked[0]):  # "o que significa um <filho> numa <entidade>?": explained, whatever fills best
        return explain(turn, parts, from_word=ranked[0].verb_span[0])
    best, extraction = choose(turn, ranked, parts, extractor, allowed)
    cap = best.cap
    # "abre uma <entidade> nova pra …": open a new one is a create; "crie uma igual à 310, mas com …" a copy
    new = a_new_one(turn, cap, parts, allowed, extractor) or copy_asked(ranked, best, parts)
    if new is not None:
        cap, extraction = new, extractor.extract(new, parts)
    # "bota a 57 pra amanhã": a verb whose write finds none of its values, said of an item "pra <date>"
    if (cap.kind == "write" and not extraction.complete and not extraction.from_text - _targets(cap)
            and date_for_an_item(turn, parts, allowed, extractor)):
        return
    if cap.kind == "write" and _no_item(cap, extraction) and date_moved(turn, parts, allowed, extractor):
        return  # "bump it 3 days later" with another entity's item open: that item's date, moved
    # "o que foi apontado na <entidade> 52?": a question about what was done is no request to do it.
    # "does 720 include <child>?": a yes-or-no question about what the write would add is answered from the list
    if cap.kind == "write" and (_asks_what_was_done(parts, best) or _yes_or_no(parts, turn.text)) \
            and not lexicon.polite(parts):
        return _what_was_done(turn, cap, parts, allowed, extractor)
    # "deixa a 802 como cancelada", "set 311 to approved": a generic verb that finds none of its values, and a
    # status goal said.
    if (status_instead(turn, cap, extraction)
            and status_goal(turn, said_part(turn.text, masked(parts, spans)), allowed, extractor)):
        return
    # "vê aí a <campo> da 311": showing a field the manifest names is a field question too.
    if cap.kind == "read" and cap.intent == "show" and field_question(turn, parts, phrases_with=frozenset()):
        return
    page = _page_of(turn, cap, parts, allowed)
    if page is not None:
        cap, extraction = page, extractor.extract(page, parts)
    if any(s.type == "knowledgeRef" for s in cap.slots):  # what comes before its verb is no topic ("Bom dia. Antes…")
        return explain(turn, parts, from_word=best.verb_span[0] if best.cap is cap and best.verb_span else 0)
    if cap.kind == "navigation":
        return navigate(turn, cap, extraction, parts)
    # (the status is UNDERSTANDING by now: what was running is what the conversation rested in)
    if cap.kind == "write" and turn.resting_before in (Status.EXECUTING, Status.CANCELLING):
        return turn.error("BUSY", "busy")
    if cap.batch is not None and best.verb is not None and best.verb.batch and best.cap.id == cap.id:
        return batch_request(turn, cap, parts, extractor)
    if negated_filter(turn, cap, extraction, parts, allowed):  # "quantas não estão canceladas?"
        return
    if compared_filter(turn, cap, extraction, parts, allowed):  # "quantas têm <campo> maior que 20 dias?"
        return
    # "quantas <entidades> no <Lugar>?": a name is the read's text filter; one it cannot apply is said with the total
    unread = (text_filter(turn, cap, extraction, parts, best.verb_span, extractor.skip_words(cap))
              or comparison_unread(turn, cap, parts))
    values_compared(turn, cap, extraction)  # "a mesma <campo> da 312": 312's, read now
    clone = cap.intent == "create" and copies_the_item(turn, cap, parts)
    if clone:
        extraction = clone_extraction(turn, cap, parts, extractor)
    operate(turn, cap, extraction, parts, clone=clone)
    if unread:  # its answer opens with the filter it did not apply (hooks._message)
        operated_mark(turn, cap.id, "unfiltered", unread)




# "foi apontado", "was added", "who approved", "quem cancelou": the verb said of the past.
_PAST_MARKERS = frozenset(lexicon.tokens("foi foram fora fez fizeram ja was were been did has have had"))
_PAST_ENDINGS = ("ed", "ou", "aram", "eram", "iram", "ado", "ada", "ido", "ida", "ados", "adas", "idos", "idas")


def _no_item(cap: CapabilityGrammar, extraction: Extraction) -> bool:
    """The write's item was not found, or not said and not in context."""
    return any(name in extraction.missing or name in extraction.not_found for name in _targets(cap))


def _targets(cap: CapabilityGrammar) -> set[str]:
    """The slots naming the item a capability acts on (the ones context may fill)."""
    return {s.name for s in cap.slots if s.from_context and s.parse == "reference"}


def _data_nouns(turn: Turn) -> frozenset[str]:
    """The nouns of the items whose names are data (no number refers to them, only their names do)."""
    return frozenset(w for type_, phrases in turn.grammar.synonyms.items() if type_ not in turn.grammar.referenced
                     for phrase in phrases for w in (phrase[-1], phrase[-1] + "s"))


def _numbered_nouns(turn: Turn) -> frozenset[str]:
    """The nouns of the items a number refers to ("<entidade> 51")."""
    return frozenset(w for type_, phrases in turn.grammar.synonyms.items() if type_ in turn.grammar.referenced
                     for phrase in phrases for w in phrase[-1:])


def _asks_what_was_done(parts: list[str], best: Ranked) -> bool:
    """A question word opens the message and its verb is said of the past: it asks what was done."""
    words = [p for p in parts if p not in lexicon.ARTICLES][:1]
    if not words or words[0] not in lexicon.QUESTION_WORDS or best.verb_span is None:
        return False
    verb = parts[best.verb_span[0]] if best.verb_span[0] < len(parts) else ""
    return bool(set(parts[:best.verb_span[0]]) & _PAST_MARKERS) or verb.endswith(_PAST_ENDINGS)


def _yes_or_no(parts: list[str], text: str) -> bool:
    """An English question opened by an auxiliary ("does …?", "is … on …?", "has …?"): it asks, it asks for nothing."""
    return text.rstrip().endswith("?") and bool(parts) and parts[0] in _AUXILIARIES


_AUXILIARIES = frozenset(lexicon.tokens("does do did is are was were has have"))


def _what_was_done(turn: Turn, cap: CapabilityGrammar, parts: list[str], allowed: set[str],
                   extractor: Extractor) -> None:
    """Answer from the list of what the write adds to (`<entity>.<children>.add` → `<entity>.<children>.list`,
    the registry's naming of child collections), else say it was not understood — never propose the write."""
    family = cap.id.rsplit(".", 1)[0]
    reads = [c for c in turn.grammar.capabilities.values() if c.id in allowed and c.kind == "read"
             and c.id.rsplit(".", 1)[0] == family and c.id != cap.id]
    if len(reads) != 1 or family.count(".") < 1:
        return unparsed(turn, parts)
    operate(turn, reads[0], extractor.extract(reads[0], parts), parts)


def _page_of(turn: Turn, cap: CapabilityGrammar, parts: list[str], allowed: set[str]) -> CapabilityGrammar | None:
    """"mostre a permissão 123" / "show permit 123" is known navigation: showing one entity opens its page
    (a question about it — "qual é…?" — is answered instead)."""
    if cap.kind != "read" or cap.intent != "show" or any(p in lexicon.QUESTION_WORDS for p in parts):
        return None
    return next((c for c in turn.grammar.capabilities.values() if c.id in allowed and c.kind == "navigation"
                 and c.entity == cap.entity and c.intent == "open"), None)


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


def _opens_with_a_command(ranked: list[Ranked], parts: list[str], text: str) -> bool:
    """"open <entity> 53, I need to go over what was found there": a navigation or a write whose verb opens the
    message (after a lead-in) is asked for, whatever question word a later clause holds — unless it ends in "?"."""
    if not ranked or ranked[0].verb_span is None or text.rstrip().endswith("?"):
        return False
    opening = next((i for i, p in enumerate(parts) if p not in lexicon.OPENING), len(parts))  # "I'd like you to"
    return ranked[0].cap.kind in ("write", "navigation") and ranked[0].verb_span[0] <= opening


def _what_this_field_is(parts: list[str]) -> bool:
    """A question about "this field" itself (a field word and a demonstrative, no number) that asks nothing of its
    value ("qual o valor desse campo?", "what's in this field?" ask the value)."""
    return (any(p in _FIELD_WORDS for p in parts) and any(p in lexicon.DEMONSTRATIVES for p in parts)
            and not any(p.isdigit() or p in _VALUE_ASKED for p in parts))


_FIELD_WORDS = frozenset(lexicon.tokens("campo field"))
_VALUE_ASKED = frozenset(lexicon.tokens("valor value in tem has have quanto quantos how many much preenchido filled"))


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


def unparsed(turn: Turn, parts: list[str]) -> None:
    if llm_understand(turn, parts):
        return
    social = social_said(lexicon.tokens(turn.text))
    if social is not None:  # "valeu chefe": a courtesy among words not understood is answered, not "não entendi"
        return courtesy(turn, social, allowed_capabilities(turn))
    rest(turn)
    turn.reply("clarification", "clarify.unknown", values={},
               clarification={"id": None, "question": turn.say("clarify.unknown"), "missing_fields": [],
                              "candidates": [], "expires_at": None})
