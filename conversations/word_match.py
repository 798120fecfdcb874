"""Words compared as a user types them: the same word up to accents, case, inflection or one slip
(`same_word`), a verb with a letter dropped (`dropped_letter`), a phrase found word by word (`find_phrase`).

By hand over kept libraries: Snowball stems (knowledge.text.stem) and rapidfuzz's OSA distance do the work; the
Portuguese rules here (verb roots, nasal plurals, short conjugations) are what no stemmer folds — the imperative
and indicative differ only in their last vowel ("coloque"/"coloca").
"""

from __future__ import annotations

import re
from functools import lru_cache

from rapidfuzz.distance import OSA

from knowledge.text import stem

_CAMEL = re.compile(r"[A-Z]?[a-z]+")


@lru_cache(maxsize=50_000)
def _stems(word: str) -> frozenset[str]:
    return frozenset({stem(word, "pt"), stem(word, "en")})


_INFINITIVE = re.compile(r"(ar|er|ir)$")
_TRAILING_VOWELS = re.compile(r"[aeiou]+$")


@lru_cache(maxsize=50_000)
def verb_root(word: str) -> str:
    """The Portuguese verb root without mood/person endings: "coloque"/"coloca"/"colocar" → "coloc"."""
    root = _INFINITIVE.sub("", word) if len(word) > 4 else word
    if root.endswith(("que", "qui")):
        return root[:-3] + "c"
    if root.endswith(("gue", "gui")):
        return root[:-3] + "g"
    return _TRAILING_VOWELS.sub("", root)


_NASAL = ((re.compile(r"oes$"), "ao"), (re.compile(r"aes$"), "ao"), (re.compile(r"ns$"), "m"))
TYPO_SHORT_MIN = 5
TYPO_MIN = 7  # shorter words are too often other real words one letter away ("remova"/"renova")


def _singular(word: str) -> str:
    """"botoes" → "botao", "itens" → "item": the Portuguese nasal plurals stemmers keep apart."""
    for pattern, replacement in _NASAL:
        if pattern.search(word):
            return pattern.sub(replacement, word)
    return word


@lru_cache(maxsize=200_000)
def same_word(a: str, b: str) -> bool:
    """The same word up to accents, case, inflection or one typo in a long word."""
    if a == b:
        return True
    if len(a) < 3 or len(b) < 3 or a.isdigit() or b.isdigit():
        return False
    if _singular(a) == _singular(b):
        return True
    if min(len(a), len(b)) >= 5 and _stems(a) & _stems(b):
        return True
    root = verb_root(a)
    # Not for a word of three letters: "don" (of "don't") is no form of "done".
    if len(root) >= 3 and min(len(a), len(b)) >= 4 and abs(len(a) - len(b)) <= 1 and root == verb_root(b):
        return True
    return _conjugated(a, b) or _conjugated(b, a) or one_typo(a, b)


_ENDINGS = frozenset({"a", "e", "o", "as", "es", "am", "em", "ou", "ei", "amos", "emos", "ando", "endo", "ado",
                      "ada", "ido", "ida"})


def _conjugated(word: str, infinitive: str) -> bool:
    """"adia"/"adiar", "adiou"/"adiar": a short verb whose root the vowel-stripping rule cuts too far."""
    if len(infinitive) < 4 or not _INFINITIVE.search(infinitive):
        return False
    base = infinitive[:-2]
    return word.startswith(base) and word[len(base):] in _ENDINGS


def one_typo(a: str, b: str) -> bool:
    """One letter added, dropped, changed or two swapped (rapidfuzz's OSA distance), in long words."""
    return min(len(a), len(b)) >= TYPO_MIN and OSA.distance(a, b, score_cutoff=1) <= 1


def english_form(word: str, verb: str) -> bool:
    """"moved"/"move", "approving"/"approve", "opens"/"open": an English verb's regular forms."""
    if len(verb) < 3 or not word.startswith(verb[:-1]):
        return False
    stem = verb[:-1] if verb.endswith("e") else verb
    return word in {verb + "s", verb + "es", verb + "d", verb + "ed", stem + "ed", stem + "ing", verb + "ing"}


def dropped_letter(word: str, verb: str) -> bool:
    """"extnd" for "extend": a verb of five letters or more with one letter dropped or added, or of four
    or more with two neighbours swapped ("opne"). Only for a
    verb's first word — elsewhere a shorter word is too often another word ("estao"/"estado")."""
    if len(word) == len(verb) >= 4 and sorted(word) == sorted(verb) and word != verb:
        return OSA.distance(word, verb, score_cutoff=1) <= 1  # two letters swapped: "opne" for "open"
    return (abs(len(word) - len(verb)) == 1 and min(len(word), len(verb)) >= TYPO_SHORT_MIN
            and OSA.distance(word, verb, score_cutoff=1) <= 1)


def camel_parts(identifier: str) -> list[str]:
    """"someCamelName" → ["some", "camel", "name"]."""
    return [p.lower() for p in _CAMEL.findall(identifier)]


def find_phrase(parts: list[str], phrase: tuple[str, ...]) -> tuple[int, int] | None:
    """First (start, end) where `phrase` occurs in `parts` word by word (same_word)."""
    n = len(phrase)
    if n == 0:
        return None
    for i in range(len(parts) - n + 1):
        if all(same_word(parts[i + k], phrase[k]) for k in range(n)):
            return i, i + n
    return None
