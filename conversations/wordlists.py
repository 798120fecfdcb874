"""The language of a message, and the Portuguese and English word lists (pyspellchecker's), loaded once per
process: whether a word is a real word of either language (typos.py never reads one as a slip of another), and
which language only one of them has it in (detect_language's clue when the marker words tie: "move 52 two weeks
out")."""

from __future__ import annotations

import re
from functools import lru_cache

from spellchecker import SpellChecker

from .lexicon import EN_MARKERS, PT_MARKERS, QUOTED, tokens

_LANGUAGES = {"pt-BR": "pt", "en": "en"}


@lru_cache(maxsize=1)
def dictionaries() -> dict[str, SpellChecker]:
    """The word lists by language, loaded once per process (about a second) when first needed."""
    return {language: SpellChecker(language=code, distance=1) for language, code in _LANGUAGES.items()}


def real_word(word: str) -> bool:
    return any(word in checker for checker in dictionaries().values())


def only_in(word: str) -> str | None:
    """"pt-BR" or "en" when only that language's list has the (folded) word, else None."""
    found = [language for language, checker in dictionaries().items() if word in checker]
    return found[0] if len(found) == 1 else None


def detect_language(text: str, default: str) -> str:
    """"pt-BR" or "en" for one message; a message with no clue keeps `default` (the conversation's). A quoted
    passage is the user's value, in whatever language it is written: no clue."""
    text = QUOTED.sub(" ", text)
    parts = tokens(text)
    # An accent is a clue, but not in a name said mid-sentence ("… of Metalúrgica Vale Azul's …"): a
    # capitalised word after the first is a name, in either language.
    accented = any(re.search(r"[ãõçáéíóúâêô]", w.casefold()) and (i == 0 or not w[:1].isupper())
                   for i, w in enumerate(text.split()))
    pt = sum(p in PT_MARKERS for p in parts) + (2 if accented else 0)
    en = sum(p in EN_MARKERS for p in parts)
    if pt == en:  # "move 52 two weeks out": no marker word — the words only one language has
        own = [only_in(p) for p in parts if len(p) > 2 and p.isalpha()]
        pt, en = own.count("pt-BR"), own.count("en")
    if pt == en:
        return default
    return "pt-BR" if pt > en else "en"
