"""Generic language rules of the fast path: control words (the phrases themselves are in
control_phrases.py), correction markers, reference words and language detection, in pt-BR and English.

These are the closed-class words of the two languages, not domain vocabulary: everything about
the business (verbs of capabilities, entity synonyms, names) comes from the registry's language
metadata and the tenant's data (see `grammar.py`). Every comparison is on folded text (no accents,
lower case), so "não", "nao" and "NÃO" are the same word.
"""

from __future__ import annotations

import re
from functools import lru_cache

from rapidfuzz.distance import OSA

from knowledge.text import fold, words

from .control_phrases import CANCEL, COMPLAINTS, CONFIRM, DECLINE, RESUME, RETRY, UNDO  # noqa: F401 - lexicon.*
from .correction_openers import CLOSING_APOLOGIES, CORRECTION_OPENERS, closed_by_instead  # noqa: F401 - lexicon.*
from .phrase_runs import INTERJECTION_LEADS, end_to_end, run_of  # noqa: F401 - read as lexicon.*
from .polite import asked_right_before, asked_to, asks_to_act, polite  # noqa: F401 - read as lexicon.*

_PUNCT = re.compile(r"[^\w\s]", re.UNICODE)
# A quoted passage: "…", “…”, «…» or '…' (an apostrophe inside a word is no quote).
QUOTED = re.compile(r"[\"“”«]([^\"“”«»]{1,500})[\"“”»]|(?<!\w)'([^']{1,500})'(?!\w)")


def tokens(text: str) -> list[str]:
    """Folded words of a message ("Não, a da Beta!" → ["nao", "a", "da", "beta"])."""
    return words(fold(text))


# Urgency and swearing: at either end they say how, not what ("sim logo", "no, 15 ffs", "cancela isso aí, caramba").
URGENCY = frozenset(tokens("""logo rapido rápido rapidinho urgente quick quickly asap urgent seriously dammit damn ffs
jeez pqp caramba porra aff affe afe poxa droga putz"""))
FILLER = frozenset(tokens("""
por favor, favor, obrigado, obrigada, valeu, entao, então, agora, ah, ai, aí, hum, bom, please, thanks,
thank you, well, then, now, oh, e, and, pls, plz, pfv, pf, thx, tks, hmm, hm, humm, hmmm, uh, erm, gentileza, kindly,
prezado, prezada, prezados, tche, tchê, bah, uai, oxe, oxente, visse, mano, vei, véi, yo
""")) | URGENCY
NEGATIONS = frozenset({"nao", "no", "not", "nope"})
# "I might move it", "talvez eu adie": a request thought of, not made
HEDGES = frozenset(tokens("might may maybe perhaps talvez pensando thinking considering"))
# "45 pq 40 é pouco", "deixa como está, pois …": what follows is why, not what is asked
BECAUSE = frozenset(tokens("porque pq pois because since cause cuz"))
# "adia ela …", "bump it …": the pronouns that point at the item in focus
POINTING = frozenset(tokens("ela ele dela dele nela nele it its this essa esse esta este"))
# Words that open a request before its verb ("preciso agendar…", "I need to schedule…", "can we…"):
# never part of a value the message carries.
REQUEST_OPENERS = frozenset(tokens("""preciso precisamos quero queremos queria gostaria gostariamos vou vamos tenho
temos de que pode poderia voce vc consegue me da pra i we you u need want would like d to can could please pls let lets
us s bora vambora simbora partiu tem ter precisa deve devemos must should there be mind kindly"""))
# "go ahead and …", "vai lá e …": words that only open the request before "and"/"e" and its verb.
OPENING = frozenset(tokens("go ahead come on just vai la bora anda vamos ok okay sure")) | FILLER | REQUEST_OPENERS
_AND = frozenset({"and", "e"})


def lead_in(parts: list[str]) -> int:
    """How many words open the request before its verb: "go ahead and approve …" → 3 ("go ahead and"); 0
    when the message does not open so."""
    at = next((i for i, p in enumerate(parts) if p not in OPENING or p in _AND), None)
    return at + 1 if at and parts[at] in _AND and at + 1 < len(parts) else 0


_SMALL = frozenset(tokens("e a o as os da do na no the a an is it that its"))


