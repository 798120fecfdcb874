"""Where a verb's word stands but says no request (ranking.find_verb skips it): a noun after an article ("a agenda
de <entidades>"), a judgement ("looks fine to me, approve"), a participle telling what was done ("tudo que foi
apontado", "everything that was recorded"). Closed-class words of the two languages, like lexicon.py (an entity's
own noun that looks like a verb form is ranking.verb_matches': the registry's nouns).
"""

from __future__ import annotations

from .lexicon import JUDGING, tokens

_NOUN_ARTICLES = frozenset(tokens("a o as os the um uma an"))
_WAS = frozenset(tokens("foi foram was were been sido"))
_PARTICIPLE = ("ado", "ada", "ido", "ida", "ed")
_THAT = frozenset(tokens("que that which"))
_ALL = frozenset(tokens("tudo todos todas everything all"))


def no_verb_here(words: list[str], at: int) -> bool:
    """The word at `at` is no verb of a request, whatever it looks like."""
    before = words[at - 1] if at else ""
    return (words[at + 1:at + 2] != [] and words[at + 1] in JUDGING  # "looks fine": a judgement
            or before in _NOUN_ARTICLES  # "a agenda de <entidades>": a noun
            or (before in _WAS and words[at].endswith(_PARTICIPLE) and at >= 3 and words[at - 2] in _THAT
                and words[at - 3] in _ALL))  # "tudo que foi apontado": told ("o que foi adicionado?" asks)
