"""A new request: the message names a capability (operational, navigation, read, knowledge, batch)
or asks about a field. The capability the message fills best is chosen; what the fast path cannot
parse goes to the LLM intent parser (when configured), else to a clarification. Never an invented
answer."""

from __future__ import annotations

from . import lexicon
from .asked_first import question_then_request
from .batch import batch_request
from .both_items import both_asked
from .choice import choose
from .clone import clone_extraction, copies_the_item, copy_asked
from .compared import compared_positions, values_compared
from .compared_filter import compared_filter, compared_read, comparison_unread
from .compound_said import compound_shape, said_part
from .courtesy import courtesy
from .data_spans import data_spans, name_word_positions
from .date_write import date_for_an_item, date_moved, date_write, shift_alone, value_for_an_item
from .each_item import each_item
from .explain import explain, explains, explanation_first
from .field_write import field_write, field_write_of
from .flow import allowed_capabilities, operated_mark, rest
from .freetext import described_positions, quoted_positions
from .grammar import CapabilityGrammar
from .llm import llm_understand
from .lone import lone_turn, open_said_value
from .navigation import navigate
from .negated_filter import negated_filter
from .new_one import a_new_one, wanted_new
from .next_item import next_item
from .operations import operate
from .picked_question import picked_question
from .question import field_question
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
from .understanding import Extraction, Extractor, Ranked, masked, rank


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
        return compound_request(turn, parts, shape, spans, allowed, choose, understand)
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
    if next_item(turn, parts, allowed, extractor):  # "when is the next <entity> of <owner>?"
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
    if not ranked and not asks and (value_for_an_item(turn, parts, allowed, extractor)
                                    or shift_alone(turn, parts, allowed, extractor)):
        return  # "<entidade> 57 pra amanhã", "310 para 60 dias", "3 days later": an item and its new value, no verb
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
    if cap.kind == "write" and _told_done(parts, best) and not _acts_after(turn, parts, best, allowed):
        # "a 311 foi criada errada", "tô fechando a pauta" (not "tô fechando a <x>, conclui ela")
        return None if _shown(turn, cap, parts, allowed, extractor) else unparsed(turn, parts)  # (nothing proposed)
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
    if not clone and each_item(turn, cap, extraction, parts, extractor):  # "aprova a 310 e a 311": both, once
        return
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


def _acts_after(turn: Turn, parts: list[str], best: Ranked, allowed: set[str]) -> bool:
    """A verb of acting (a write, a navigation) said after the best reading's."""
    later = rank(turn.grammar, parts[best.verb_span[1]:], allowed, hints_for(turn.conversation, with_topic=False))
    return bool(later) and later[0].verb_span is not None and later[0].cap.kind in ("write", "navigation")


def _told_done(parts: list[str], best: Ranked) -> bool:
    """The verb said in the past right after "foi"/"was", or as going on right after "tô"/"I'm", opening no request:
    the message tells what was or is being done."""
    if best.verb_span is None or not best.verb_span[0]:
        return False
    start = best.verb_span[0]
    said = (parts[start - 1] in _PAST_MARKERS and parts[start].endswith(_PAST_ENDINGS)) or (
        parts[start - 1] in _GOING_ON and parts[start].endswith(_GOING_ON_ENDINGS))
    return said and not any(p in lexicon.REQUEST_OPENERS for p in parts[:start - 1])


_GOING_ON = frozenset(lexicon.tokens("to tou estou estamos tamo tamos m am are re"))  # "tô", "I'm", "we're"
_GOING_ON_ENDINGS = ("ando", "endo", "indo", "ing")


def _shown(turn: Turn, cap: CapabilityGrammar, parts: list[str], allowed: set[str], extractor: Extractor) -> bool:
    """The item the message names, shown by its entity's read; False when it names none."""
    read = next((c for c in turn.grammar.capabilities.values() if c.id in allowed and c.kind == "read"
                 and c.entity == cap.entity and c.intent == "show"), None)
    extraction = extractor.extract(read, parts, use_context=False) if read is not None else None
    if extraction is None or not extraction.complete or not extraction.from_text:
        return False
    operate(turn, read, extraction, parts)
    return True


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
