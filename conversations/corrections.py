"""Corrections (PRD-010 §19-§20, §48-§49): the user says what is right — another permit, another
company's permit with the same number, another component, another value. An explicit correction
outranks every inference; the pending or last intent is changed (never a new, unrelated one), the
earlier confirmation is invalidated, and planner and policy run again.
"""

from __future__ import annotations

import uuid
from typing import Any

from . import lexicon
from .attributes import same_number_elsewhere
from .clarify import clarify
from .compared import compared_positions
from .compound_correction import compound_corrected
from .dates import shift_in, shift_said_wrong
from .ellipsis import last_request
from .ellipsis_turn import ellipsis_apply, named_alone, pointed_on_screen
from .flow import allowed_capabilities, pending_confirmation
from .freetext import quoted_values
from .grammar import CapabilityGrammar, same_word
from .intents import slot_values
from .moved_again import moved_again
from .navigation import navigate_state
from .operations import plan_and_decide
from .ordinals import listed_pick, opened_pick
from .ranking import rank
from .reads import entity_ref
from .references import spoken_before
from .request import understand
from .state import entity_activate, hints_for, situation_for
from .statemachine import Status
from .turns import Turn
from .understanding import Extraction, Extractor, SlotValue, known_items, number_positions
from .value_only import bare_value, only_a_date


def _base_intent(turn: Turn) -> dict[str, Any] | None:
    pending = turn.conversation.pending_confirmation
    if pending is not None and pending.status == "PENDING":
        return dict(pending.intent)
    if turn.conversation.active_intent:
        return dict(turn.conversation.active_intent)
    navigation = (turn.conversation.context or {}).get("last_navigation") or {}
    return dict(navigation["intent"]) if navigation.get("intent") else None


def correction_apply(turn: Turn, remainder: list[str], *, its_values: bool = False) -> None:
    """"não, a da Beta" / "é a 456" / "quero Trabalho a Quente": change the pending or last intent (§19-§20,
    §48-§49); the earlier confirmation is invalidated and policy runs again. Nothing to correct (or
    nothing changed): the words are a new request (request.understand). `its_values`: the words are known to
    give the pending operation its values (pending_value.py), whatever other write their verb names."""
    base = _base_intent(turn)
    # "não, não é a 60, é a 62": the number denied anywhere in the message is never the one meant
    # nor the one named to compare with ("the same <field> as 312")
    denied = lexicon.denied_numbers(turn.text) | {remainder[i] for i in compared_positions(remainder, turn.text)}
    parts = [p for p in remainder if p not in denied]
    while parts and (parts[0] in lexicon.CORRECTION_LEADS or parts[0] in lexicon.FILLER):
        parts = parts[1:]
    parts = _reason_dropped(parts)
    if base is None or base.get("capability") not in turn.grammar.capabilities:
        return understand(turn, parts, allowed_capabilities(turn))
    if base.get("compound") and pending_confirmation(turn) is not None:  # "cancela a 60 e a 62" → "só a 60"
        return compound_corrected(turn, base, remainder)
    cap = turn.grammar.capabilities[base["capability"]]
    if cap.intent == "create" and pending_confirmation(turn) is None and _ran(turn):
        return understand(turn, parts, allowed_capabilities(turn))  # "actually swap her for <x> on that one": on it
    if not its_values and _another_request(turn, cap, parts):  # "não, esquece. remarca a <outra entidade> 52 …"
        return understand(turn, parts, allowed_capabilities(turn))
    extractor = Extractor(grammar=turn.grammar, reader=turn.reader, situation=situation_for(turn.conversation),
                          text=turn.text, language=turn.language)
    # the values said (read once: _changes reads them); a child named is one of the pending item's
    others = extractor.extract(cap, parts, use_context=False, parents=known_items(cap, base.get("slots")))
    slots, changed, ambiguous = _changes(turn, extractor, cap, base, parts, others)
    invalid = {} if any(cap.slot(c) and cap.slot(c).parse == "reference" for c in changed) else {
        k: v for k, v in others.invalid.items() if (s := cap.slot(k)) is not None and s.parse != "reference"}
    if invalid:  # "não, melhor -40": a value no field takes, asked again — never the pending one kept silently
        return clarify(turn, base, Extraction(values={}, invalid=invalid))
    if not ambiguous:
        moved_again(turn, cap, base, slots, changed)
    ahead = _days_ahead(parts, turn.language, str(base.get("text") or ""))
    day = next((s for s in cap.slots if s.parse == "date"), None)
    wrong = shift_said_wrong(turn.text) if ahead and day is not None and not changed else None
    if wrong is not None:  # "melhor, daqui a -2 dias": asked about, never the amount without its sign
        return clarify(turn, base, Extraction(values={}, invalid={day.name: {"said": wrong[1], "problem": wrong[0]}}))
    if not changed and not ambiguous and ahead and day is not None:
        # "opa, 15 dias" for a date: that many days from today, as "daqui a 15 dias" says it
        extractor = Extractor(grammar=turn.grammar, reader=turn.reader, situation=situation_for(turn.conversation),
                              text=ahead, language=turn.language)
        slots, changed, ambiguous = _changes(turn, extractor, cap, base, lexicon.tokens(ahead))
    turn.event("CORRECTION_RECEIVED", {"intent_id": base.get("id"), "changed": changed}, actor="user")
    state = {**base, "slots": slots}
    if ambiguous:
        return clarify(turn, state, Extraction(values={}, ambiguous=ambiguous))
    if not changed:
        return understand(turn, parts, allowed_capabilities(turn))
    state["id"] = str(uuid.uuid4())
    turn.go(Status.CORRECTING)
    for name in changed:
        for value in slots[name]:
            entity = value.get("entity")
            if entity and entity.get("type") and turn.reader.read_capability(str(entity["type"])):
                entity_activate(turn.conversation, entity, version=turn.version)
    if cap.kind == "navigation":
        return navigate_state(turn, cap, state)
    plan_and_decide(turn, state)


