"""A quantity said as a change of the current one inside a full request: "gimme 10 more days on <entity>
311", "estende a 310 por mais 5 dias", "deixa a 312 com 3 dias a menos". The words are the closed
class of the two languages (like lexicon.py); the field and its current value are the caller's.
"""

from __future__ import annotations

from .grammar import dropped_letter
from .lexicon import ARTICLES, DAY_UNITS, tokens

# Verbs that make a number more or less (closed-class arithmetic, not a domain's verbs).
ADD = frozenset(tokens("mais aumenta aumente aumentar acrescenta acrescente acrescentar soma some somar adiciona "
                       "adicione estende estenda estender prorroga prorrogue prorrogar prolonga prolongue more add ad "
                       "increase extend plus lengthen bump raise boost stretch estica espicha amplia alonga sobe suba"))
SUB = frozenset(tokens("menos reduz reduza reduzir diminui diminua diminuir tira tire subtrai subtraia corta "
                       "corte encurta encurte less minus reduce decrease subtract cut shorten remove knock "
                       "trim shave lower shrink baixa abaixa desconta"))
# "extend it by 5 days", "prorroga em 5 dias": the amount of a change, after one of those verbs.
_BY = frozenset(tokens("by em"))

_MORE_BEFORE = frozenset(tokens("mais more extra another outros outras further"))  # "by a further ten days"
MORE_AFTER = frozenset(tokens("more extra mais adicionais additional longer later"))
_LESS_BEFORE = frozenset(tokens("menos"))
# "acrescenta 5 dias", "add 3 days to <entity> 311": verbs that only ever add, right before an amount with
# its unit (estende/extend/prorroga before "30 dias" may as well set the value: not these).
_ADD_BEFORE = frozenset(tokens("acrescenta acrescente acrescentar soma some somar adiciona adicione adicionar add "
                               "plus aumenta aumente aumentar increase"))
LESS_AFTER = frozenset(tokens("less fewer menos shorter off earlier sooner"))  # "take 5 days off"


def increment_sign(parts: list[str], at: int) -> int:
    """+1 when the number at `at` is said as more of the current value, -1 as less, 0 as a value."""
    before = next((p for p in reversed(parts[:at]) if p not in ARTICLES), None)
    after = next((p for p in parts[at + 1:] if p not in ARTICLES and p not in DAY_UNITS), None)
    if before in _MORE_BEFORE or after in MORE_AFTER or (at and parts[at - 1] == "out"):  # "push it out 2 days"
        return 1
    if before in _LESS_BEFORE or after in LESS_AFTER:
        return -1
    if at + 1 < len(parts) and parts[at + 1] in DAY_UNITS and at and parts[at - 1] == before:
        # the verb right before "<n> dias": "tira 5 dias do prazo", "knock 3 days off", "soma 2 dias"
        if before in _ADD_BEFORE:
            return 1
        if before in SUB:
            return -1
    if at and parts[at - 1] in _BY:  # "by"/"em" are articles elsewhere: the word right before the amount
        verbs = parts[:at]  # ("cut its <campo> by 40 days": a short verb said as typed counts too)
        if any(_said(p, ADD) for p in verbs):
            return 1
        if any(_said(p, SUB) for p in verbs):
            return -1
    return 0


# The verbs that only make longer: "extend it 5 days", "prorroga a 311 5 dias" (no "by", no "to") — an amount below
# the current value can only be how much longer (setting it would shorten what was to be extended).
_LONGER = frozenset(tokens("estende estenda estender prorroga prorrogue prorrogar prolonga prolongue extend lengthen "
                           "stretch estica espicha amplia alonga"))
_TO = frozenset(tokens("to para pra for por"))


def extension_said(parts: list[str], at: int) -> bool:
    """The amount at `at` is said after a verb that only makes longer, with no "to"/"para" before it (below the
    current value, the caller reads it as how much longer)."""
    return parts[at].isdigit() and not (at and parts[at - 1] in _TO) and any(_said(p, _LONGER) for p in parts[:at])


def _said(word: str, verbs: frozenset[str]) -> bool:
    # "extnd"; "<entity> 310 extended by 10 days", "a 311 prorrogada em 5 dias": the participle says it too
    return word in verbs or any(len(v) >= 5 and (dropped_letter(word, v) or _participle(word, v)) for v in verbs)


def _participle(word: str, verb: str) -> bool:
    if word.endswith("ed"):
        return word[:-2] == verb or word[:-1] == verb  # extended, raised
    # prorroga → prorrogada, estende → estendida, reduz → reduzida
    stem = verb[:-1] if verb[-1:] in ("a", "e") else verb
    return any(word == stem + end for end in ("ada", "ado", "ida", "ido"))
