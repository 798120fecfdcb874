"""Where a verb's word stands but says no request (ranking skips it): a noun after an article ("a agenda
de <entidades>"), a judgement ("looks fine to me, approve"), a participle telling what was done ("tudo que foi
apontado", "everything that was recorded"), a verb framing the request in time or manner ("antes de liberar a frente,
preciso saber…", "before approving it, show me…", "em vez de cancelar, adia"), and what someone else will do ("a
torre vai ficar liberada antes, antecipa a 62", "they will approve it tomorrow"), what was already done ("já conferi
a documentação", "o Caio cancelou", "I checked the workers"), a noun after a preposition ("com a equipe"), a giving
said to the speaker ("pode me passar?"), a participle describing or picking items ("os <itens> registrados na 51",
"a aprovada") and a word asking for attention where the message opens ("olha, …"). Closed-class words of the two
languages, like lexicon.py; the registry's nouns and fields come from the grammar.
"""

from __future__ import annotations

from .grammar import Grammar, Verb
from .lexicon import ARTICLES, DETERMINERS, FILLER, JUDGING, NEGATIONS, tokens

_NOUN_ARTICLES = frozenset(tokens("a o as os the um uma an"))
_WAS = frozenset(tokens("foi foram was were been sido"))
_PARTICIPLE = ("ado", "ada", "ido", "ida", "ed")
_THAT = frozenset(tokens("que that which"))
_ALL = frozenset(tokens("tudo todos todas everything all"))
# "antes de <verbo>", "before <verb>ing": a time, a manner or an alternative, never the thing asked ("Antes,
# aprove a 311" and "after that, approve it" frame nothing: the verb must be an infinitive or an -ing form)
_FRAMING = (("antes", "de"), ("depois", "de"), ("apos",), ("sem",), ("em", "vez", "de"), ("ao", "inves", "de"),
            ("before",), ("after",), ("without",), ("instead", "of"), ("prior", "to"))
_FRAMED_FORMS = ("ar", "er", "ir", "or", "ing")
# "<someone> vai <verbo>", "<someone> will <verb>": what another will do (the speaker's own "a gente vai precisar
# cancelar", "we'll need to cancel" and the listener's "você vai aprovar?" ask it, and stay verbs)
_WILL = frozenset(tokens("vai vao vão ira irá irao irão will gonna"))
_THEN = frozenset(tokens("ficar estar ser be"))  # "vai ficar liberada" ("vai precisar cancelar" asks it)
_INFINITIVE = ("ar", "er", "ir", "or")
_WITH_THE = frozenset(tokens("com para pra por pelo pela with for from to"))
# "pode me passar?", "me manda": a verb of giving said to the speaker asks to be told, it moves nothing
_GIVING = frozenset(tokens("passar passa passe mandar manda mande dar da dá de dê enviar envia envie"))
_TO_ME = frozenset(tokens("me mim"))
_I_DID = frozenset(tokens("eu ja já i we ive weve already just"))
_PAST = ("ei", "ou", "eu", "iu", "aram", "eram", "iram")  # what was done ("cancelamos a 62?" also asks: not here)
# who asks or is asked ("a gente vai…", "você vai…"), or nothing at all before it ("e vai…", "então vai…")
_ASKING_SUBJECTS = frozenset(tokens("você vc cê tu gente eu nós i we you e and então so agora now aí ok"))


# "olha, a <entidade> 52 … então passa ela pra sexta": a word asking for attention opens the message; the request
# comes after it
_ATTENTION = frozenset(tokens("olha olhe escuta escute look listen"))


def calls_attention(parts: list[str], at: int) -> bool:
    """The word at `at` asks for attention before the message's request (ranking.verb_matches drops its reading when
    the message has another verb): it opens the message, maybe after fillers ("bom, olha, …")."""
    return parts[at] in _ATTENTION and all(p in FILLER for p in parts[:at])


def no_verb_here(words: list[str], at: int) -> bool:
    """The word at `at` is no verb of a request, whatever it looks like."""
    before = words[at - 1] if at else ""
    return (words[at + 1:at + 2] != [] and words[at + 1] in JUDGING  # "looks fine": a judgement
            or before in _NOUN_ARTICLES  # "a agenda de <entidades>": a noun
            or (before in _WAS and words[at].endswith(_PARTICIPLE) and at >= 3 and words[at - 2] in _THAT
                and words[at - 3] in _ALL)  # "tudo que foi apontado": told ("o que foi adicionado?" asks)
            or _anothers_future(words, at) or _anothers_will(words, at)
            or (words[at] in _GIVING and before in _TO_ME))


def framed(parts: list[str], at: int) -> bool:
    """"antes de liberar a frente, …", "before approving it, …": the verb at `at` of the message's words (articles
    and prepositions kept) frames the request, it is not the request."""
    return parts[at].endswith(_FRAMED_FORMS) and any(tuple(parts[max(0, at - len(f)):at]) == f for f in _FRAMING)


