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
""".strip().splitlines()) + tuple(
    # "pode ser, mas 30 dias", "confirma, só que pra daqui a duas semanas", "sure, but make it Friday": a yes that
    # changes what it says yes to
    tuple(words(fold(f"{yes} {but}"))) for yes in ("sim", "ok", "pode ser", "confirma", "confirmo", "beleza", "certo",
                                                  "yes", "yeah", "sure", "fine", "okay", "si")
    for but in ("mas", "so que", "porem", "but", "pero", "except"))