def without_negated(parts: list[str]) -> list[str]:
    """"não é a 60, é a 62", "not <entity> 311, I meant 310": the words without what is denied (a negation,
    then the number a few small words and at most one other word later), so that only the meant is read."""
    out: list[str] = []
    i = 0
    while i < len(parts):
        j = i + 1
        # "no no 55", "no sorry 55", "não, espera, 55": a no said twice or an apology closes the no — the value follows
        if parts[i] in NEGATIONS and not (i and parts[i - 1] == parts[i]):
            while j < len(parts) and j - i <= 4 and not parts[j].isdigit():
                j += 1
            others = [w for w in parts[i + 1:j] if w not in _SMALL]
            closed = any(w == parts[i] or w in HOLDS or w in _SORRY for w in parts[i + 1:j])
            if j < len(parts) and parts[j].isdigit() and len(others) <= 1 and not closed:
                i = j + 1
                continue
        out.append(parts[i])
        i += 1
    return out


_THIS_ONE = frozenset(tokens("essa esse isso this that one ai"))
_SORRY = frozenset(tokens("sorry desculpa desculpe perdao perdão oops opa"))


def denied_numbers(text: str) -> set[str]:
    """The numbers a message denies, clause by clause: "não é a 60, é a 62" → {"60"}; in "Ah, não. É a
    456" or "não, a 310" the "não" closes its clause and denies nothing."""
    denied: set[str] = set()
    clauses = [c for c in re.split(r"[,.;:!?]+|\s[-–—]\s", text) if c.strip()]  # ("no - <entity> 325": two)
    said = tokens(text)
    value = said[1:]
    while value[:1] and (value[0] in CORRECTION_LEADS or value[0] in _MAKE_IT_WORDS):
        value = value[1:]  # "não é 50", "no it's 50", "no make it 50": said aloud, the comma left out
    if len(clauses) == 1 and said[:1] and said[0] in NEGATIONS and 1 <= len(value) <= 2 and value[0].isdigit() and (
            len(value) == 1 or value[1] in DAY_UNITS):
        return denied  # "nao 50", "não cinquenta dias": a no, then the value meant (as "não, 50")
    lead = next((i for i, p in enumerate(said) if p not in NEGATIONS | _THIS_ONE), len(said))
    if len(clauses) == 1 and set(said[:lead]) & NEGATIONS and set(said[:lead]) & _THIS_ONE:
        return denied  # "não essa a 53", "essa não a 53": the one in view is denied, the number after it is meant
    for clause in clauses:
        said = tokens(clause)
        denied |= {p for p in said if p.isdigit()} - {p for p in without_negated(said) if p.isdigit()}
    return denied


# "quero X" / "é a 456" / "a da Beta": phrasing of the right value once a correction opened.
CORRECTION_LEADS = frozenset(tokens("quero queria prefiro e era seria is it s its i want want instead"))
_MAKE_IT_WORDS = frozenset(tokens("make it that"))

# Demonstratives and pronouns that point at something in context (§10).
DEMONSTRATIVES = frozenset(tokens("""
isso isto esse essa esses essas este esta estes estas aquele aquela aquilo aqueles aquelas ele ela dele dela
nele nela atual anterior ultimo ultima mesmo mesma this that these those it its current previous last same
desse dessa desses dessas deste desta destes destas nesse nessa nesses nessas neste nesta nestes nestas daquele
daquela naquele naquela
"""))  # (the contractions of "de"/"em" with a demonstrative point as "dela"/"nela" do: "reduz 15 dias dessa <campo>")
# Demonstratives that stand before a noun as an article does ("reduz 15 dias dessa <campo>", "open this <tab>").
DETERMINERS = frozenset(tokens("""esse essa esses essas este esta estes estas desse dessa desses dessas deste desta
destes destas nesse nessa nesses nessas neste nesta nestes nestas this these those"""))
EVERY = frozenset(tokens("todas todos toda todo cada all every each"))
OTHER = frozenset(tokens("outra outro other"))  # "não, a outra", "no, the other one"
PREVIOUS = frozenset(tokens("anterior ultimo ultima previous last"))
CREATED = frozenset(tokens("ela ele nela nele dela dele it criada criado nova novo new created"))
QUESTION_WORDS = frozenset(tokens("qual quais quanto quantos quantas quando que quem onde what which how when who whom "
                                  "where"))