def _anothers_future(words: list[str], at: int) -> bool:
    """"a torre vai ficar liberada", "ela vai acompanhar", "they will approve it": a subject that is neither the
    speaker nor the listener, then the future, then the verb — said of the world, not asked of the agent."""
    aux = at - 1 if at and words[at - 1] in _WILL else at - 2
    if aux < 1 or words[aux] not in _WILL or (aux == at - 2 and words[at - 1] not in _THEN):
        return False
    return _anothers(words, aux)


def _anothers_will(words: list[str], at: int) -> bool:
    """"a torre vai ficar …": "vai" before an infinitive is the future of another's doing, not "go" ("vai pra 311",
    "e vai direto nos <filhos>" and a message opened by "vai" go); "a 320 não vai mais acontecer": negated, too."""
    following = words[at + 1] if at + 1 < len(words) else ""
    if words[at] in _WILL and at >= 2 and words[at - 1] in NEGATIONS:
        return words[at - 2] not in _ASKING_SUBJECTS
    return words[at] in _WILL and (following in _THEN or following.endswith(_INFINITIVE)) and _anothers(words, at)


def will_follow(words: list[str], at: int) -> bool:
    """"a equipe vai precisar …": a word before the future is its subject (ranking.verb_matches: never a verb, unless
    the message opens with it: "cancela, vai!")."""
    return words[at + 1:at + 2] != [] and words[at + 1] in _WILL


def _anothers(words: list[str], aux: int) -> bool:
    return aux >= 1 and words[aux - 1] not in _ASKING_SUBJECTS and not words[aux - 1].isdigit()


def _told_past(words: list[str], at: int, verb: Verb) -> bool:
    """"já conferi a documentação", "aprovei ontem", "todo mundo já voltou", "I checked the workers": what was done,
    told — the speaker's own past or another's."""
    word, head = words[at], verb.words[0]
    # the verb said as its infinitive or as the manifest's imperative ("aprovar"/"aprove", "conferir"/"confere"):
    # either way "<radical>ei", "<radical>ou", "<radical>aram" … are its past ("inclui" also asks: never so)
    # (or an English verb the Portuguese word was taken for: "cancel" in "o Caio cancelou a 52")
    stems = {head[:-2] if head.endswith(("ar", "er", "ir")) else head[:-1], head}
    if word != head and any(word in {stem + end for end in _PAST} or (word == stem + "i" and not stem.endswith("u"))
                            for stem in stems):
        return True
    return word.endswith("ed") and at > 0 and words[at - 1] in _I_DID


def no_request_here(grammar: Grammar, words: list[str], parts: list[str], index: list[int], at: tuple[int, int],
                     verb: Verb) -> bool:
    """The verb's words are there but ask nothing: an entity's noun, the subject of a future ("a equipe vai …"),
    a participle describing or picking items, a verb framing the request ("antes de liberar …": no_verb.py)."""
    first = index[at[0]]
    # (an entity's own noun is never a form of a verb: "the <filho>" spelled like a verb's -ing form)
    return ((words[at[0]] in grammar.noun_words and words[at[0]] != verb.words[0])
            or (first > 0 and will_follow(words, at[0])) or _told_past(words, at[0], verb)
            or (first > 1 and parts[first - 1] in ARTICLES and parts[first - 2] in _WITH_THE)  # "com a equipe"
            or _participle_after_noun(grammar, words, at, verb) or _participle_picking(parts, index[at[0]], verb)
            or framed(parts, index[at[0]]))


_PARTICIPLE_FORMS = ("ed", "ado", "ada", "ados", "adas", "ido", "ida", "idos", "idas")  # of one word or many items


def _participle_after_noun(grammar: Grammar, words: list[str], at: tuple[int, int], verb: Verb) -> bool:
    """"the <items> recorded at <entity> 51", "os <itens> registrados na 51", "tem <campo> definido?": a one-word verb
    said as a participle right after a noun (an entity's or a field's) describes what is named — it asks nothing."""
    word = words[at[0]]
    return (len(verb.words) == 1 and at[0] > 0 and word != verb.words[0] and word.endswith(_PARTICIPLE_FORMS)
            and (words[at[0] - 1] in grammar.field_words or bool(grammar.types_named_in([words[at[0] - 1]]))))


# "a aprovada", "pela cancelada", "the approved one": an article (or one joined to a preposition) before it
_PICKING = ARTICLES | DETERMINERS | frozenset(("da", "do", "das", "dos", "na", "no", "nas", "nos", "pela", "pelo",
                                               "pelas", "pelos"))


def _participle_picking(parts: list[str], at: int, verb: Verb) -> bool:
    """"a aprovada", "quem responde pela cancelada?", "open the approved one": a one-word verb said as a
    participle right after an article picks an item by its state — it asks nothing to be done to it."""
    word = parts[at]
    return (len(verb.words) == 1 and at > 0 and word != verb.words[0] and word.endswith(_PARTICIPLE_FORMS)
            and parts[at - 1] in _PICKING)
