"""Two or more writes asked in one message, planned by the fast path as one plan and confirmed once:
"muda a <campo> da 310 pra 40 dias e adiciona o <filho> X nela", "push <entity> 62 back a week and give
<entity> 340 5 more days", "registre o <item> “…” na 52 e depois conclua ela".

Each clause (compound_said.clause_ranges, over the message with the tenant's names and quoted passages masked)
is read on its own, as a message of its own would be: its capability is chosen and its slots filled by the same
chooser and extractor as a one-action request. A clause with no verb of its own belongs to the clause before it
("adiciona X e Y na 802"). A clause that names no item of its target's type acts on the item the clause before it
acted on ("… e adiciona X nela", "… and extend it by a week") — never on the conversation's open item behind the
message's back. Each clause's item is pinned like any plan's target.

Only plain sequences of writes are planned here: a navigation, a read, a create (whose result a later clause
would refer to), a condition, or a clause that does not fill its capability leaves the message to the LLM planner
(conversations.compound) or to "say one step at a time" — never half of it planned.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from difflib import SequenceMatcher
from typing import Any

from knowledge.text import fold

from .compound_said import Shape, clause_ranges, condition_split
from .condition_held import condition_checked
from .flow import rest
from .intents import intent_state, is_target, repeated
from .llm import llm_understand
from .operations import plan_and_decide
from .ranking import rank
from .state import hints_for, situation_for
from .turns import Turn
from .understanding import Extraction, Extractor, masked

Chooser = Callable[..., tuple[Any, Extraction]]
Step = tuple[Any, Extraction]  # a clause's capability and what it said
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def compound_request(turn: Turn, parts: list[str], shape: Shape, spans: frozenset[int], allowed: set[str],
                     choose: Chooser, understand: Callable[..., None]) -> None:
    """Several actions or a condition: a plain sequence of writes is planned as one (below); else the LLM
    structures them (conversations.compound); without one, a condition on an item's state is checked from its data
    (condition_held.py), and otherwise the user is told to say one step at a time — nothing is started."""
    extractor = Extractor(grammar=turn.grammar, reader=turn.reader, situation=situation_for(turn.conversation),
                          text=turn.text, language=turn.language, data=(parts, spans))
    if shape.kind == "sequence" and sequence_request(turn, parts, spans, allowed, extractor, choose):
        return
    if llm_understand(turn, parts):  # (a condition the planner structures is checked when the plan runs)
        return
    hints = hints_for(turn.conversation, with_topic=True)
    split = (condition_split(turn.grammar, turn.text, masked(parts, spans), allowed, hints)
             if shape.kind == "condition" else None)
    if split is not None and condition_checked(turn, parts[split[0]:split[1]], parts[split[1]:], allowed, understand):
        return
    rest(turn)
    turn.reply("clarification", f"clarify.compound_{shape.kind}", values={})


def sequence_request(turn: Turn, parts: list[str], spans: frozenset[int], allowed: set[str],
                     extractor: Extractor, choose: Chooser) -> bool:
    """Plan the message's writes as one compound plan; False (nothing planned) when it is not a plain sequence."""
    clauses = _acting_clauses(turn, parts, spans, allowed)
    if len(clauses) < 2:
        return False
    steps, before = [], None
    for start, end in clauses:
        step = _clause(turn, parts, spans, allowed, extractor, choose, (start, end), before)
        if step is None:
            return False
        steps.append(step)
        before = step
    if len({cap.id for cap, _ in steps}) < 2 and not _each_its_own_item(turn, steps):
        return False  # one capability over one item twice, or a batch's own selection
    plan_steps(turn, steps)
    return True


def one_step_at_a_time(turn: Turn) -> bool:
    """Nothing planned: the user is asked to say one step at a time (each_item.py, compound_correction.py)."""
    rest(turn)
    turn.reply("clarification", "clarify.compound_sequence", values={})
    return True


def plan_steps(turn: Turn, steps: list[Step]) -> None:
    """The steps as one compound plan, each after the one before it, confirmed once."""
    compound = [{"part": f"s{i + 1}", "depends_on": [f"s{i}"] if i else [], "refs": {}, "ref_types": {},
                 "condition": None,
                 "state": intent_state(capability=cap.id, values=extraction.values, text=turn.text,
                                       language=turn.language)} for i, (cap, extraction) in enumerate(steps)]
    top = intent_state(capability=steps[-1][0].id, values={}, text=turn.text, language=turn.language)
    top["compound"] = compound
    turn.event("INTENT_CREATED", {"intent_id": top["id"], "capability": top["capability"],
                                  "parts": [c["state"]["capability"] for c in compound]})
    plan_and_decide(turn, top)


