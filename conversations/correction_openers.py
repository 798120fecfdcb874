"""The words a correction opens with ("não, …", "I meant …", "na real …"), then says what is right: closed-class words
of the two languages, folded like the lexicon's (lexicon.py reads them), apart from the control phrases."""

from __future__ import annotations

from knowledge.text import fold, words

# A correction opens with one of these (then says what is right).
CORRECTION_OPENERS = tuple(tuple(words(fold(p))) for p in """
nao
no
not
nope
nah
negativo
na verdade
ah nao
errado
errei
eu quis dizer
quis dizer
queria dizer
quero dizer
quer dizer
ou seja
digo
or rather
melhor
aliás
alias
actually
i meant
i mean
wrong
rather
sorry
ops
opps
oops
whoops
epa
foi mal
my bad
ou melhor
na real
corrigindo
correcao
corrige
corrija
corrigir
fix
me enganei
enganei
me confundi
confundi
troquei
my mistake
scratch that
correction
era
wait make it
wait make that
sim mas
yes but
ok mas
ok but
meant
i meant to say
should be
should have been
essa nao
esse nao
nao essa
nao esse
essa ai nao
""".strip().splitlines()) + tuple(
    # "pode ser, mas 30 dias", "confirma, só que pra daqui a duas semanas", "sure, but make it Friday": a yes that
    # changes what it says yes to
    tuple(words(fold(f"{yes} {but}"))) for yes in ("sim", "ok", "pode ser", "confirma", "confirmo", "beleza", "certo",
                                                  "yes", "yeah", "sure", "fine", "okay", "si")
    for but in ("mas", "so que", "porem", "but", "pero", "except"))

# "<entity> 52, foi mal", "Tiago instead": a correction said by its closing words
_INSTEAD = ("instead",)
CLOSING_APOLOGIES = tuple(tuple(words(fold(p))) for p in ("foi mal", "my bad", "sorry", "desculpa", "desculpe",
                                                          "i mean", "i meant", "quis dizer", "me enganei", *_INSTEAD))


def closed_by_instead(text: str) -> bool:
    """"Tiago instead": the correction is said by its closing word (a request closed so — "open 311 instead" — is a
    request: the caller checks)."""
    said = words(fold(text))
    return bool(said) and said[-1] in _INSTEAD
