"""What the message tells before what it asks: "Choveu e o acesso à <local> está alagado. Remarca a <entidade> 52
para daqui a uma semana, por favor." / "I've checked 318 over – please go ahead and approve it." The sentences
before the request say why; their words must not be read as the request ("acesso" is near a verb of opening,
a read's noun names a read). The message's own `_the_question` (runtime.py) does the same for a question
among told sentences; this module for a request to act.

The request is the last sentence that opens with a verb of acting (navigation or a write, after at most an
opening like "pode", "por favor", "please go ahead and"); sentences of courtesy only after it ("Obrigado!") stay
with it. The sentences before it open with no verb of their own, ask nothing ("?", "can you …") and dictate
nothing (a colon, lines pasted): else the message is read whole. When the request names its item itself (a
number after the item's noun or an article, a quote) and points back at nothing told ("dela", "it"), it is read
alone; else it is read with the told sentences after it, their verbs left out, so that "Conferi a <análise> da
311 … Pode aprovar." still finds 311. A creation is read whole: what it creates is often told before ("Recebemos
um aviso do <local> da <owner>. Quero uma <entidade> nova lá."), and so is a write that records a text. A later
clause that opens with an undo verb is the request whole ("…, undo the <child> I added"): what was done last is
undone, under its own confirmation."""

from __future__ import annotations

import re

from . import lexicon
from .answer_remark import CLAUSES
from .control_composed import undo_opened
from .data_spans import data_spans
from .flow import allowed_capabilities, pending_clarification, pending_confirmation
from .ranking import MASK, verb_matches
from .state import hints_for
from .turns import Turn
from .understanding import Ranked, rank

# ("I own this <owner>, so show me <entity> 320": a told reason, then what follows from it)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\s+[–—-]\s+|,\s*(?:so|então|entao|por isso)\s+", re.IGNORECASE)
_OPENING_WORDS = 2  # "pode aprovar", "por favor, agenda": the verb within the first words after any opening
_ROUNDS = 4  # verbs left out of the told sentences, one capability's at a time
_ASKING = frozenset(lexicon.tokens("pode poderia podes consegue can could would please pls kindly favor"))
_BACK = frozenset(lexicon.tokens("ele ela eles elas dele dela deles delas nele nela neles nelas it its them him her"))
_BEFORE_AN_ITEM = frozenset(lexicon.tokens("a o as os da do na no à ao the"))


def request_after_told(turn: Turn, text: str) -> str | None:
    """The message read as its request after what it tells (module docstring), or None to read it whole."""
    if pending_confirmation(turn) is not None or pending_clarification(turn) is not None:
        return None
    undo = _undo_after(text)
    if undo is not None:
        return undo
    if ":" in text or "\n" in text:  # a dictated or pasted text is data, never a told reason before a request
        return None
    sentences = [s.strip() for s in _SENTENCES.split(text.strip()) if s.strip()]
    allowed = allowed_capabilities(turn)
    acting = next(((i, top) for i in range(len(sentences) - 1, 0, -1)
                   if (top := _acting(turn, sentences[i], allowed)) is not None), None)
    if acting is None or not _on_an_item(acting[1]):
        return None
    at = acting[0]
    if any(_opens_with_verb(turn, s, allowed) or _asks(s) for s in sentences[:at]):
        return None
    told, request = " ".join(sentences[:at]), " ".join(sentences[at:])
    if lexicon.QUOTED.search(told):
        return None
    if _names_its_item(turn, request):
        return request
    told_words = lexicon.tokens(told)
    kept = _without_verbs(turn, told_words, allowed)
    # the request first: the told words after it only name what it is about ("<item> 318, please approve it"
    # would read the lone number as a request of its own)
    return None if kept == " ".join(told_words) else f"{request.rstrip(' .!')}, {kept}"


def _undo_after(text: str) -> str | None:
    """"Opa, lançamos o <filho> no lugar errado. Poderia desfazer essa última alteração?", "ok, back to that
    <entity>, undo the <child> I added": a later clause that opens with an undo is the request."""
    if lexicon.QUOTED.search(text) or ":" in text:  # a dictated value may say anything ('note: "ok, undo it"')
        return None
    clauses = [c for c in CLAUSES.split(text) if c.strip()]
    at = next((i for i in range(len(clauses) - 1, 0, -1) if undo_opened(lexicon.phrase(clauses[i]))), None)
    return None if at is None else text[text.rindex(clauses[at].strip()):]


def _acting(turn: Turn, sentence: str, allowed: set[str]) -> Ranked | None:
    """The sentence's best reading when it opens with a verb of acting (navigation, a write, a show), else None."""
    words = lexicon.tokens(sentence)
    ranked = rank(turn.grammar, words, allowed, hints_for(turn.conversation, with_topic=False))
    top = ranked[0] if ranked else None
    # (a read that shows one item — "show me <entity> 320" — is a look asked for too)
    acts = (top is not None and top.verb_span is not None and (top.cap.kind != "read" or top.cap.intent == "show")
            and top.verb_span[0] <= lexicon.lead_in(words) + _OPENING_WORDS)
    return top if acts else None


def _on_an_item(top: Ranked) -> bool:
    """Does the request act on an item it must name, with no text of its own to take? (A creation's values, or the
    text a write records — "<o que foi visto>, gravidade alta. registra na 52" —, are often told before it.)"""
    return (any(slot.parse == "reference" and slot.required for slot in top.cap.slots)
            and not (top.cap.kind == "write" and any(slot.parse == "text" and slot.required for slot in top.cap.slots)))


def _opens_with_verb(turn: Turn, sentence: str, allowed: set[str]) -> bool:
    words = lexicon.tokens(sentence)
    lead = lexicon.lead_in(words)
    return any(span[0] <= lead for _, span in verb_matches(turn.grammar, words, allowed).values())


def _asks(sentence: str) -> bool:
    """A question or a request of its own ("can you open <entity> 60 for me?") is nothing told."""
    return sentence.endswith("?") or bool(set(lexicon.tokens(sentence)[:2]) & _ASKING)


def _names_its_item(turn: Turn, sentence: str) -> bool:
    """An item's number after its noun or an article ("a <entidade> 52", "a 311"; "para 30 dias" is a value), or
    a quote — and no word pointing back at what was told ("dela", "it")."""
    words = lexicon.tokens(sentence)
    if set(words) & _BACK:
        return False
    nouns = turn.grammar.noun_words
    return bool(lexicon.QUOTED.search(sentence)) or any(
        w.isdigit() and i and (words[i - 1] in _BEFORE_AN_ITEM or words[i - 1] in nouns) for i, w in enumerate(words))


def _without_verbs(turn: Turn, words: list[str], allowed: set[str]) -> str:
    """The told words without any capability's verb (names of the data are kept whole)."""
    kept = data_spans(turn.grammar, turn.reader, words)
    words = list(words)
    for _ in range(_ROUNDS):
        spans = [span for _, span in verb_matches(turn.grammar, words, allowed).values()]
        spans = [s for s in spans if not kept & set(range(*s))]
        if not spans:
            break
        for start, end in spans:
            words[start:end] = [MASK] * (end - start)
    return " ".join(w for w in words if w != MASK)
