"""Where a verb phrase is said in a message (ranking.verb_matches): in order, a few words between its parts, its
first word with one slip where no verb is said as typed — never a pronoun, an article, a negation or a preposition
read as a slip of one ("isso" is no "issue", "sobre" no "dobre").
(Hand-written: the registry's verbs are matched word by word with the project's own inflection and slip rules.)
"""

from __future__ import annotations

from functools import lru_cache

from rapidfuzz.distance import OSA

from .grammar import dropped_letter, english_form, same_word, verb_root
from .keyboard import dropped_inside, neighbour_slip
from .lexicon import ARTICLES, CLOSED_CLASS, DEMONSTRATIVES, JUDGING, NEGATIONS, REQUEST_OPENERS, tokens
from .no_verb import no_verb_here


def led(parts: list[str], at: int, lead: str) -> bool:
    """The verb's leading word stands before `at`, with only articles between ("dá uma olhada")."""
    before = at - 1
    while before >= 0 and parts[before] in ARTICLES and parts[before] != lead:
        before -= 1
    return before >= 0 and parts[before] == lead


def verb_place(words: list[str]) -> int:
    """Where the verb stands: the first word that is no request opener ("preciso listar…")."""
    return next((i for i, w in enumerate(words) if w not in REQUEST_OPENERS), 0)


@lru_cache(maxsize=50_000)
def as_meant(heads: frozenset[str], word: str) -> str:
    """The word at the verb's place as meant: a slip of exactly one verb's first word that opens no verb as
    typed is that word ("lste" → "liste"), so every form of the verb matches ("listar <entidades>")."""
    if _no_verb_at_all(word):
        return word
    if any(_may_open(word, h) for h in heads):
        return word
    slips = {h for h in heads if _slip(word, h) or _root_slip(word, h)}
    return next(iter(slips)) if len(slips) == 1 else word


_ROOT_SLIP_MIN = 6


def _root_slip(word: str, head: str) -> bool:
    """"reagneda" for "reagendar": an inflected form of a long verb with a slip in its root (two letters
    swapped, one dropped, added or changed) — roots of six letters or more, where one slip is no other verb."""
    a, b = verb_root(word), verb_root(head)
    return (min(len(a), len(b)) >= _ROOT_SLIP_MIN and word not in CLOSED_CLASS
            and OSA.distance(a, b, score_cutoff=1) <= 1)


@lru_cache(maxsize=50_000)
def heads_said(heads: frozenset[str], word: str) -> frozenset[str]:
    """The verb first words `word` may be (find_verb's test of a first word): the verbs worth looking
    for in a message — a few of the registry's hundreds (issue #18: this loop was ~5 ms a turn)."""
    if _no_verb_at_all(word):
        return frozenset()
    said = frozenset(h for h in heads if _may_open(word, h))
    # A neighbouring key ("opwn" for "open") only for a word that opens no verb as typed: "remova" is a
    # verb of its own, never a slip of "renova".
    return said or frozenset(h for h in heads if _slip(word, h))


def _no_verb_at_all(word: str) -> bool:
    """A number ("7003", "45") is no verb nor any slip of one. Numbers are the words a message says anew each
    time (items, amounts), so each missed the caches above once per process and scanned every verb head
    (about 2 ms a word, measured)."""
    return word.isdigit()


def _slip(word: str, head: str, *, at_verb_place: bool = True) -> bool:
    # A word of its own that opens a request ("bora aprovar", "vamos") is never a slip of a verb ("bota").
    # A short word with a letter dropped ("lsta") only where the verb stands: anywhere else too many short
    # words are another word with a letter dropped.
    if word in REQUEST_OPENERS or word in JUDGING or word in _NEVER_A_VERB:  # ("sobre" is no slip of "dobre")
        return False
    return neighbour_slip(word, head) or (at_verb_place and word not in CLOSED_CLASS and (
        dropped_inside(word, head) or _english_form_slip(word, head)))


def _english_form_slip(word: str, head: str) -> bool:
    """"extnding" for "extending": an English -ing/-ed form whose stem has one letter dropped or added."""
    suffix = next((s for s in ("ing", "ed") if word.endswith(s) and len(word) - len(s) >= 4), None)
    if suffix is None:
        return False
    stem = word[:-len(suffix)]
    return dropped_letter(stem, head) or dropped_letter(stem + "e", head)


def _may_open(word: str, head: str) -> bool:
    if word != head and word in _NEVER_A_VERB:  # "isso" is no form of "issue", "essa" none of "assess"
        return False
    return same_word(word, head) or dropped_letter(word, head) or english_form(word, head)


# ("sobre a <entidade> 312" is no "dobre" typed with a slip: a preposition is itself)
_PREPOSITIONS = frozenset(tokens("sobre sob entre contra desde ate após apos sem segundo conforme durante perante "
                                 "about above under between against since until without during"))
_NEVER_A_VERB = DEMONSTRATIVES | ARTICLES | NEGATIONS | _PREPOSITIONS



def find_verb(words: list[str], verb: tuple[str, ...], max_gap: int = 2) -> tuple[int, int] | None:
    """A verb phrase in order, allowing a few words between its parts ("switch to the workers tab")."""
    place = verb_place(words)
    for start, word in enumerate(words):
        # A slip is only tried for the verbs heads_said let through (no other verb said as typed).
        if not (_may_open(word, verb[0]) or _slip(word, verb[0], at_verb_place=start == place)) or no_verb_here(
                words, start):
            continue
        position, ok = start, True
        for part in verb[1:]:
            window = range(position + 1, min(len(words), position + 2 + max_gap))
            # ("bring 60 foward": a dropped letter in a later word of five or more too)
            position = next((i for i in window if same_word(words[i], part)
                             or (len(part) >= 5 and dropped_letter(words[i], part))), -1)
            if position < 0:
                ok = False
                break
        if ok:
            return start, position + 1
    return None