# Question words that ask for a value, not for yes or no ("quando …?", "who …?"); "que" is not one of
# them ("será que … foi …?").
OPEN_QUESTION_WORDS = QUESTION_WORDS - {"que"}


# "sem contar as …", "except the …": what follows is left out of what is asked.
_EXCLUDING = tuple(tuple(tokens(p)) for p in ("sem contar", "exceto", "excluindo", "tirando", "fora as", "fora os",
                                               "except", "excluding", "not counting", "other than", "apart from",
                                               "besides", "but not"))


def not_excluded(parts: list[str]) -> list[str]:
    """The words before what the message leaves out ("agendadas, sem contar as concluídas" → up to "agendadas")."""
    at = next((i for i in range(len(parts)) for p in _EXCLUDING if tuple(parts[i:i + len(p)]) == p), None)
    return parts if at is None else parts[:at]


_OR_NOT = frozenset({("ou", "nao"), ("or", "not"), ("or", "what"), ("ou", "que")})


def without_or_not(parts: list[str]) -> list[str]:
    """The question without its "ou não" / "or what" tail (its "what" asks nothing)."""
    return parts[:-2] if tuple(parts[-2:]) in _OR_NOT else parts


def asks(parts: list[str], text: str) -> bool:
    """A question: "?", a question word, or "que" / "o que" opening it, maybe after a "tell me" ("que dia…",
    "me fala rapidinho o que acharam…"; "pra semana que vem" asks nothing)."""
    if (text.rstrip().endswith("?") and not _tag_asked(text)) or any(p in OPEN_QUESTION_WORDS for p in parts):
        return True
    if without_or_not(parts) != parts or any(parts[i:i + 2] == ["ne", "ou"] for i in range(len(parts) - 1)):
        return True  # "essa aqui tá aprovada ou não", "is it approved or what", "continua ela né ou trocaram"
    at = next((i for i, p in enumerate(parts) if p not in _TELL_ME), len(parts))
    if any(tuple(parts[i:i + len(t)]) == t for t in _INFORM_ME for i in range(min(3, len(parts)))):
        return True  # "kindly intimate me the <campo> of …", "let me know the …": asked as a request to be told
    return parts[at:at + 1] == ["que"] or parts[at:at + 2] == ["o", "que"]


_INFORM_ME = tuple(tuple(tokens(p)) for p in ("intimate me", "inform me", "let me know", "me informe", "me informa",
                                              "me avisa", "me avise"))


# "me fala", "me diz rapidinho", "tell me": words that only ask to be told, before what is asked.
_TELL_ME = frozenset(tokens("me fala falai diz diga conta conte mostra ai aqui rapidinho rapido so tell quickly just"))
# "how" alone asks how long, how far, how it is ("how long is it valid?"): "how many" counts by "many".
COUNT_WORDS = frozenset(tokens("quantos quantas quanto many count total"))
EXPLAIN_MARKERS = frozenset(tokens("explique explica explicar explain significa mean means define defina"))
# Units that bind a bare number to an integer slot ("45 dias", "30 days").
DAY_UNITS = frozenset(tokens("dia dias day days"))
ARTICLES = frozenset(tokens("""o a os as um uma uns umas de da do das dos em na no nas nos para pra por pelo pela
com e ao à the an of to in on for with by at from"""))

PT_MARKERS = frozenset(tokens("""o os as de da do que nao e em uma um para com na no pela pelo esse essa este esta
isso sim voce eu quero abra abre va mude altere adicione exclua cancela desfaca quantos quantas qual explique
agora entao quem onde quando pra ta tudo oi obrigado obrigada valeu voce vc ele ela nela nele dele dela"""))
EN_MARKERS = frozenset(tokens("""the of and is are to in for with what this that it be on an yes no open go show
add remove delete change set how many which explain undo cancel try again please permit you can who where
when hello hi thanks thank its"""))


CONFIRM_WORDS = frozenset(p for p in CONFIRM if " " not in p) | {"pode", "seguir", "go", "ahead", "bom", "sim"}


def is_confirmation(phrase_text: str) -> bool:
    """"sim", "pode seguir", or a run of confirmation words and phrases ("beleza, pode", "ok, do it",
    "yes, go ahead")."""
    if phrase_text in CONFIRM:
        return True
    parts = phrase_text.split()
    return len(parts) > 1 and end_to_end(parts, CONFIRM, CONFIRM_WORDS)