def _ran(turn: Turn) -> bool:
    """The last operation ran (a create made its item: what follows is said of that item, not a new create)."""
    return (turn.conversation.last_result or {}).get("status") in ("completed", "partially_completed")


def _reason_dropped(parts: list[str]) -> list[str]:
    """"45 pq 40 é pouco", "50, because 40 is too short": the value, then why — the reason's numbers are
    no values (the last number said would otherwise win)."""
    # ("pq" reaches here spelled out: "por que")
    at = next((i for i, p in enumerate(parts)
               if p in lexicon.BECAUSE or (p == "por" and parts[i + 1:i + 2] == ["que"])), None)
    return parts[:at] if at and any(p.isdigit() for p in parts[:at]) else parts


def _another_request(turn: Turn, cap: CapabilityGrammar, parts: list[str]) -> bool:
    """After "não"/"actually": a verb of another entity's capability, or an entity the pending request has no
    place for named by its noun — a new request, never values for the one pending (its "14 dias" was once
    applied to the pending <campo> of another item)."""
    if bare_value(parts) is not None or (any(s.parse == "date" for s in cap.slots) and only_a_date(turn, parts)):
        return False  # "não, põe 45 no campo", "na verdade, deixa pra sexta": a verb that only places the value
    ranked = rank(turn.grammar, parts, allowed_capabilities(turn), hints_for(turn.conversation, with_topic=False))
    top = ranked[0] if ranked else None
    if top is not None and top.verb is not None and top.cap.kind == "write" and top.cap.entity not in cap.types:
        return True
    # "no, forget the <filho>. cancel the whole <entidade> instead": a write on the item the pending one adds to
    # (named by its noun: "make it medium" is no request on the item)
    if top is not None and top.verb is not None and top.cap.kind == "write" and top.cap.entity != cap.entity \
            and top.cap.entity in cap.types and top.cap.entity in turn.grammar.types_named_in(parts):
        return True
    # (an item referred to by number, not a value's noun: "não, a da outra <dona>" still corrects)
    return bool(set(turn.grammar.types_named_in(parts)) & turn.grammar.referenced - cap.types)


