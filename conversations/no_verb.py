"""Where a verb's word stands but says no request (ranking.find_verb skips it): a noun after an article ("a agenda
de <entidades>"), a judgement ("looks fine to me, approve"), a participle telling what was done ("tudo que foi
apontado", "what was recorded"), an -ing noun ("the finding" is no "find"). Closed-class words of the two
languages, like lexicon.py.
"""

from __future__ import annotations

from .lexicon import JUDGING, tokens

# Words in -ing that are nouns in what users say of their work, never a form of a verb
ING_NOUNS = frozenset(tokens("finding findings building buildings meeting meetings warning warnings setting settings"))
_NOUN_ARTICLES = frozenset(tokens("a o as os the um uma an"))
_WAS = frozenset(tokens("foi foram was were been sido"))
_PARTICIPLE = ("ado", "ada", "ido", "ida", "ed")


def no_verb_here(words: list[str], at: int) -> bool:
    """The word at `at` is no verb of a request, whatever it looks like."""
    before = words[at - 1] if at else ""
    return (words[at + 1:at + 2] != [] and words[at + 1] in JUDGING  # "looks fine": a judgement
            or before in _NOUN_ARTICLES  # "a agenda de <entidades>": a noun
            or (before in _WAS and words[at].endswith(_PARTICIPLE)))  # "tudo que foi apontado": told
