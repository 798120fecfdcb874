"""The whole-message control phrases of the two languages: yes, no, cancel, undo, retry, resume
(lexicon.py reads them; answer_remark.control_of answers them). Closed-class words, not domain vocabulary;
compared on folded text, so "não", "nao" and "NÃO" are the same phrase.
"""

from __future__ import annotations

from knowledge.text import fold, words

from .complaints import COMPLAINTS
from .control_composed import affirmations, cancel_phrasings, kept_as_is, no_longer_wanted, undo_phrasings
from .control_retry import RESUME, RETRY  # noqa: F401 - the control phrases, read as lexicon.*


def _set(text: str) -> frozenset[str]:
    return frozenset(" ".join(words(fold(line))) for line in text.strip().splitlines() if line.strip())


# Whole-message phrases (after dropping FILLER words at either end).
CONFIRM = _set("""
sim
s
confirmo
confirma
confirmado
confirmar
pode
pode sim
pode seguir
pode avancar
avanca
avance
esta bem
ta bem
pode ir
pode fazer
pode executar
pode continuar
ok
okay
claro
claro que sim
isso
isso mesmo
exato
certo
correto
positivo
manda ver
vai
segue
siga
prossiga
faz
faca
faca isso
sim pode
sim confirmo
beleza
fechado
combinado
perfeito
tudo certo
pode ser
isso ai
bora
ta bom
ta certo
ta
pode mandar
manda
fechou
demorou
suave
firmeza
de boa
tranquilo
show
vamos
vamos la
vamos nessa
bora la
yes
y
yeah
yep
yup
sure
confirm
confirmed
go ahead
do it
let s do it
lets do it
let s do that
let s go
lets go
let s proceed
proceed
correct
right
yes please
of course
manda bala
vai fundo
vai la
pode prosseguir
pode confirmar
pode fazer isso
sim por favor
sim claro
com certeza
certamente
aham
uhum
sim senhor
sounds good
looks good
go for it
go on
alright
all right
absolutely
definitely
sure thing
please do
do that
yes do it
ok go
affirmative
pode crer
ss
sss
yep go
yes go
ok go
yeah go
fine go ahead
fine do it
do the needful
please do the needful
de acordo
estou de acordo
vamo
vamo la
pode ir em frente
k do it
k go ahead
k go
pode seguir com isso
pode seguir com aquilo
sim pode seguir com isso
sim pode seguir com aquilo
go ahead with that
go ahead with it
lgtm
si
sounds good to me
looks good to me
sounds great
looks great
works for me
i confirm
yes i confirm
eu confirmo
sim eu confirmo
i do confirm
""")
DECLINE = _set("""
nao
n
nao quero
negativo
nope
no
no thanks
nao obrigado
espera
pera
perai
calma
wait
hold on
nao precisa
melhor nao
acho melhor nao
agora nao
ainda nao
nao agora
nao quero nao
nao vou querer
nem pensar
de jeito nenhum
dispenso
deixa quieto
nao deixa
nao deixa quieto
nao mexe
nao mexa
nah
not
no thank you
no need
not now
not yet
better not
rather not
id rather not
i d rather not
no way
absolutely not
definitely not
leave it
leave it as is
leave it like that
leave it alone
keep it as is
keep it
deixa assim
deixa assim mesmo
deixa como esta
deixa como ta
deixa do jeito que esta
deixa do jeito que ta
deixa como estava
no leave it
dont bother
don t bother
deixa estar
deixe estar
""")
DECLINE = DECLINE | COMPLAINTS
CANCEL = _set("""
cancela
cancele
cancelar
cancelado
esquece
desconsidera
desconsidere
disregard
esqueca
nao faca
nao faz
pare
para
parar
para tudo
pare tudo
deixa pra la
deixa para la
deixe pra la
deixe para la
deixa
desisto
aborta
aborte
abortar
cancel
stop
stop it
never mind
nevermind
abort
dont
don t
do not
desiste
desista
desistir
desisti
esquece tudo
esquece isso ai
esquece o que eu disse
esquece o que eu falei
esqueca o que eu disse
deixa isso
deixa isso pra la
deixa pra depois
nao precisa mais
nao quero mais
mudei de ideia
cancela ai
cancela isso ai
para com isso
cancel all
scratch that
scrap that
forget about it
never mind that
changed my mind
i changed my mind
i ve changed my mind
call it off
stop that
stop everything
hold off
hold off
hold off on that
hold off on it
hold off on this
hold off for now
hold that
hold it
""")
UNDO = _set("""
desfaca
desfaz
desfazer
desfaca isso
desfaz isso
desfazer isso
desfaca a ultima
desfaca a ultima operacao
volta atras
volte atras
reverte
reverta
reverter
undo
undo it
undo that
undo this
revert
revert it
revert that
roll back
rollback
desfazer a ultima
desfazer a ultima acao
desfazer a ultima alteracao
desfaz a ultima alteracao
desfaca a ultima alteracao
desfaz a ultima mudanca
desfaca a ultima mudanca
undo the last update
undo my last change
desfazer a ultima operacao
desfaca a ultima acao
desfaz a ultima
desfaz a ultima acao
desfaz a ultima operacao
desfaz o que voce fez
desfaca o que voce fez
desfaz o ultimo
volta como estava
volta como era
voltar atras
reverte isso
reverta isso
undo the last
undo the last action
undo the last change
undo the last one
undo last
undo what you did
revert the last change
revert that change
take that back
roll it back
roll that back
""")


CONFIRM = CONFIRM | affirmations() | _set("""
indeed
yes indeed
by all means
do go ahead
do proceed
please proceed
prosseguir
pode proceder
proceda
grava
gravar
pode gravar
manda gravar
grava ai
salva
salve
salvar
pode salvar
manda salvar
salva ai
pode aplicar
pode efetivar
save
save it
save that
save the change
save the changes
go ahead and save
go ahead and save it
apply it
apply the change
go ahead and apply it
commit it
submit it
""")
DECLINE = DECLINE | kept_as_is()
UNDO = UNDO | undo_phrasings()
CANCEL = CANCEL | cancel_phrasings() | no_longer_wanted()
# "não, deixa", "no, don't", "stop, cancel that": a refusal or a stop word, then another refusal or
# cancel phrase, is still the whole message declining or cancelling (never a request in disguise).
_REFUSALS = ("nao", "no", "nope", "nah", "negativo")
_STOPS = ("pare", "para", "espera", "stop", "wait", "hold on")
DECLINE = DECLINE | frozenset(f"{r} {d}" for r in _REFUSALS for d in DECLINE | CANCEL if not d.startswith(r + " ")
                              and d != r)
CANCEL = CANCEL | frozenset(f"{s} {c}" for s in _STOPS for c in CANCEL if c != s)