# "ah, pensando bem, coloca 45 dias", "make it 45 days": words that only place the amount said
PLACING = frozenset(tokens("pensando bem coloca coloque poe bota bote deixa deixe muda mude faz faca usa use make set "
                           "put it"))


# "sim, já pode concluir", "yes, go ahead and approve it now": words of time that change nothing.
NOW_WORDS = frozenset(tokens("ja agora entao logo now then already right away ahead and"))
# "looks fine to me, approve", "sounds good": a judgement of what is on screen — the word before it is no verb,
# and these words are themselves, never a slip of a verb ("fine" is no "find")
JUDGING = frozenset(tokens("fine good great ok okay alright perfect nice"))


# Said before a control phrase, they change nothing: "opa, errei, desfaz isso", "sorry, my bad, undo that".
_SELF_CORRECTIONS = frozenset({"errei", "erro meu", "foi mal", "desculpa", "desculpe", "my bad", "sorry", "my mistake",
                               "peco desculpas", "perdao", "i m sorry", "im sorry",
                               "oh", "oh no", "ai", "xi", "eita", "whoops", "pensando bem", "pensando melhor",
                               "on second thought", "on second thoughts", "second thoughts", "actually",
                               "me enganei", "eu me enganei", "enganei", "i was wrong", "on reflection",
                               "terribly sorry", "i m terribly sorry", "im terribly sorry", "so sorry", "i m so sorry",
                               "oh dear", "forgive me", "pardon me", "desculpa ai", "thinking about it"})
_SELF_CORRECTION_LEADS = sorted((tuple(p.split()) for p in _SELF_CORRECTIONS), key=len, reverse=True)
_KINDS = (("confirm", CONFIRM), ("decline", DECLINE), ("cancel", CANCEL), ("undo", UNDO), ("retry", RETRY),
          ("resume", RESUME))
_ACTIONS = frozenset({"undo", "retry", "resume"})
_LONGEST_CONTROL = max(len(p.split()) for _, phrases in _KINDS for p in phrases)


def _tag_asked(text: str) -> bool:
    """"Vou precisar adiar essa <entidade> em 3 dias, tudo bem?": the "?" asks only whether it is all right."""
    clauses = [c for c in re.split(r"[,;.!?]+", text) if tokens(c)]
    return len(clauses) > 1 and " ".join(tokens(clauses[-1])) in _TAGS


_TAGS = frozenset(" ".join(tokens(t)) for t in (
    "tudo bem", "pode ser", "ok", "okay", "certo", "beleza", "blz", "combinado", "ta bom", "ta", "pode", "all right",
    "alright", "is that ok", "is that okay", "is that alright", "sounds good", "right", "fine"))


def control_run(text: str) -> str | None:
    """The kind of a message made of control phrases of several kinds, end to end (after interjections
    and "errei"/"my bad"): "wait no, undo that" is an undo — refusals and stops before one request to
    act (undo, retry, resume) lead up to it; "deixa pra lá, não precisa mais não" cancels — refusals
    and cancels together are the first of them; a yes mixed with a no is nothing."""
    parts = after_apology(text.split())
    asked = asked_to(parts)
    # "can you undo that?", "pode desfazer isso?": a request to act asked politely — a cancel only when it names
    # the request itself ("would you cancel that request?"; "pode cancelar" may say yes to a pending cancel of the
    # item); anything else is read as said ("pode mandar ver")
    kind = control_run(" ".join(asked)) if asked is not None else None
    if kind in _ACTIONS or (kind == "cancel" and set(asked or ()) & _THE_REQUEST):
        return kind
    kinds = _segment(parts)
    if not kinds:
        return None
    found = set(kinds) - {"lead"}
    actions = found & _ACTIONS
    if len(actions) == 1 and found - actions <= {"decline", "cancel"} and kinds[-1] in actions:
        return next(iter(actions))
    if found and found <= {"decline", "cancel"}:
        return next(k for k in kinds if k != "lead")
    if found == {"confirm"}:  # "pode mandar ver": confirmation phrases end to end, one with a slip
        return "confirm"
    return None


_THE_REQUEST = frozenset(tokens("request operation action task pedido operacao acao solicitacao tarefa comando "
                                "processo"))


