"""Finding the tenant's names (components, employees, companies, permits) in a message.

Accent- and case-insensitive; a whole name said word for word is an exact mention ("trabalho em
altura"); otherwise single distinctive words ("João", "Beta", "Pereira") select every name that
contains them, which is how an ambiguity becomes a clarification with candidates instead of a
silent choice. Small typos are tolerated with rapidfuzz on words of five letters or more.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz

from .grammar import CapabilityGrammar, SlotSpec, same_word
from .lexicon import ARTICLES, DAY_UNITS, DEMONSTRATIVES, FILLER, tokens

NOISE = ARTICLES | DEMONSTRATIVES | FILLER


def word_equal(a: str, b: str) -> bool:
    if a == b:
        return True
    return len(a) >= 5 and len(b) >= 5 and fuzz.ratio(a, b) >= 88


@dataclass
class Mention:
    items: list[dict[str, Any]]
    exact: bool
    spans: list[tuple[int, int]] = field(default_factory=list)
    text: str = ""

    @property
    def unique(self) -> bool:
        return len(self.items) == 1


def _occurs(parts: list[str], name: list[str], used: set[int]) -> tuple[int, int] | None:
    n = len(name)
    for i in range(len(parts) - n + 1):
        if any(j in used for j in range(i, i + n)):
            continue
        if all(word_equal(parts[i + k], name[k]) for k in range(n)):
            return i, i + n
    return None


def find_exact(parts: list[str], items: Iterable[Mapping[str, Any]], label: str,
               used: set[int] | None = None) -> list[tuple[dict[str, Any], tuple[int, int]]]:
    """Every item whose whole label occurs in `parts` (longest labels first, no overlaps)."""
    used = set(used or ())
    found = []
    ranked = sorted(items, key=lambda item: -len(tokens(str(item.get(label, "")))))
    for item in ranked:
        name = tokens(str(item.get(label, "")))
        if not name:
            continue
        at = _occurs(parts, name, used)
        if at is not None:
            found.append((dict(item), at))
            used.update(range(*at))
    return sorted(found, key=lambda pair: pair[1][0])


def _skipped(word: str, skip: set[str] | frozenset[str]) -> bool:
    """A word of the request itself, also inflected (an entity noun in the plural), is never a name's word."""
    return word in skip or any(s[:3] == word[:3] and same_word(word, s) for s in skip)


def _name_word(word: str, name_word: str) -> bool:
    """A word of the message that is a word of the name, also inflected in a long word: "o <item> que
    manda cancelar…" names the item whose text says "cancele"."""
    return word_equal(word, name_word) or (min(len(word), len(name_word)) >= 6 and same_word(word, name_word))


def _nickname(word: str, name: list[str]) -> bool:
    """"o Rafa" for Rafael …: a short form of four letters or more, said as the start of a name's first word
    at least two letters longer."""
    return len(word) >= _NICKNAME and bool(name) and len(name[0]) >= len(word) + 2 and name[0].startswith(word)


_NICKNAME = 4


def find_partial(parts: list[str], items: Iterable[Mapping[str, Any]], label: str,
                 skip: set[str] | frozenset[str] = frozenset(), used: set[int] | None = None) -> Mention | None:
    """Items sharing a distinctive word with the message ("o Pereira" → João Pereira). Words another slot
    consumed (`used`: "<entity> 312" naming the parent) are no word of a name."""
    # ("uma <entidade> de 10 dias" never names "<pessoa> Dias": a unit after a number is the number's)
    words = [(i, p) for i, p in enumerate(parts) if len(p) >= 3 and not p.isdigit() and p not in NOISE
             and not _skipped(p, skip) and i not in (used or ())
             and not (p in DAY_UNITS and i and parts[i - 1].isdigit())]
    hits: list[dict[str, Any]] = []
    spans: list[tuple[int, int]] = []
    for item in items:
        name = tokens(str(item.get(label, "")))
        matched = [i for i, word in words if any(_name_word(word, n) for n in name if n not in ARTICLES)
                   or _nickname(word, name)]
        if matched:
            hits.append(dict(item))
            spans.extend((i, i + 1) for i in matched)
    if not hits:
        return None
    return Mention(items=hits, exact=False, spans=sorted(set(spans)),
                   text=" ".join(parts[s] for s, _ in sorted(set(spans))))


def mention(parts: list[str], items: list[Mapping[str, Any]], label: str, *, many: bool = False,
            skip: set[str] | frozenset[str] = frozenset(), used: set[int] | None = None) -> Mention | None:
    exact = find_exact(parts, items, label, used)
    if exact:
        chosen = exact if many else exact[:1]
        return Mention(items=[i for i, _ in chosen], exact=True, spans=[s for _, s in chosen],
                       text=" ".join(" ".join(parts[a:b]) for _, (a, b) in chosen))
    return find_partial(parts, items, label, skip, used)


def by_label(cap: CapabilityGrammar, slot: SlotSpec, parts: list[str], found: Mention) -> Mention:
    """"owner Ana Lima, … with Bia Reis as helper": of several names of a type two slots take, this
    slot's is the one its own label stands next to; the others stay for the other slot."""
    if not any(s.type == slot.type and s.name != slot.name for s in cap.slots):
        return found
    def said_at(slots: Iterable[SlotSpec]) -> list[int]:
        labels = {w for s in slots for text in (s.label or {}).values() for w in tokens(text)}
        return [i for i, p in enumerate(parts) if p in labels or any(same_word(p, w) for w in labels)]  # "worker"

    at = said_at([slot])
    others = said_at(s for s in cap.slots if s.type == slot.type and s.name != slot.name)

    def distance(span: tuple[int, int], near: list[int]) -> int:
        return min((min(abs(i - (span[0] - 1)), abs(i - span[1])) for i in near), default=99)

    # nearest to this slot's label; of two as near ("<a> responsible <b> as worker"), the one farther from the
    # other slot's label
    ranked = sorted(zip(found.items, found.spans, strict=True),
                    key=lambda pair: (distance(pair[1], at), -distance(pair[1], others)))
    first, second = ranked[0][1], ranked[1][1]
    if distance(first, at) > 2 or (distance(second, at), distance(second, others)) == (
            distance(first, at), distance(first, others)):
        return found  # no label beside any of them, or two equally near: still ambiguous
    return Mention(items=[ranked[0][0]], exact=True, spans=[ranked[0][1]], text=found.text)
