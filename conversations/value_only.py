"""A value alone for the proposal on screen: "opa, 45 dias", "pera, põe 25", "hang on, make it Wednesday instead",
"typo on my part - it's '<texto>'" — words that only say the value replaces the one proposed (runtime sends them to
corrections.correction_apply)."""

from __future__ import annotations

from collections.abc import Callable

from . import lexicon
from .dates import date_in, today
from .flow import pending_confirmation
from .freetext import quoted_values
from .turns import Turn

# "opa, 50 na verdade", "60 instead": the amount with words that only say it replaces the one on screen
_VALUE_WORDS = lexicon.DAY_UNITS | lexicon.ARTICLES | frozenset(lexicon.tokens(
    "daqui pra para em in from now na no verdade caso actually instead then entao melhor better sao serao is it s "
    "that isso was right after all afinal certo correto tava estava era mesmo campo field nesse neste"))
# ("make that 18 days instead", "40 was right after all", "40 tava certo mesmo", "põe 45 nesse campo")


def bare_value(parts: list[str]) -> list[str] | None:
    """"opa, 45 dias", "15 days", "coloca 45 dias": only an amount (after an interjection), or None."""
    rest = _placed(parts)
    digits = [p for p in rest if p.isdigit()]
    if len(digits) != 1 or len(rest) > 5 or any(not p.isdigit() and p not in _VALUE_WORDS and p not in lexicon.HOLDS
                                                for p in rest):  # ("pera, põe 25")
        return None
    return rest


_AROUND_A_DATE = _VALUE_WORDS | lexicon.HOLDS | frozenset(lexicon.tokens("hang on wait instead then rather deixa deixe "
                                                                          "leave"))  # "na verdade, deixa pra sexta"


def _placed(parts: list[str]) -> list[str]:
    """What is said after apologies and a yes, without the words that only place it ("desculpe, coloca 45 dias",
    "sim, 45 dias" → 45 dias: a yes to another value than the one on screen is that value, proposed again)."""
    placed = lexicon.after_apology([p for p in parts if p not in lexicon.PLACING])
    while placed[1:] and placed[0] in lexicon.CONFIRM_WORDS:
        placed = placed[1:]
    return placed


def only_a_date(turn: Turn, parts: list[str]) -> bool:
    """Only a date, placed and held ("hang on, make it Wednesday instead", "pera, melhor na sexta")."""
    rest = _placed(parts)
    said = date_in(" ".join(rest), today(), turn.language, moving=True) if rest else None
    return said is not None and not set(rest) - set(said.words.split()) - _AROUND_A_DATE


def only_quoted(turn: Turn, text: str, commands: Callable[[list[str]], bool]) -> bool:
    """One quoted text and no request around it, while the proposal has a text of its own to correct."""
    pending = pending_confirmation(turn)
    cap = turn.grammar.capabilities.get(str((pending.intent or {}).get("capability"))) if pending else None
    if cap is None or not any(s.parse == "text" for s in cap.slots) or len(quoted_values(text)) != 1:
        return False
    return not commands(lexicon.tokens(lexicon.QUOTED.sub(" ", text)))
