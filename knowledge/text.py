"""Text normalisation for retrieval: accents, case, stop words and Portuguese/English stemming.

Stemming uses Snowball (`snowballstemmer`, the reference Snowball algorithms). Two small rules are
added by hand because Snowball's Portuguese stemmer leaves the nasal plural apart from its
singular ("permissões" → "permissõ", "permissão" → "permissã"): the -ões/-ães/-ãos plural is
folded to -ão before stemming, and accents are stripped after it. The stop-word lists are small
and hand-kept on purpose: besides function words they hold the words of an *explanation request*
("explique", "esse", "componente", "campo"), which say what the user wants done, not what about.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from functools import lru_cache

import snowballstemmer
from rapidfuzz.distance import OSA

LANGUAGES = ("pt", "en")

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=[A-ZÀ-Ý0-9\"“(])")
_NASAL_PLURAL = re.compile(r"(ões|ães|ãos)$")

_STOP_PT = """
a à às ao aos as o os um uma uns umas de da das do dos dum duma em na nas no nos num numa por pela pelas pelo
pelos para pra com sem sob sobre entre até após e ou mas nem que se como quando onde qual quais quem cujo
porque porquê é são ser seja sejam era foi estar está estão esta este estas estes isto esse essa esses essas isso
aquele aquela aquilo ele ela eles elas eu tu você vocês nós me te lhe lhes meu minha seu sua seus suas nosso nossa
muito muita mais menos já não sim também só tem têm ter há havia deve devem pode podem o que significa significado
explique explica explicar explicação expliq fale fala falar diga dizer mostre mostra quero queria gostaria saber
sabe me fale favor por favor aqui ali lá campo componente componentes item coisa tela isso aí ai
funciona funcionam funcionar serve servem mim
"""
_STOP_EN = """
a an the of to in on at by for from with without about into over under and or but nor not no yes is are was were
be been being do does did has have had it its this that these those there here what which who whom whose when
where why how i you he she we they me my your our their them us can could should would may might must will shall
as if so than then too very just also more most less some any all each please explain explanation describe tell
show mean means meaning field component components item thing screen
"""
STOP_WORDS = frozenset(
    unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode()
    for word in (_STOP_PT + _STOP_EN).split()
)
_PT_MARKERS = frozenset("de da do das dos que não é são em uma um para com os as na no pela pelo ao à".split())
_EN_MARKERS = frozenset("the of and is are to in for with what this that it be on an".split())

_SNOWBALL_NAMES = {"pt": "portuguese", "en": "english"}
# A Snowball stemmer keeps the word being stemmed in the instance: one per thread, never shared.
_local = threading.local()


def _stemmer(language: str):
    stemmers = getattr(_local, "stemmers", None)
    if stemmers is None:
        stemmers = _local.stemmers = {code: snowballstemmer.stemmer(name) for code, name in _SNOWBALL_NAMES.items()}
    return stemmers[language]


def strip_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def fold(text: str) -> str:
    """Accent- and case-insensitive form, for comparing names and titles."""
    return " ".join(strip_accents(text).casefold().split())


def words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


@lru_cache(maxsize=200_000)
def stem(word: str, language: str) -> str:
    """The accent-free Snowball stem of one lower-case word ("permissões" → "permissa")."""
    if language == "pt":
        word = _NASAL_PLURAL.sub("ão", word)
    return strip_accents(_stemmer(language).stemWord(word))


@lru_cache(maxsize=50_000)
def is_stop_word(word: str) -> bool:
    """A function word or a word of asking — also with one slip in a long one ("pleae explain"): a typo
    of a word that says nothing about the topic must not count as a topic word no document has."""
    folded = strip_accents(word)
    if folded in STOP_WORDS or len(word) < 2:
        return True
    return len(folded) >= _SLIP_MIN and any(OSA.distance(folded, s, score_cutoff=1) <= 1 for s in _LONG_STOP_WORDS)


_SLIP_MIN = 5
# Only the words of asking: a slip of "estado" or "right" is a topic word, a slip of "please" is not.
_LONG_STOP_WORDS = tuple(strip_accents(w) for w in """please explain explanation describe meaning explique explica
explicar explicacao gostaria significa significado""".split())


def content_words(text: str) -> list[str]:
    return [word for word in words(text) if not is_stop_word(word)]


def index_terms(text: str, language: str) -> list[str]:
    """Terms of a document in its own language: content words, stemmed."""
    return [stem(word, language) for word in content_words(text)]


def query_terms(text: str) -> list[frozenset[str]]:
    """Each content word of a query, as the set of its stems in every supported language.

    The query's language is not trusted to be the documents' (a pt-BR user may ask about an
    English document), so a word matches a section indexed in either language.
    """
    return [frozenset(stem(word, language) for language in LANGUAGES) for word in content_words(text)]


def detect_language(text: str, default: str = "pt") -> str:
    tokens = [strip_accents(word) for word in words(text)]
    pt_score = sum(token in {strip_accents(m) for m in _PT_MARKERS} for token in tokens)
    en_score = sum(token in _EN_MARKERS for token in tokens)
    if pt_score == en_score:
        if re.search(r"[ãõçáéíóúâêô]", text.casefold()):
            return "pt"
        return default
    return "pt" if pt_score > en_score else "en"


def sentences(text: str) -> list[str]:
    return [part.strip() for part in _SENTENCE_END.split(" ".join(text.split())) if part.strip()]


def slugify(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", fold(text)).strip("-") or "section"
