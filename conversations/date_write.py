"""A date said for an item with only a generic "do" verb: "can we do 62 in 3 days?", "dá pra fazer a
57 em 4 dias?". The write meant is the one write of the item's entity whose one value is a date
(the manifest's slots: a reference to the entity and one `date` slot) — asked as any write, with its
checks and a confirmation. Only when the message names an existing item by itself and a date, and
exactly one write fits; nothing here knows an entity. So is "bota a 57 pra amanhã": a placing verb whose
own write finds none of its values, an item and "pra <date>" (date_for_an_item).
"""

from __future__ import annotations

from knowledge.text import fold, words

from .dates import date_spans, shift_in
from .lexicon import ARTICLES, DAY_UNITS, FILLER, POINTING, tokens
from .operations import operate
from .ordinals import ordinal_in
from .turns import Turn
from .understanding import Extractor

# Closed-class verbs of doing: they name no operation of their own.
# "a 52 vai ficar pra semana que vem": where the item is to stay, said so
_DO = frozenset(tokens("do doing done fazer faz fazemos faca fazendo fizer realizar realiza realizamos fica ficar "
                       "fique ficaria"))


def date_write(turn: Turn, parts: list[str], allowed: set[str], extractor: Extractor) -> bool:
    if not any(p in _DO for p in parts):
        return False
    # "can we do it tmrw instead": "it" is the item in focus — not with a place said ("whatever that 2nd one says,
    # just do it" points at a part listed, and its "2nd" is no day)
    pointed = any(p in POINTING for p in parts) and ordinal_in(parts) is None
    return _the_date_write(turn, parts, allowed, extractor, use_context=pointed)


# "bota a 57 pra amanhã", "put 57 on Friday", "set 60 for the 28th": a date said as where the item goes.
_TO_A_DATE = frozenset(tokens("pra para pro pros to for on until till ate"))


def date_for_an_item(turn: Turn, parts: list[str], allowed: set[str], extractor: Extractor) -> bool:
    """A verb that found none of its values (a placing verb: "bota", "coloca", "put", "set"), an item and
    "pra <date>" — the item's one date write, as date_write's generic "do" — or "pra <N> dias" — its one
    write of an amount ("coloca a 311 pra 40 dias"); never the verb word as a value."""
    said = words(fold(turn.text))
    if any(start and said[start - 1] in _TO_A_DATE for start, _ in date_spans(turn.text, turn.language)):
        return _the_date_write(turn, parts, allowed, extractor)
    amounts = [i for i in range(1, len(parts) - 1) if parts[i].isdigit() and parts[i - 1] in _TO_A_DATE
               and parts[i + 1] in DAY_UNITS]
    return bool(amounts) and _the_date_write(turn, parts, allowed, extractor, parse="integer")


# What may stand beside an item and its value in a message with no verb: courtesy and "pls", "in 3 weeks' time".
_BESIDE = frozenset(tokens("por favor pls please plz pfv pf ai aí time entao então"))
# ... and what says when an item is to happen, with no verb of any capability: "<entity> 62 needs to happen in ten
# days instead", "a <entidade> 62 tem que acontecer daqui a dez dias", "<entity> 62 should take place next friday".
_TO_HAPPEN = frozenset(tokens("need needs to has have must should happen take place be held acontecer tem que precisa "
                              "deve deveria ser feita feito realizada realizado instead ter ficar com be"))


def value_for_an_item(turn: Turn, parts: list[str], allowed: set[str], extractor: Extractor) -> bool:
    """"<entidade> 57 pra amanhã", "310 para 60 dias", "meia dúzia de dias na 310, por favor": no verb at all, only an
    item's number (and its noun), a date or an amount in a unit, and closed-class words — the item's one write of
    that kind of value, proposed and confirmed as any write (a question about it asks: request.understand)."""
    said = words(fold(turn.text))
    dated = {said[i] for start, end in date_spans(turn.text, turn.language) for i in range(start, end)}
    if not any(p.isdigit() for p in parts) or any(
            not (p.isdigit() or p in dated or p in DAY_UNITS or p in ARTICLES or p in _TO_A_DATE or p in FILLER
                 or p in _BESIDE or p in _TO_HAPPEN or p in turn.grammar.noun_words) for p in parts):
        return False
    # "45 dias" alone, with an item on screen or just spoken of: that item's (no number names another)
    alone = not any(p.isdigit() and not (parts[i + 1:i + 2] and parts[i + 1] in DAY_UNITS)
                    for i, p in enumerate(parts)) and not dated
    return _the_date_write(turn, parts, allowed, extractor, parse="date" if dated else "integer", use_context=alone)


# The words a shift of a date is said with, alone: "3 days later", "dois dias antes", "a week earlier".
_SHIFTED = frozenset(tokens("later earlier sooner before after antes depois cedo tarde adiante frente more less mais "
                            "menos by em out back forward"))


def shift_alone(turn: Turn, parts: list[str], allowed: set[str], extractor: Extractor) -> bool:
    """"3 days later", "dois dias antes" with no verb and nothing else said: the item in focus's date moved
    (date_moved) — never a shift read out of a longer message ("whatever that 2nd one says, do it")."""
    if any(not (p.isdigit() or p in DAY_UNITS or p in _SHIFTED or p in ARTICLES or p in FILLER or p in _BESIDE)
           for p in parts):
        return False
    return date_moved(turn, parts, allowed, extractor)


def date_moved(turn: Turn, parts: list[str], allowed: set[str], extractor: Extractor) -> bool:
    """"bump it 3 days later" with <entity> 52 open, "estica a 57 mais uma semana" where only another entity has a
    57: a verb whose own write finds no item, and a date moved by an amount — the one date write of the item the
    message points at (by its number, or "it": the item just spoken of)."""
    return shift_in(turn.text, turn.language) is not None and _the_date_write(turn, parts, allowed, extractor,
                                                                              use_context=True)


def _the_date_write(turn: Turn, parts: list[str], allowed: set[str], extractor: Extractor, *,
                    parse: str = "date", use_context: bool = False) -> bool:
    """The one write of an item whose one value is of `parse` (a date, an amount), filled by the message."""
    found = []
    for cap in turn.grammar.capabilities.values():
        if cap.id not in allowed or cap.kind != "write":
            continue
        targets = [s for s in cap.slots if s.parse == "reference" and s.type == cap.entity and s.from_context]
        # (an integer that is an id — "<x>_id" — is no amount of days)
        dates = [s for s in cap.slots if s.parse == parse and not s.from_context and not s.name.endswith("_id")]
        others = [s for s in cap.slots if s.required and s not in targets and s not in dates]
        if len(targets) != 1 or len(dates) != 1 or others:
            continue
        extraction = extractor.extract(cap, parts, use_context=use_context)
        if (targets[0].name in (extraction.values if use_context else extraction.from_text)
                and dates[0].name in extraction.values):
            found.append((cap, extraction))
    if len(found) != 1:
        return False
    operate(turn, found[0][0], found[0][1], parts)
    return True
