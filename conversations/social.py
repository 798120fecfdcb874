"""Greetings, thanks, goodbyes and requests for help: answered, never "não entendi".

The words are the closed class of the two languages (like lexicon.py). What the agent can do is
never written here: help lists the capabilities this user may use, grouped by entity, each with an
example taken from the manifest's phrasings (placeholders shown as the slot's name, "<permissão>").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from rapidfuzz import process
from rapidfuzz.distance import OSA

from .grammar import CapabilityGrammar, Grammar, SlotSpec
from .lexicon import ARTICLES, tokens

GREETING = frozenset({"oi", "oie", "oii", "ola", "opa", "eai", "eae", "iae", "salve", "fala", "fala ai", "hello", "hi",
                      "hey", "hiya", "howdy", "greetings", "yo", "bom dia", "boa tarde", "boa noite", "e ai",
                      "good morning", "good afternoon", "good evening", "good day", "tudo bem", "tudo bom",
                      "tudo certo", "como vai", "como vai voce", "beleza", "tudo joia", "how are you",
                      "how s it going", "what s up", "whats up", "hey there", "how s your day", "how is your day",
                      "how are you doing", "how are things", "how have you been", "como foi seu dia",
                      "como voce esta", "como vc esta", "como vc ta", "tudo tranquilo", "tudo em ordem", "morning",
                      "evening", "afternoon", "hope you re doing well", "hope ur doing well", "hope you are well",
                      "hope you re well", "espero que esteja bem", "espero que esteja tudo bem",
                      "prazer", "muito prazer", "prazer em conhecer", "nice to meet you", "pleased to meet you"})
THANKS = frozenset({"obrigado", "obrigada", "obrigadao", "brigado", "brigada", "brigadao", "obg", "valeu", "vlw",
                    "valeu mesmo", "valeu demais", "agradeco", "agradecido", "agradecida", "grato", "grata",
                    "muito obrigado", "muito obrigada", "perfeito obrigado", "ajudou", "me ajudou", "ajudou muito",
                    "ajudou bastante", "ajudou demais", "isso ajudou", "foi muito util", "thanks", "thank you",
                    "thx", "ty", "tks",
                    "cheers", "thanks a lot", "thanks a bunch", "many thanks", "much appreciated", "appreciate it",
                    "i appreciate it", "that helped", "that helps", "very helpful", "great thanks", "tamo junto",
                    # said of the help itself: "that was really helpful", "foi bem útil", "helped a ton"
                    "helpful", "useful", "util", "helped", "valeu a pena", "worked", "what i needed",
                    "exactly what i needed", "just what i needed", "era isso que eu precisava",
                    "era o que eu precisava", "salvou meu dia", "you saved me", "saved my day", "lifesaver",
                    "legend", "you re a legend", "you legend", "nota 10", "nota dez", "mandou bem", "arrasou",
                    "you rock", "you re the best", "voce e demais", "vc e demais"})
BYE = frozenset({"tchau", "ate logo", "ate mais", "ate amanha", "ate breve", "falou", "flw", "fui", "bye", "goodbye",
                 "bye bye", "see you", "see ya", "see you later", "take care", "ate a proxima", "e so isso",
                 "era so isso", "so isso", "por hoje e so", "por enquanto e so", "nada mais", "that s all",
                 "thats all", "that is all", "that s all for now", "nothing else", "have a nice day",
                 "have a good one", "have a good day", "have a great day", "have a nice one", "bom trabalho",
                 "boa semana", "bom fim de semana", "that s all i needed", "that s all i need",
                 "era so isso que eu precisava", "e so isso que eu precisava",
                 # "valeu, é isso", "vlw, por hj eh isso": said after a thanks, the end of what was wanted
                 "e isso", "eh isso", "e isso ai", "eh isso ai", "that s it", "thats it", "that s it for now"})
HELP = frozenset({"ajuda", "socorro", "help", "menu", "comandos", "o que voce pode fazer", "o que voce faz",
                  "o que vc faz", "o que vc pode fazer", "o que da pra fazer", "o que posso fazer",
                  "o que eu posso fazer", "como funciona", "como voce funciona", "como te uso", "me ajuda",
                  "me ajude", "preciso de ajuda", "o que voce sabe fazer", "o que vc sabe fazer",
                  "o que sabe fazer", "o que voce consegue fazer", "o que vc consegue fazer",
                  "como voce pode me ajudar", "como vc pode me ajudar", "como pode me ajudar",
                  "em que voce pode me ajudar", "no que voce pode me ajudar", "em que pode me ajudar",
                  "pode me ajudar", "quais comandos", "quais as opcoes", "como eu uso", "como usar",
                  "o que eu posso pedir", "o que posso pedir", "what can you do", "what do you do",
                  "how does this work", "how does it work", "what can i do", "how do i use this", "i need help",
                  "help me", "commands", "options", "what are you able to do", "what are you able to help me with",
                  "what are you able to help with", "what all can you do", "what all you can do",
                  "what all things you can do", "what all things can you do", "what things can you do",
                  "what can you do for me", "voce faz o que", "vc faz o que", "o que exatamente voce faz",
                  "me explica o que voce faz", "me explica o que vc faz",
                  "what can you help me with", "what can you help with", "how can you help", "how can you help me",
                  "what do you know", "what do you know how to do", "what are your capabilities", "what can i ask",
                  "what can i ask you", "show me what you can do", "how do i use you", "can you do",
                  "voce pode fazer", "vc pode fazer",
                  "voce consegue fazer", "sabe fazer", "how do i use this thing", "how does this thing work",
                  "how do i use it", "how do i work this", "como eu uso isso", "como uso isso", "como funciona isso",
                  "como usa isso", "como mexe nisso", "como eu mexo nisso",
                  # who it is: "tu é um robô mesmo?", "are you a bot?" — answered with what it can do
                  "voce e um robo", "vc e um robo", "tu e um robo", "voce e um bot", "vc e um bot", "tu e um bot",
                  "voce e humano", "vc e humano", "tu e humano", "voce e gente", "voce e uma pessoa", "quem e voce",
                  "quem e vc", "quem e tu", "quem ta falando", "com quem eu falo", "com quem estou falando",
                  "e um robo", "e um bot", "are you a bot", "are you a robot", "are you human", "are you a person",
                  "are you real", "are you an ai", "who are you", "who am i talking to", "is this a bot",
                  "am i talking to a bot", "am i talking to a person", "what are you",
                  "can you help me", "could you help me", "voce pode me ajudar", "vc pode me ajudar",
                  # what this user may do: "what am I allowed to do in this app?", "o que eu posso fazer aqui?"
                  "what am i allowed to do", "what am i able to do", "what may i do", "what i can do",
                  "o que eu consigo fazer", "o que me deixam fazer", "o que eu posso fazer aqui",
                  "o que consigo fazer", "o que me e permitido fazer",
                  # frustration ("you're useless", "isso não serve pra nada"): answered with what it can do
                  "you re useless", "youre useless", "you are useless", "useless bot", "you suck", "this is useless",
                  "voce e inutil", "vc e inutil", "que inutil", "nao serve pra nada", "nao serve para nada"})
# Words that may come along without changing the kind ("oi, tudo bem?", "valeu pela ajuda!").
_ALONG = frozenset(tokens("por favor pela pelo ajuda a o voce vc amigo agente assistente entao ai bem muito me mim "
                          "pra hoje gente pessoal galera please for the your you there again so much pal to today "
                          "guys everyone aqui here lot going exatamente exactly realmente really afinal desculpa "
                          "desculpe a pergunta mas sorry but rapidinho explica explicar"))
# Terms of address said along ("valeu mano, tmj", "cheers mate", "thanks boss").
_ALONG |= frozenset(tokens("mano mana brother bro chefe chefia parceiro parca camarada man dude mate buddy boss "
                           "tche bah uai oxe oxente visse vei hj know"))
# "you've been very helpful this week", "sou novo aqui, o que eu posso fazer neste app?": what is said of the
# help or of the speaker along with it.
_ALONG |= frozenset(tokens("ve been have has always sempre week semana i m im new novo nova sou in this app aplicativo "
                           "sistema neste nesse actually"))
# "what kind of stuff can you do?", "que tipo de coisa você sabe fazer?": the kind asked about, not a topic.
_ALONG |= frozenset(tokens("what kind kinds sort sorts type types of stuff things que tipo tipos de coisa coisas"))
# "what else can you do?", "o que mais você faz?".
_ALONG |= frozenset(tokens("else mais now enquanto before anything first primeiro antes de tudo nada agora rn lol"))
# Intensifiers and the words that say it of what just happened: "that was really helpful", "foi bem útil",
# "helped a ton", "valeu demais mesmo", "cool, thanks".
_ALONG |= frozenset(tokens("that s was this it really super so very ton bunch foi isso bem mesmo demais bastante "
                           "cool great awesome nice ok okay massa top anyway anyways assim show ta legal beleza"))
# "como você pode me ajudar com isso?", "how can you help me with …?": help about a topic (a few words, no
# number) is still help.
_TOPIC_OPENERS = frozenset(tokens("com sobre em no na nos nas with about on regarding"))
_TOPIC_WORDS = 2
_GAP = 3
# "deu certo?", "did it go through?": how the last operation ended (courtesy.py answers from the conversation).
OUTCOME = frozenset({"deu certo", "deu tudo certo", "funcionou", "ja foi", "foi feito", "ja foi feito", "terminou",
                     "ja terminou", "acabou", "ja acabou", "ficou pronto", "ta pronto", "esta pronto", "ja ta pronto",
                     "ja esta pronto", "conseguiu", "rolou", "did it work", "did that work", "did it go through",
                     "did that go through", "is it done", "is that done", "was it done", "is it finished",
                     "did it succeed", "all done", "done yet", "any luck", "did it go ok", "did it go well"})
# "o que você acabou de fazer?", "what did you just change?": what the last operation did (courtesy.py).
RECAP = frozenset(" ".join(tokens(p)) for p in (
    "o que voce fez", "o que vc fez", "o que voce acabou de fazer", "o que vc acabou de fazer", "o que voce mudou",
    "o que voce alterou", "o que foi que voce fez", "what did you do", "what did you just do", "what d you just do",
    "what d you do", "what did you change", "what did you just change", "what have you done", "what have you changed",
    "what did you just do exactly"))
# "o que tá esperando a minha confirmação?", "what's pending?": the proposal that waits (courtesy.py).
PENDING = frozenset(" ".join(tokens(p)) for p in (
    "o que esta pendente", "o que ta pendente", "o que ficou pendente", "o que esta aguardando", "o que esta esperando",
    "o que ta esperando", "o que esta esperando a minha confirmacao", "o que ta esperando a minha confirmacao",
    "o que falta confirmar", "tem algo pendente", "tem alguma coisa pendente", "o que eu estou confirmando",
    "whats pending", "what s pending", "what is pending", "anything pending", "what s waiting", "what is waiting",
    "what s waiting for my confirmation", "what is waiting for my confirmation", "what am i confirming"))
_KINDS = (("pending", PENDING), ("recap", RECAP), ("outcome", OUTCOME), ("thanks", THANKS), ("help", HELP),
          ("bye", BYE), ("greeting", GREETING))
_PHRASES = tuple((kind, tuple(p.split())) for kind, phrases in _KINDS
                 for p in sorted(phrases, key=lambda p: (-len(p.split()), p)))
_PLACEHOLDER = re.compile(r"\{([^}]+)\}")
EXAMPLES_PER_REPLY = 6
MAX_WORDS = 14  # "good morning! what kind of stuff can you help me with?" (every other word must come along)


def _same(word: str, expected: str, fuzzy: bool) -> bool:
    """A word of a phrase; in a long phrase, one slip of the keyboard in a word of four letters or more
    ("waht can you do")."""
    if word == expected:
        return True
    return fuzzy and min(len(word), len(expected)) >= 4 and OSA.distance(word, expected, score_cutoff=1) <= 1


def _find(parts: list[str | None], phrase: tuple[str, ...], loose: bool = False) -> tuple[int, int] | None:
    """Where `phrase` starts and ends in `parts`; between two of its words only words that come
    along may stand ("what *kind of stuff* can you help me with"), at most _GAP of them (`loose`: any)."""
    fuzzy = len(phrase) >= 3 or (len(phrase) == 1 and len(phrase[0]) >= 6)  # "thansk", "obrigdo": one long word
    for i, first in enumerate(parts):
        if first is None or not _same(first, phrase[0], fuzzy):
            continue
        at: int | None = i
        for word in phrase[1:]:
            at = _next(parts, at + 1, word, fuzzy, loose)
            if at is None:
                break
        if at is not None:
            return i, at + 1
    return None


def _next(parts: list[str | None], at: int, word: str, fuzzy: bool, loose: bool = False) -> int | None:
    """The position of `word` at `at` or after at most _GAP words that come along (`loose`: any words)."""
    for k in range(at, min(len(parts), at + _GAP + 1)):
        part = parts[k]
        if part is not None and _same(part, word, fuzzy):
            return k
        if part is None or (part not in _ALONG and not loose):
            return None
    return None


def _without_topic(rest: list[str]) -> list[str]:
    """The words before "com/with/about …" when what follows is a short topic without numbers."""
    for i, word in enumerate(rest):
        if word in _TOPIC_OPENERS:
            topic = [w for w in rest[i + 1:] if w not in ARTICLES]
            if 0 < len(topic) <= _TOPIC_WORDS and not any(c.isdigit() for w in topic for c in w):
                return rest[:i]
            break
    return rest


_FIRST_WORDS = frozenset(phrase[0] for _, phrase in _PHRASES)
_LONG_FIRST_WORDS = tuple(sorted(w for w in _FIRST_WORDS if len(w) >= 4))


def _phrases_opened_in(parts: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    """The phrases (in _PHRASES' order) whose first word the message says, as said or one slip away: only these can
    be found (_find starts at a phrase's first word). A turn asks social_kind up to three times, and scanning every
    phrase was about 1 ms each time; tests/conversations hold it to the full scan."""
    opened = {p for p in parts if p in _FIRST_WORDS}
    for part in parts:
        if len(part) >= 4:
            opened.update(w for w, _score, _i in process.extract(part, _LONG_FIRST_WORDS, scorer=OSA.distance,
                                                                  score_cutoff=1, limit=None))
    return [(kind, phrase) for kind, phrase in _PHRASES if phrase[0] in opened]


def social_kind(parts: list[str]) -> str | None:
    """"greeting", "thanks", "bye", "help" or "outcome" when the whole message is one of those, else None."""
    if not parts or len(parts) > MAX_WORDS:
        return None
    left: list[str | None] = list(parts)
    found: list[str] = []
    for kind, phrase in _phrases_opened_in(parts):
        while (span := _find(left, phrase)) is not None:
            # A question about what it can do outweighs a courtesy ("obrigado, o que você faz?").
            if kind not in found:
                found.insert(0 if kind == "help" and len(phrase) > 1 else len(found), kind)
            left[span[0]:span[1]] = [None] * (span[1] - span[0])
    rest = [w for w in left if w is not None]
    if "help" in found:
        rest = _without_topic(rest)
    if found and tuple(rest[:2]) in _INTRODUCING and len(rest) <= _INTRODUCTION_WORDS and not any(
            c.isdigit() for w in rest for c in w):
        rest = []  # "bom dia! sou o novo <cargo> da obra, prazer": who is greeting, no request
    if not found or any(word not in _ALONG for word in rest):
        return None
    return found[0]


def social_said(parts: list[str]) -> str | None:
    """The courtesy a message says among words the agent did not understand ("valeu chefe", "hey, anyone
    there?", "so what can you actually help me with?"): read only after nothing else was understood, so a
    request around a courtesy is always the request. None when no courtesy is said or the message is long."""
    if not parts or len(parts) > 2 * MAX_WORDS:
        return None
    found = [(span[0], kind) for kind, phrase in _PHRASES if (span := _find(list(parts), phrase, loose=True))
             and parts[span[0] - 1:span[0]] not in (["me"], ["te"])]  # "… e me fala quais": "tell me", no "hi"
    # A question about what it can do outweighs a courtesy ("bom dia, o que dá pra fazer aqui?").
    return min(found, key=lambda f: (f[1] != "help", f[0]))[1] if found else None


# A greeting with who is greeting: "sou o/a …", "eu sou …", "meu nome é …", "I'm the new …", "my name is …".
_INTRODUCING = frozenset(tuple(tokens(p)) for p in ("sou o", "sou a", "eu sou", "meu nome", "i m", "i am", "my name",
                                                     "sou nova", "sou novo", "sou novata", "sou novato", "im new"))
_INTRODUCTION_WORDS = 10


def examples(grammar: Grammar, allowed: Iterable[str], language: str, limit: int = EXAMPLES_PER_REPLY,
             value_of: Callable[[SlotSpec], str | None] | None = None) -> list[str]:
    """One example per capability the user may use, spread over entities and kinds (navigation, reads,
    writes), from the manifest's phrasings in `language`; `value_of` gives a real value for a slot (the
    tenant's first item: "abre a <entidade> 310"), else the slot's name stands in brackets."""
    caps = [grammar.capabilities[c] for c in sorted(allowed) if c in grammar.capabilities]
    order = {"navigation": 0, "read": 1, "write": 2}
    caps.sort(key=lambda c: (order.get(c.kind, 3), c.id))
    chosen: list[str] = []
    seen: set[tuple[str, str]] = set()
    for rounds in (0, 1):
        for cap in caps:
            key = (cap.entity, cap.kind)
            if (key in seen) != bool(rounds) or len(chosen) >= limit:
                continue
            example = _example(grammar, cap, language, value_of)
            if example and example not in chosen:
                chosen.append(example)
                seen.add(key)
    return chosen


def _example(grammar: Grammar, cap: CapabilityGrammar, language: str,
             value_of: Callable[[SlotSpec], str | None] | None = None) -> str | None:
    phrasings = cap.examples.get(language) or cap.examples.get("en" if language == "pt-BR" else "pt-BR") or ()
    if not phrasings:
        return None

    def placeholder(match: re.Match[str]) -> str:
        slot = cap.slot(match.group(1))
        real = value_of(slot) if value_of is not None and slot is not None else None
        return real or f"<{grammar.slot_label(slot, language) if slot is not None else match.group(1)}>"

    return _PLACEHOLDER.sub(placeholder, phrasings[0])