def labelled_value(turn: Turn, parts: list[str]) -> bool:
    """"A responsável é a <pessoa>", "responsible: <pessoa>" while a proposal waits: a slot of the pending
    operation named by its label at the start, then its value — that value for the proposal (planned again).
    Not a free-text slot: its value as typed is cut from the message, which the label's words would join."""
    pending = pending_confirmation(turn)
    cap = turn.grammar.capabilities.get(str((pending.intent or {}).get("capability"))) if pending else None
    if cap is None:
        return False
    at = next((i for i, p in enumerate(parts[:_LABEL_AT_MOST])
               if any(same_word(p, w) for s in cap.slots if s.parse not in ("text", "reference")
                      for w in _label_words(s))), None)
    if at is None:
        return False
    rest = parts[at + 1:]
    while rest and rest[0] in _SAYS_IT_IS:  # "o local certo é o …": the value, not "certo é o …"
        rest = rest[1:]
    correction_apply(turn, [parts[at], *rest])
    return True


_LABEL_AT_MOST = 3  # "o responsável vai", "a responsável é", "responsible is"
_SAYS_IT_IS = frozenset(lexicon.tokens("certo certa correto correta certinho right correct actual real mesmo e eh sera "
                                       "vai ser deve should is will be the o a os as um uma"))


def _label_words(slot: Any) -> set[str]:
    words = {w for label in slot.label.values() for w in lexicon.tokens(label)} - lexicon.ARTICLES
    return words | {w for w in slot.synonyms if " " not in w}


_HELD = frozenset(lexicon.tokens("that isso instead actually then entao melhor"))  # "make that 18 days instead"


_FROM_NOW_LEADS = tuple((*to, *lead) for to in ((), ("pra",), ("para",), ("for",), ("to",))
                        for lead in (("daqui", "a"), ("daqui",), ("in",), ("within",)))  # ("não, pra daqui 11")


def _days_ahead(parts: list[str], language: str, said_before: str = "") -> str | None:
    """"15 dias" / "15 days" alone (or placed: "make it 7 days"): the same amount said as a date from today,
    else None. A bare "4" too, when the request it corrects said its date as days from today ("pra daqui 3
    dias" → "não, 4")."""
    parts = [p for p in parts if p not in lexicon.PLACING and p not in _HELD and p not in lexicon.HOLDS]
    from_now = next((lead for lead in _FROM_NOW_LEADS if tuple(parts[:len(lead)]) == lead
                     and parts[len(lead):] and parts[len(lead)].isdigit()), None)
    if from_now is not None:  # "não, daqui 16" after "pra daqui 15 dias": the unit was said once, before
        parts = parts[len(from_now):]
    before = lexicon.tokens(said_before)
    if (len(parts) == 1 and parts[0].isdigit() and sum(1 for i, p in enumerate(before[:-1]) if p.isdigit()
                                                       and before[i + 1] in lexicon.DAY_UNITS) == 1):
        shift = None if from_now else shift_in(said_before, language)  # "adia em 3 dias" → "não, 5": by 5
        if shift is not None:
            english = language.startswith("en")
            if shift[0] < 0:
                return f"{parts[0]} days earlier" if english else f"{parts[0]} dias antes"
            return f"by {parts[0]} days" if english else f"em {parts[0]} dias"
        parts = [parts[0], "days"]
    if len(parts) != 2 or not parts[0].isdigit() or parts[1] not in lexicon.DAY_UNITS:
        return None
    return f"in {parts[0]} days" if language.startswith("en") else f"daqui a {parts[0]} dias"


def field_correction(turn: Turn, remainder: list[str], allowed: set[str]) -> bool:
    """"não, era a 62" / "no, I meant 312" right after a field question: the same question about the
    item the correction names (as the ellipsis "e a 62?" asks it). Only when the question is the last
    request and no proposal waits — a correction then corrects the proposal."""
    request = last_request(turn.conversation.context)
    if request is None or request.get("kind") != "field" or pending_confirmation(turn) is not None:
        return False
    denied = lexicon.denied_numbers(turn.text) | {remainder[i] for i in compared_positions(remainder, turn.text)}
    parts = [p for p in remainder if p not in denied]
    while parts and (parts[0] in lexicon.CORRECTION_LEADS or parts[0] in lexicon.FILLER):
        parts = parts[1:]
    return bool(parts) and ellipsis_apply(turn, parts, allowed)