def after_apology(parts: list[str]) -> list[str]:
    """The words after the interjections and apologies or other self-corrections that open a message ("peço
    desculpas, mas preciso que o senhor desfaça isso", "sorry, could you undo that", "desculpe, me enganei: …"):
    they ask nothing."""
    while parts and parts[0] in INTERJECTION_LEADS:
        parts = parts[1:]
    said = next((a for a in _SELF_CORRECTION_LEADS if tuple(parts[:len(a)]) == a and len(parts) > len(a)), None)
    if said is None:
        return parts
    rest = parts[len(said):]
    rest = rest[1:] if rest[:1] in (["mas"], ["but"]) else rest
    while len(rest) > 1 and rest[0] in FILLER and rest[0] not in NEGATIONS:  # "sorry, kindly undo the same"
        rest = rest[1:]
    return after_apology(rest)


def apology_only(parts: list[str]) -> bool:
    """Words that are interjections and apologies and nothing else ("I'm terribly sorry", "ah", "foi mal")."""
    rest = after_apology(parts)  # (which leaves an apology alone: "sorry" is a message too)
    return not rest or tuple(rest) in _SELF_CORRECTION_LEADS


# The control phrases split once and grouped by length, and their words: a message's pieces are
# compared with each phrase of their length only, and not at all when one of their words is no
# control word even with a slip (most pieces of a request: "abra a <entidade> 12") — thousands of
# phrases, every n-gram of every message (several ms a turn before this index).
_PHRASES_BY_LENGTH: dict[int, list[tuple[str, tuple[str, ...]]]] = {}
for _kind, _phrases in _KINDS:
    for _phrase in sorted(_phrases):
        _PHRASES_BY_LENGTH.setdefault(len(_phrase.split()), []).append((_kind, tuple(_phrase.split())))
_CONTROL_WORDS = frozenset(w for group in _PHRASES_BY_LENGTH.values() for _, words in group for w in words)
_LONG_CONTROL_WORDS = tuple(sorted(w for w in _CONTROL_WORDS if len(w) >= 5))


def _slip(a: str, b: str) -> bool:
    return a == b or (min(len(a), len(b)) >= 5 and OSA.distance(a, b, score_cutoff=1) <= 1)


@lru_cache(maxsize=20_000)
def _may_be_control_word(word: str) -> bool:
    return word in _CONTROL_WORDS or (len(word) >= 5 and any(_slip(word, c) for c in _LONG_CONTROL_WORDS))


def _kind_of(piece: str) -> str | None:
    """The kind of one control phrase, also with one slip in a word of five letters or more ("deixa queito")."""
    exact = next((k for k, phrases in _KINDS if piece in phrases), None)
    words = piece.split()
    if exact is not None or not any(len(w) >= 5 for w in words) or not all(map(_may_be_control_word, words)):
        return exact
    for kind, other in _PHRASES_BY_LENGTH.get(len(words), ()):
        if all(_slip(a, b) for a, b in zip(words, other, strict=True)):
            return kind
    return None


def _segment(parts: list[str]) -> list[str] | None:
    """The kinds of the phrases `parts` split into end to end, fewest phrases first; None if they don't."""
    best: dict[int, list[str]] = {0: []}
    for start in range(len(parts)):
        if start not in best:
            continue
        for n in range(1, min(_LONGEST_CONTROL, len(parts) - start) + 1):
            piece = " ".join(parts[start:start + n])
            # "errei" only before the first control phrase, or after a no ("não, pensando bem, deixa como tá")
            opening = all(k in ("lead", "decline", "cancel") for k in best[start])
            kind = ("lead" if opening and piece in _SELF_CORRECTIONS else _kind_of(piece))
            end = start + n
            if kind is not None and (end not in best or len(best[end]) > len(best[start]) + 1):
                best[end] = [*best[start], kind]
    return best.get(len(parts)) or None


def after_lead_ins(words: list[str]) -> list[str]:
    """The words after the fillers, interjections and holds that open a message ("hmm, e o <name>?" →
    "e o <name>"); "e"/"and" stay: they open an ellipsis."""
    at = 0
    while at < len(words) and words[at] not in _AND and (words[at] in FILLER or words[at] in INTERJECTION_LEADS
                                                           or words[at] in HOLDS or words[at] in _NOTED):
        at += 1
    return words[at:]