def _each_its_own_item(turn: Turn, steps: list[Step]) -> bool:
    """"aprova a 310 e aprova a 311": one capability, each clause on an item of its own — not a capability the
    registry repeats itself (a batch, a "<capability>Many"), not a value counted from each item."""
    cap = steps[0][0]
    names = [s.name for s in cap.slots if is_target(turn, cap, s.name)]
    if cap.batch is not None or repeated(cap.id) or len(names) != 1 or any(
            counted_from_the_item(cap, extraction) for _, extraction in steps):
        return False
    items = {str(values[0].value) for _, extraction in steps if (values := extraction.values.get(names[0]))}
    return len(items) == len(steps)


def counted_from_the_item(cap: Any, extraction: Extraction) -> bool:
    """A value that depends on the item it is for: an amount added to its own, or any date (one said as "3 days
    later" is counted from the item's own date, and the extraction no longer says which it was)."""
    return any(values and (values[0].delta is not None or getattr(cap.slot(name), "type", None) == "date")
               for name, values in extraction.values.items())


def _acting_clauses(turn: Turn, parts: list[str], spans: frozenset[int], allowed: set[str]) -> list[tuple[int, int]]:
    """The clauses that each name a write by their own verb, a clause without one joined to the one before it."""
    view = masked(parts, spans)
    hints = hints_for(turn.conversation, with_topic=True)
    clauses: list[tuple[int, int]] = []
    for start, end in clause_ranges(view):
        ranked = rank(turn.grammar, view[start:end], allowed, hints)
        acting = bool(ranked) and ranked[0].verb is not None and ranked[0].verb_span is not None
        if acting and (ranked[0].cap.kind != "write" or ranked[0].cap.intent == "create"):
            return []  # a navigation, a read or a create in the sequence: not planned here
        if acting or not clauses:
            clauses.append((start, end))
        else:
            clauses[-1] = (clauses[-1][0], end)
    return clauses


def _clause(turn: Turn, parts: list[str], spans: frozenset[int], allowed: set[str], extractor: Extractor,
            choose: Chooser, at: tuple[int, int], before: Step | None) -> Step | None:
    """The clause's capability and slots, read as a message of its own; None when it does not fill them."""
    start, end = at
    own = parts[start:end]
    local = frozenset(i - start for i in spans if start <= i < end)
    situation, hints = extractor.situation, hints_for(turn.conversation, with_topic=True)
    if before is not None:  # "… e adiciona X nela": the items the clause before acted on, not the open one
        acted = _items_of(before[1])
        situation = replace(situation, active=acted[0] if acted else None, selection=None, selection_fresh=False,
                            listed=[], created=[], recent=acted)
        hints = replace(hints, entity_types=tuple(dict.fromkeys([*(a["type"] for a in acted), *hints.entity_types])))
    reading = Extractor(grammar=turn.grammar, reader=turn.reader, situation=situation,
                        text=clause_text(turn, parts, at),
                        language=turn.language, data=(own, local))
    ranked = rank(turn.grammar, masked(own, local), allowed, hints)
    if not ranked:
        return None
    best, extraction = choose(turn, ranked, own, reading, allowed)
    if best.cap.kind != "write" or not extraction.complete or _several_for_one(best.cap, extraction):
        return None
    return best.cap, extraction


def _several_for_one(cap: Any, extraction: Extraction) -> bool:
    """Several values said for a slot that takes one: a request of its own asks which (operations._one_at_a_time)."""
    return any(len(values) > 1 and not (cap.slot(name) and cap.slot(name).many)
               for name, values in extraction.values.items())


def _items_of(extraction: Extraction) -> list[dict[str, Any]]:
    """The items a clause's values name, as said or from context (its target first: extraction fills reference
    slots before the others)."""
    return [dict(v.entity) for values in extraction.values.values() for v in values
            if v.entity and v.entity.get("type") and v.source in ("text", "context", "ui", "result")]


def clause_text(turn: Turn, parts: list[str], at: tuple[int, int]) -> str:
    """The clause as the user typed it (free-text values keep their spelling): from its first word found in the
    message to the next clause's joiner. `parts` may differ from the typed words (numbers said in words are
    digits there), so the two are aligned on the words they share."""
    typed = [(fold(m.group(0)), m.span()) for m in _WORD.finditer(turn.text)]
    blocks = SequenceMatcher(None, parts, [w for w, _ in typed], autojunk=False).get_matching_blocks()
    where = {a + k: b + k for a, b, size in blocks for k in range(size)}  # position in parts → typed word
    start = next((where[i] for i in range(at[0], at[1]) if i in where), None)
    if start is None:
        return turn.text
    stop = next((where[i] for i in range(at[1], len(parts)) if i in where), None)
    return turn.text[typed[start][1][0]:typed[stop][1][0] if stop is not None else len(turn.text)].strip()