def _changes(turn: Turn, extractor: Extractor, cap: CapabilityGrammar, base: dict[str, Any], parts: list[str],
             others: Extraction | None = None) -> tuple[dict[str, Any], list[str], dict[str, list[dict[str, Any]]]]:
    """The intent's slots with what the correction names — another entity by its number (or the same
    number in another company), then other values — the names of the slots changed, and the options
    of what the words name ambiguously."""
    slots = dict(base.get("slots") or {})
    changed: list[str] = []
    ambiguous: dict[str, list[dict[str, Any]]] = {}
    for slot in cap.slots:
        if slot.parse != "reference" or slot.type == "text":
            continue
        current = (slot_values(base, slot.name) or [None])[0]
        number = _number_for(turn, extractor, cap, slot, parts)
        besides = None  # "não, a outra": the same number, never the item corrected
        if number is None and current is not None:
            number = same_number_elsewhere(turn.reader, slot, parts, current.value, str(current.label))
            besides = current.value
        elif current is not None and number == str(current.label) and any(p in lexicon.OTHER for p in parts):
            besides = current.value  # "é a outra 340": its number said again, with "the other"
        picked = (listed_pick(extractor.situation.listed, slot.type, parts)
                  or opened_pick(extractor.situation, slot.type, parts)
                  or (spoken_before(extractor.situation, slot.type, parts, current.value) if current else None)
                  ) if number is None else None
        if picked is not None:  # "no, the third": another item of the list just answered, by its place
            if current is None or str(current.value) != str(picked.get("id")):
                slots[slot.name] = [SlotValue(picked.get("id"), str(picked.get("label")), picked, "context").to_dict()]
                changed.append(slot.name)
            continue  # (its place word is no day of the month: ordinals.without_the_pick, when the dates are read)
        if number is None:
            # "no, I meant this one" with another item selected since; "sorry, the <local> one": named alone
            shown = pointed_on_screen(turn, slot, parts) or named_alone(turn, slot, parts)
            if shown is not None and (current is None or str(current.value) != str(shown.value)):
                slots[slot.name] = [shown.to_dict()]
                changed.append(slot.name)
            continue
        probe = Extraction()
        extractor.resolve_number(slot, number, parts, probe, by_attribute=True, besides=besides)
        if probe.values.get(slot.name):
            slots[slot.name] = [v.to_dict() for v in probe.values[slot.name]]
            changed.append(slot.name)
        elif probe.ambiguous.get(slot.name):
            ambiguous[slot.name] = probe.ambiguous[slot.name]
    others = others if others is not None else extractor.extract(cap, parts, use_context=False)
    for name, values in others.values.items():
        slot = cap.slot(name)
        if slot is None or slot.parse == "reference" or name in changed:
            continue
        if slot.parse == "text" and not quoted_values(turn.text):  # "make it medium, it's not that bad": a remark
            continue
        if slot.parse == "integer" and any(n[1] == str(v.get("label")) for n in number_positions(parts)
                                           for vals in slots.values() for v in vals if v.get("entity")):
            continue
        slots[name] = [v.to_dict() for v in values]
        changed.append(name)
    # "no, the <company> one": the number kept, in that company — not a choice among all of its items
    for name, options in others.ambiguous.items():
        if name not in changed:
            ambiguous.setdefault(name, options)
    return slots, changed, ambiguous


def _number_for(turn: Turn, extractor: Extractor, cap, slot, parts: list[str]) -> str | None:
    explicit = extractor.explicit_number(slot, parts, cap)
    if explicit is not None:
        return explicit[1]
    bare = [d for _, d, unit in number_positions(parts) if not unit]
    if not bare:
        return None
    # A bare number in a correction names a permit only if the tenant has one with that number.
    return bare[0] if turn.reader.search(slot, bare[0]) else None


__all__ = ["correction_apply", "entity_ref", "field_correction"]