_NOTED = frozenset(tokens("ok okay anotado entendi entendido perfeito noted gotcha"))  # "Anotado. E o da 60?"


def strip_filler(parts: list[str]) -> list[str]:
    start, end = 0, len(parts)
    while start < end and (parts[start] in FILLER or tuple(parts[start:start + 2]) == _WONDER):
        start += 2 if tuple(parts[start:start + 2]) == _WONDER else 1
    while end > start and parts[end - 1] in FILLER:
        end -= 1
    return parts[start:end]


_WONDER = ("sera", "que")  # "será que dá pra tirar …?", "será que a <entidade> já foi aprovada?": "I wonder if"


def phrase(text: str) -> str:
    """The message as one folded phrase without punctuation or leading/trailing filler."""
    return " ".join(strip_filler(tokens(text)))


# Words that hold the turn before what is meant: "perai", "wait", "hold on".
HOLDS = frozenset(tokens("wait espera pera perai peraí hmm hum hm"))
# (and laughter, slang and "hold on" said before a correction: "lol nope, 52", "eita kkk errei, é a 310")
_INTERJECTIONS = frozenset(tokens("opa ih xi putz eita lol haha hahaha k kk kkk kkkk rs rsrs mano hold on")) | HOLDS
_OPENERS_LONGEST_FIRST = sorted((o for o in CORRECTION_OPENERS if o), key=len, reverse=True)


_MAKE_IT = frozenset({("make", "it"), ("make", "that")})


def correction_remainder(text: str) -> list[str] | None:
    """The words after a correction opener ("Não, a da Beta" → ["a", "da", "beta"]), or None."""
    parts = tokens(text)
    while parts and parts[0] in FILLER - NEGATIONS:
        parts = parts[1:]
    if (after := after_apology(parts)) != parts and correction_remainder(" ".join(after)) is not None:
        parts = after  # "Forgive me, I meant <entity> 60", "perdão, na verdade é <outro>": the apology asks nothing
    # "opa, na verdade é a 310": an interjection that also greets opens a correction only before an opener
    # ("opa, abre a 312" is a request).
    while parts[1:] and parts[0] in _INTERJECTIONS and correction_remainder(" ".join(parts[1:])) is not None:
        parts = parts[1:]
    opened = _opened(parts)
    closing = next((c for c in CLOSING_APOLOGIES if tuple(parts[-len(c):]) == c and len(parts) > len(c)), None)
    if opened is None and closing is not None:  # "<entidade> 52, foi mal", "<entity> 320 I mean": the apology closes it
        return urgency_off(parts[:-len(closing)])
    return opened


def _opened(parts: list[str]) -> list[str] | None:
    found = False
    while True:  # "opa, na verdade é a 310", "oops, no, 312": an interjection, then another opener
        opener = next((o for o in _OPENERS_LONGEST_FIRST if tuple(parts[:len(o)]) == o and len(parts) > len(o)), None)
        if opener is None and found and tuple(parts[:2]) in _MAKE_IT and parts[2:3] and parts[2].isdigit():
            opener = parts[:2]  # "actually, make that 10 days": after an opener, "make that" only says the value
        if opener is None:
            return urgency_off(parts) if found else None  # ("no, 15 ffs": the value, not the swearing)
        parts, found = parts[len(opener):], True


def urgency_off(parts: list[str]) -> list[str]:
    """The words without the urgency closing them ("a 57 também, logo", "no, 15 ffs"); one word always stays."""
    end = len(parts)
    while end > 1 and parts[end - 1] in URGENCY:
        end -= 1
    return parts[:end]


# The closed-class words of this module, as typed: a word of these is itself, never a slip of a longer word ("quis" is
# no "quais" typed short).
CLOSED_CLASS = (FILLER | NEGATIONS | REQUEST_OPENERS | DEMONSTRATIVES | EVERY | QUESTION_WORDS | ARTICLES
                | PT_MARKERS | EN_MARKERS | CONFIRM_WORDS | INTERJECTION_LEADS | CORRECTION_LEADS
                | _INTERJECTIONS | frozenset(w for phrase in _SELF_CORRECTIONS for w in phrase.split())
                | frozenset(w for opener in CORRECTION_OPENERS for w in opener))
