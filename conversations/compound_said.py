"""Does the message ask for more than one action, or for one under a condition? ("adicione X na 802
e depois aprove", "remove a Ana e põe o Bruno", "se estiver vencida, renove por 30 dias", "add X
then approve it"). The fast path makes one plan for one capability: reading such a message as its
first action only would drop the rest — or the condition — silently. A compound message goes to
the LLM planner when one is configured (conversations.compound), else it is answered as such.

Read from the message with the tenant's names masked (data_spans), so the words of a name ("… and
then delete …" inside an item's name) never make a message compound. Each clause must rank a
capability with its own verb, the clauses' capabilities must differ, and one must be a write: "abre
a 802 e mostra a aba X" or "adiciona X e Y na 802" stay one request.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import lexicon
from .numbers import numbers_in
from .understanding import rank

# Words that join two actions; the longest phrase is tried first at each position.
_JOINERS = tuple(sorted((tuple(lexicon.tokens(p)) for p in (
    "e depois", "depois", "e entao", "em seguida", "e em seguida", "e logo", "e ai", "apos isso", "e tambem",
    "e", "and then", "then", "after that", "afterwards", "and also", "and")), key=len, reverse=True))
# A condition opens the message: "se …", "caso …", "if …", "only if …".
_CONDITIONS = tuple(tuple(lexicon.tokens(p)) for p in ("so se", "somente se", "apenas se", "se", "caso",
                                                        "only if", "if", "in case"))
# "go ahead and …", "vai lá e …": a clause of these words only opens the request.
_OPENING = lexicon.OPENING
# Text after a colon, or after an opening quote never closed, is what the user dictates (a description, a
# note): data. A passage quoted whole is masked by the caller (freetext.quoted_positions), and what follows it is
# still the request's ("registre o <item> “…” e depois conclua ela").
_DICTATED = re.compile(r"(?:(?<!\d):|:(?!\d))(?!//)|[“\"«]|(?<!\w)'")
# "se possível, …", "if you can, …": courtesy, not a condition.
_COURTESY = frozenset(lexicon.tokens("possivel puder poder conseguir conseguires incomodo importa favor possible "
                                     "can could mind please"))


@dataclass(frozen=True)
class Shape:
    kind: str  # "sequence" | "condition"
    capabilities: tuple[str, ...]


def clause_ranges(parts: list[str]) -> list[tuple[int, int]]:
    """Where each clause of `parts` starts and ends, the words that join them left out."""
    ranges, start, i = [], 0, 0
    while i < len(parts):
        joiner = next((j for j in _JOINERS if tuple(parts[i:i + len(j)]) == j), None)
        if joiner == ("e",) and parts[i - 1] in lexicon.QUESTION_WORDS:
            joiner = None  # "quem é o …", "qual é a …": the verb "é", typed without its accent
        if joiner is not None and i > start:
            ranges.append((start, i))
            i += len(joiner)
            start = i
            continue
        i += 1
    if start < len(parts):
        ranges.append((start, len(parts)))
    return ranges


def _clauses(parts: list[str]) -> list[list[str]]:
    return [parts[a:b] for a, b in clause_ranges(parts)]


@dataclass(frozen=True)
class _Action:
    capability: str
    kind: str
    entity: str
    intent: str
    at: int


def _acting(grammar, clause: list[str], allowed: set[str], hints) -> _Action | None:
    """The action a clause names by its own verb (a write or a navigation), if any."""
    if all(p in _OPENING for p in clause):
        return None
    ranked = rank(grammar, clause, allowed, hints)
    if not ranked or ranked[0].verb is None or ranked[0].verb_span is None:
        return None
    cap = ranked[0].cap
    if cap.kind not in ("write", "navigation"):
        return None
    return _Action(cap.id, cap.kind, cap.entity, cap.intent, ranked[0].verb_span[0])


def said_part(text: str, parts: list[str]) -> list[str]:
    """The words before anything dictated (after a colon or an opening quote left open)."""
    cut = _DICTATED.search(lexicon.QUOTED.sub(lambda m: " " * len(m.group(0)), text))
    return parts[:len(lexicon.tokens(text[:cut.start()]))] if cut else parts


def _own_actions(actions: list[_Action]) -> list[_Action]:
    """"crie uma igual, mas coloque X como responsável": writes on what an earlier clause creates are
    that creation's values, not actions of their own (opening it afterwards is one)."""
    created: set[str] = set()
    own = []
    for action in actions:
        if action.kind == "write" and action.entity in created:
            continue
        if action.intent == "create":
            created.add(action.entity)
        own.append(action)
    return own


def condition_split(grammar, text: str, masked_parts: list[str], allowed: set[str], hints) -> tuple[int, int] | None:
    """Where a condition's words start and where the request after it starts, else None: at the first comma ("se a
    320 ainda não tiver sido aprovada, aprova ela" — a state word like the verb stands in the condition), else at
    the request's verb."""
    opener = next((c for c in _CONDITIONS if tuple(masked_parts[:len(c)]) == c), None)
    if opener is None:
        return None
    comma = len(lexicon.tokens(text.split(",", 1)[0])) if "," in text else None
    if comma is not None and len(opener) < comma < len(masked_parts):
        return len(opener), comma
    acting = _acting(grammar, masked_parts[len(opener):], allowed, hints)
    return (len(opener), len(opener) + acting.at) if acting is not None and acting.at else None


def compound_shape(grammar, masked_parts: list[str], allowed: set[str], hints) -> Shape | None:
    """The message's shape when it is compound (see the module docstring), else None."""
    opener = next((c for c in _CONDITIONS if tuple(masked_parts[:len(c)]) == c), None)
    if opener is not None:
        rest = masked_parts[len(opener):]
        acting = _acting(grammar, rest, allowed, hints)
        condition = rest[:acting.at] if acting else []
        if acting and acting.kind == "write" and condition and not set(condition) & _COURTESY:
            return Shape("condition", (acting.capability,))
        return None
    clauses = _clauses(masked_parts)
    if len(clauses) < 2:  # one clause and no condition: one request, without ranking it again
        return None
    acting = [(a, c) for c in clauses if (a := _acting(grammar, c, allowed, hints))]
    actions = _own_actions([a for a, _ in acting])
    capabilities = tuple(dict.fromkeys(a.capability for a in actions))
    if len(actions) >= 2 and len(capabilities) >= 2 and any(a.kind == "write" for a in actions):
        return Shape("sequence", capabilities)
    if (len(actions) >= 2 and len(capabilities) == 1 and actions[0].kind == "write" and actions[0].intent != "create"
            and _each_its_number(acting)):
        return Shape("sequence", capabilities)  # "aprova a 310 e aprova a 311": one write, each on its own item
    return None


def _each_its_number(acting: list[tuple[_Action, list[str]]]) -> bool:
    """Each clause says one number of its own, none said twice."""
    numbers = [[d for _, d, unit in numbers_in(clause) if not unit] for _, clause in acting]  # ("30 dias": no item)
    return all(len(n) == 1 for n in numbers) and len({n[0] for n in numbers}) == len(numbers)
