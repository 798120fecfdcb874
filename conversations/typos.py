"""A word typed with one slip — a letter dropped, doubled, swapped or struck beside it ("frday", "amnha",
"weks", "quesiton", "anwser") — read as the one word of the agent's vocabulary it is that close to, before
anything else reads the message (the MESSAGE_RECEIVED event keeps what was typed).

The vocabulary is every word the language layer itself knows — the closed-class words and patterns of its
modules — and the registry's nouns: entity synonyms and field phrases. Not its verbs: a verb's slip is read where
the verb is looked for (ranking.py, with what else the message says), and a status word's where a status is
(status_goal.py): here "aprovda" would be the verb "aprova" rather than the status "aprovada". Never touched:
a word already in it, a real word of Portuguese or English (pyspellchecker's word lists: "cable" is no slip of
"able", "escada" none of "escala", "perto" none of "certo" — a dictated description keeps its words), a word
with a capital inside a sentence (a name; "Descupe, …" opens one), a word inside quotes, the tenant's names said
in the message, a word shorter than four letters, and a word as close to two vocabulary words. An ending is never
changed ("approved" is no slip of "approve", "aprovada" none of "aprovado"): only a slip that keeps the word's
last letter and is no prefix of it is read, so a form of a word is never turned into another form.

Written by hand because no kept library corrects against a vocabulary that changes with the registry:
rapidfuzz gives the distance (OSA, where a swap of two letters is one edit) and the search.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import lru_cache, wraps
from typing import TypeVar

from rapidfuzz import process
from rapidfuzz.distance import OSA

from knowledge.text import fold, words

from . import control_phrases, dates, ellipsis, increments, lexicon, numbers, relative, social, spelling
from .grammar import TYPO_SHORT_MIN, Grammar, dropped_letter
from .wordlists import dictionaries, real_word

T = TypeVar("T")
_MODULES = (lexicon, control_phrases, social, dates, spelling, relative, increments, ellipsis, numbers)
_WORD = re.compile(r"([^\W\d_]+)(\.?)")  # a word, and the point that may mark it cut short ("<ent>.")
_PATTERN_WORD = re.compile(r"[a-z]{4,}")
_SHORTEST = 4  # "taht", "weks": below four letters too many words are one edit apart
_CANDIDATES = 12  # all the words one edit away, of which only slips count


def as_typed_or_meant(text: str, grammar: Grammar, protected: Iterable[str] = ()) -> str:
    """`text` with each slipped word written as the vocabulary word it means; `protected`: folded words
    that are values here (the tenant's names said in the message)."""
    known, keep, short = vocabulary(grammar), frozenset(protected), cut_short(grammar)
    verbs, shouted = verb_words(grammar), shouting(text)
    quoted = [m.span() for m in lexicon.QUOTED.finditer(text)]

    def fix(match: re.Match[str]) -> str:
        word, point = match.groups()
        opens = not text[:match.start()].strip() or text[:match.start()].rstrip()[-1] in ".!?;:"
        if (word != word.lower() and not shouted and not (opens and word[1:] == word[1:].lower())) or any(
                a <= match.start() < b for a, b in quoted):
            return match.group(0)  # a capital inside a sentence is a name's
        folded = fold(word)
        if folded in keep or _CLITIC.match(text, match.end()):
            return match.group(0)  # a value; "mantê-la", "deixá-lo": a verb with its pronoun, as typed
        noun = _noun_cut_short(folded, bool(point) or _asked_of(text[:match.start()]), short)
        if noun is not None:
            return noun  # its point marked the word cut short: no sentence ends there
        meant = None if _verb_slip(folded, verbs) else _meant(folded, known)
        if meant is None:
            return match.group(0)
        return (meant.capitalize() if word[0].isupper() else meant) + point

    return _WORD.sub(fix, text)


_CLITIC = re.compile(r"-(?:l[oa]s?|me|te|se|lhes?|nos|vos)\b", re.IGNORECASE)


def slipped(text: str, grammar: Grammar) -> bool:
    """Does the message hold a word that would be read as another (cheap: no read of the tenant's names)?"""
    known, short, verbs = vocabulary(grammar), cut_short(grammar), verb_words(grammar)
    shouted = shouting(text)
    return any((shouted or m.group(1)[1:] == m.group(1)[1:].lower()) and (
        (_meant(fold(m.group(1)), known) and not _verb_slip(fold(m.group(1)), verbs))
        or _noun_cut_short(fold(m.group(1)), bool(m.group(2)) or _asked_of(text[:m.start()]), short))
        for m in _WORD.finditer(text))


_SHOUTED_AT_LEAST = 8  # letters: "OK" or "SIM" is no message typed in capitals


def shouting(text: str) -> bool:
    """A message typed all in capitals ("HOW MANY PERMS FOR …"): its capitals mark no names."""
    letters = [c for c in text if c.isalpha()]
    return len(letters) >= _SHOUTED_AT_LEAST and all(c.isupper() for c in letters)


_ASKING = frozenset(lexicon.tokens("many which what quais quantas quantos"))


def _asked_of(before: str) -> bool:
    """"how many perms …", "which perms …": the word right after a question word is the noun asked about —
    cut short, as a point would mark it (alone, "perms" is a word of its own)."""
    said = lexicon.tokens(before[-20:])
    return bool(said) and said[-1] in _ASKING


def _noun_cut_short(word: str, pointed: bool, short: Mapping[str, str]) -> str | None:
    """"<ent>.", "<ent>s": the one entity noun `word` begins — a real word only when a point marks it
    cut short ("perm." is the noun's, "perm" a word of its own; "work" never "worker")."""
    noun = short.get(word)
    return noun if noun is not None and (pointed or not real_word(word)) else None


@lru_cache(maxsize=20_000)
def _meant(word: str, known: frozenset[str]) -> str | None:
    if len(word) < _SHORTEST or word in known or real_word(word):
        return None
    near = {w for w, _score, _i in process.extract(word, known, scorer=OSA.distance, score_cutoff=1,
                                                   limit=_CANDIDATES)}
    near = {w for w in near if _a_slip(word, w)}
    return next(iter(near)) if len(near) == 1 else None


@lru_cache(maxsize=20_000)
def _verb_slip(word: str, verbs: frozenset[str]) -> bool:
    """A registry verb's word with a letter dropped or added ("asign", "remaca"): the verb finder reads it
    (ranking.py), with what else the message says — here it would become another vocabulary word one edit
    away ("sign", "refaca") and the verb would be lost."""
    return len(word) >= TYPO_SHORT_MIN and word not in verbs and any(
        dropped_letter(word, verb) and len(word) != len(verb) for verb in verbs)


def _a_slip(word: str, meant: str) -> bool:
    """A slip inside the word, not another form of it: the last letter kept, neither a prefix of the other, and
    a four-letter word only lengthened or swapped ("weks", "taht" — "mude"/"muda" are two words)."""
    if word[-1] != meant[-1] or word.startswith(meant) or meant.startswith(word):
        return False
    return len(word) > _SHORTEST or len(meant) > len(word) or sorted(word) == sorted(meant)


def warm() -> None:
    """Load the word lists and the closed-class words now (about two seconds): a server process pays it
    before it listens, not on its first message."""
    closed_class()
    dictionaries()


def _per_grammar(build: Callable[[Grammar], T]) -> Callable[[Grammar], T]:
    """`build`'s value for the current grammar (one per registry version), built once; an older grammar's is not
    kept alive."""
    kept: list[tuple[Grammar, T]] = []

    @wraps(build)
    def current(grammar: Grammar) -> T:
        if not (kept and kept[0][0] is grammar):
            kept[:] = [(grammar, build(grammar))]
        return kept[0][1]

    return current


_KEPT = 2  # "<four letters of a noun>.": a noun is cut short by two letters at least


@_per_grammar
def cut_short(grammar: Grammar) -> Mapping[str, str]:
    """The beginnings (four letters or more, and with a plural "s") of the registry's one-word entity nouns
    that begin the nouns of one entity type only, each with that type's shortest noun so begun (and with an "s",
    its shortest plural) — never a closed-class or vocabulary word, nor one slip from a
    verb's word."""
    begun: dict[str, dict[str, set[str]]] = {}
    for type_, phrases in grammar.synonyms.items():
        for noun in (p[0] for p in phrases if len(p) == 1 and p[0].isalpha()):
            for end in range(_SHORTEST, len(noun) - _KEPT + 1):
                begun.setdefault(noun[:end], {}).setdefault(type_, set()).add(noun)
    known, found = vocabulary(grammar), {}
    for start, by_type in begun.items():
        if len(by_type) != 1:
            continue
        nouns = next(iter(by_type.values()))
        found[start] = min(nouns, key=lambda n: (len(n), n))
        plurals = [n for n in nouns if n.endswith("s")]
        if plurals:
            found[start + "s"] = min(plurals, key=lambda n: (len(n), n))
    # "cont the …" is "count" with a letter dropped (ranking.py reads verbs' slips), not a noun that begins so cut short
    verbs = [w for cap in grammar.capabilities.values() for verb in cap.verbs for w in verb.words
             if len(w) >= _SHORTEST]
    return {k: v for k, v in found.items() if k not in known
            and process.extractOne(k, verbs, scorer=OSA.distance, score_cutoff=1) is None}


@_per_grammar
def verb_words(grammar: Grammar) -> frozenset[str]:
    """The first words of the registry's verbs, five letters or more, that are no noun of the vocabulary (one per
    registry version)."""
    known = vocabulary(grammar)  # (a noun that also opens a verb phrase: its slips are the noun's)
    return frozenset(verb.words[0] for cap in grammar.capabilities.values() for verb in cap.verbs
                     if verb.words and len(verb.words[0]) >= TYPO_SHORT_MIN and verb.words[0] not in known)


@_per_grammar
def vocabulary(grammar: Grammar) -> frozenset[str]:
    """The closed-class words and the registry's nouns of this grammar (one per registry version)."""
    found = set(closed_class())
    for cap in grammar.capabilities.values():
        found.update(w for phrases in cap.fields.values() for phrase in phrases for w in phrase)
    found.update(w for phrases in grammar.synonyms.values() for phrase in phrases for w in phrase)
    return frozenset(w for w in found if w.isalpha())


@lru_cache(maxsize=1)
def closed_class() -> frozenset[str]:
    """The words of every constant of the language modules: their word lists, phrase tables and patterns."""
    tables = {id(value): value for module in _MODULES for name, value in vars(module).items()
              if name.lstrip("_").isupper()}  # a table another module imports is read once
    return frozenset(w for value in tables.values() for w in _words_of(value) if w.isalpha())


def _words_of(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield from words(fold(value))
    elif isinstance(value, (set, frozenset)) and all(isinstance(item, str) for item in value):
        # Phrase sets are generated (a million phrases of a few hundred words): their distinct words are
        # folded once, not each phrase's (ten seconds on the first message of every process otherwise).
        yield from words(fold(" ".join(set(" ".join(value).split()))))
    elif isinstance(value, re.Pattern):
        yield from _PATTERN_WORD.findall(value.pattern)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _words_of(key)
            if isinstance(item, str):
                yield from _words_of(item)
    elif isinstance(value, (set, frozenset, tuple, list)):
        for item in value:
            yield from _words_of(item)
