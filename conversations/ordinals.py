"""An item picked by its place in the list the agent just answered: "abre a segunda", "the 3rd one", "a última",
"who's inspecting the first one?". The list's items are kept in the order the reply showed them
(hooks → context["listed"]); the ordinal picks one of the entity type asked, never a guess when the list is
shorter. A weekday that is also an ordinal in Portuguese ("segunda", "quarta") counts only after an article and
not after a date preposition ("pra segunda" is Monday). (Hand-written: a closed list of ordinal words.)
"""

from __future__ import annotations

import re
from typing import Any

from knowledge.text import fold

from .dates import WEEKDAYS
from .lexicon import tokens

_PLACES = {
    0: "primeira primeiro primeiros first 1st 1a 1o",
    1: "segunda segundo second 2nd 2a 2o",
    2: "terceira terceiro third thrid 3rd 3a 3o",
    3: "quarta quarto fourth 4th 4a 4o",
    4: "quinta quinto fifth 5th 5a 5o",
    5: "sexta sexto sixth 6th 6a 6o",
    -1: "ultima ultimo last",
    -2: "penultima penultimo penultimate",
}
ORDINALS = {word: place for place, said in _PLACES.items() for word in tokens(said)}
# Said alone as the answer to "which one?" (clarification.py), a place on the screen names one too.
ANSWER_PLACES = {**{(word,): place for word, place in ORDINALS.items()},
                 **{tuple(tokens(said)): place for said, place in (("de cima", 0), ("top", 0), ("upper", 0),
                                                                 ("de baixo", -1), ("bottom", -1), ("lower", -1))}}
_WORD = re.compile(r"[^\W_]+")
_WEEKDAYS = frozenset(WEEKDAYS) & frozenset(ORDINALS)  # "segunda" … "sexta": Portuguese weekdays are ordinals
_ARTICLES = frozenset(tokens("a o da do the"))
_DATED = frozenset(tokens("pra para ate na no on by until to for dia desde since"))
_UNITS = frozenset(tokens("semana semanas mes meses dia dias week weeks month months day days time vez"))


def ordinal_in(parts: list[str]) -> int | None:
    """The place an ordinal word of the message picks (0 first, -1 last), else None."""
    at = ordinal_at(parts)
    return None if at is None else ORDINALS[parts[at]]


def ordinal_at(parts: list[str]) -> int | None:
    """The position of the ordinal word that picks a place, else None."""
    for i, part in enumerate(parts):
        if part not in ORDINALS or (i + 1 < len(parts) and parts[i + 1] in _UNITS):  # "last week", "primeiro dia"
            continue
        before = parts[i - 1] if i else ""
        if part in _WEEKDAYS and (before not in _ARTICLES or (i > 1 and parts[i - 2] in _DATED)):
            continue
        if before in _DATED:
            continue
        return i
    return None


def without_the_pick(text: str, listed: list[dict[str, Any]], parts: list[str]) -> str:
    """The message without the ordinal word that picks from the last list: "move the second one to friday" has
    one date, friday — "the second" is no day of the month there."""
    at = ordinal_at(parts) if listed else None
    if at is None:
        return text
    return _WORD.sub(lambda m: " " if fold(m.group(0)) == parts[at] else m.group(0), text)


def listed_pick(listed: list[dict[str, Any]], slot_type: str, parts: list[str]) -> dict[str, Any] | None:
    """The item of `slot_type` the message picks by its place in the last list, else None."""
    place = ordinal_in(parts)
    items = [ref for ref in listed if ref.get("type") == slot_type]
    if place is None or not items or not -len(items) <= place < len(items):
        return None
    return items[place]


def opened_pick(situation: Any, slot_type: str, parts: list[str]) -> dict[str, Any] | None:
    """With no list shown, the item the ordinal picks among those this conversation spoke of, in the order they
    first came up ("abre a 60", "abre a 62", "move the first one to the 12th" → 60): of `slot_type`, else None.
    The conversation's items of every type count ("a primeira que eu abri" is the first of all) — when that one is
    of another type, the place counts among the items of `slot_type`. "The last one" is left to the earlier-one
    reading (references.py), and one item alone is no list to pick from."""
    place = ordinal_in(parts)
    seen = list(reversed(situation.recent))
    if place is None or place < 0 or situation.listed:
        return None
    if len(seen) > place and len(seen) > 1 and seen[place].get("type") == slot_type:
        return seen[place]
    of_type = [r for r in seen if r.get("type") == slot_type]
    return of_type[place] if len(of_type) > max(1, place) else None
