"""A state the message tells before what it asks: "a 325 foi cancelada e tá só poluindo a lista, pode excluir
ela", "311 was approved yesterday, so add <x> to it", "a 310 já tá aprovada, agora cancela ela". The participle
after "foi"/"tá"/"was"/"is" says what the item is, not what to do: it is left out of the words read for a
request (the item's number stays, so "ela"/"it" still points at it). Only in a clause before another one that
is more than courtesy, and never in a question (state_question.py answers "a 54 foi cancelada?")."""

from __future__ import annotations

import re

from . import lexicon

# ("foi toda conferida", "was fully checked": one word may stand between)
_TOLD = re.compile(r"\b(foi|foram|was|were|been|t[aá]|est[aá]|est[aã]o|t[aã]o|is|are)\s+"
                   r"((?:(?:toda|todo|todas|todos|totalmente|bem|ja|já|fully|all|already|properly|just)\s+)?"
                   r"[^\W\d_]+(?:ado|ada|ados|adas|ido|ida|idos|idas|ed))\b", re.IGNORECASE)
_CLAUSE_END = re.compile(r"[,;.]|\s(?:e|and|mas|but|so(?! far\b)|entao)\s", re.IGNORECASE)


def told_aside(text: str) -> str:
    """The message without the participles of the states it tells before a later clause (module docstring)."""
    said = lexicon.tokens(text)
    if text.rstrip().endswith("?") or set(said) & lexicon.OPEN_QUESTION_WORDS:  # "how many are scheduled, please"
        return text
    ends = [m for m in _CLAUSE_END.finditer(text) if set(lexicon.tokens(text[m.end():])) - lexicon.FILLER]
    last = ends[-1].start() if ends else 0  # (a clause of courtesy only is no later request: "…, please")
    return _TOLD.sub(lambda m: m.group(1) if m.end() <= last else m.group(0), text)


# "A <pessoa> perguntou quantas …", "o <chefe> pediu pra adiar …", "my boss wants to know which …": who asked is
# told, not part of what is asked — one to three words before the verb of asking, at the message's start, none of
# them a question word ("quem pediu a <entidade> 52?" asks who) or a number.
_REPORTED = re.compile(r"^\s*((?:[^\W\d_]+\s+){1,3}?)(?:perguntou|perguntaram|pediu|pediram|quer saber|queria saber|"
                       r"quer|precisa saber|asked|asks|wants to know|wanted to know|needs to know)\s+"
                       r"(?:(?:me|se|que|pra|para|if|whether|to)\s+){0,2}", re.IGNORECASE)
# Before the verb, these say the message asks about the asking ("quem pediu …?") or is the user's own wish.
_NOT_SOMEONE_ELSE = lexicon.QUESTION_WORDS | frozenset(lexicon.tokens("voce vc eu i you we nos"))


def reported_request(text: str) -> str:
    """The message without the person who asked for it ("A <pessoa> perguntou quantas …" → "quantas …")."""
    match = _REPORTED.match(text)
    if match is None or set(lexicon.tokens(match.group(1))) & _NOT_SOMEONE_ELSE:
        return text
    return text[match.end():]
