"""The answer to a pending clarification (PRD-010 §13-§14): it completes the pending intent — a
candidate picked by name or position, or the missing value — and never starts a new one. After
MAX_CLARIFICATION_ATTEMPTS unusable answers the question is dropped."""

from __future__ import annotations

from typing import Any

from .attributes import in_state, named_by_attribute, states_said
from .clarify import clarify
from .flow import activate_targets, close_clarification, is_count, rest
from .grammar import SlotSpec
from .lexicon import ARTICLES, tokens
from .matching import mention
from .models import Clarification, PendingStatus
from .navigation import navigate_state
from .operations import plan_and_decide, read_answer_direct
from .ordinals import ANSWER_PLACES
from .question import field_answer
from .state import clarification_view, situation_for
from .statemachine import Status
from .turns import Turn
from .understanding import Extraction, Extractor, SlotValue, reference

MAX_CLARIFICATION_ATTEMPTS = 3


def clarification_answer(turn: Turn, clarification: Clarification, parts: list[str]) -> None:
    """The answer completes the pending intent (§13-§14); it never starts a new one."""
    state = dict(clarification.intent)
    slot_name = clarification.missing_fields[0] if clarification.missing_fields else None
    chosen = _pick_candidate(clarification.candidates, parts) if clarification.candidates else None
    if chosen is None and clarification.candidates and slot_name:  # "a do <pessoa>": by what names it
        chosen = _named_by(turn, state, slot_name, clarification.candidates, parts)
    if chosen is None and clarification.candidates and slot_name:  # "a cancelada": the one in the state said
        chosen = _in_state_said(turn, state, slot_name, clarification.candidates, parts)
    values = dict(state.get("slots") or {})
    if chosen is not None:
        values[slot_name] = [SlotValue(chosen["value"], str(chosen["entity"].get("label")), chosen["entity"],
                                       "text").to_dict()]
    elif slot_name:
        cap = turn.grammar.capabilities[state["capability"]]
        extractor = Extractor(grammar=turn.grammar, reader=turn.reader, situation=situation_for(turn.conversation),
                          text=turn.text, language=turn.language)
        if slot_name == "source":
            found = None
            cap_types = [s for s in cap.slots if s.parse == "reference"]
            if cap_types:
                probe = extractor.extract(cap, parts, only={cap_types[0].name}, use_context=False)
                found = (probe.values.get(cap_types[0].name) or [None])[0]
            if found is not None:
                values["source"] = [found.to_dict()]
        else:
            day = _day_of_month(cap.slot(slot_name), parts)
            if day is not None:  # "12" when a date is asked: the day of the month, as "dia 12" says it
                extractor = Extractor(grammar=turn.grammar, reader=turn.reader, situation=extractor.situation,
                                      text=day, language=turn.language)
                parts = tokens(day)
            extraction = extractor.extract(cap, parts, only={slot_name}, use_context=False)
            if extraction.values.get(slot_name):
                values[slot_name] = [v.to_dict() for v in extraction.values[slot_name]]
            elif extraction.ambiguous.get(slot_name):
                state["slots"] = values
                return clarify(turn, state, Extraction(ambiguous={slot_name: extraction.ambiguous[slot_name]}))
    if not values.get(slot_name):
        attempts = clarification.attempts + 1
        Clarification.objects.for_tenant(turn.tenant).filter(pk=clarification.pk).update(attempts=attempts)
        clarification.attempts = attempts
        if attempts >= MAX_CLARIFICATION_ATTEMPTS:
            close_clarification(turn, clarification, PendingStatus.CANCELLED)
            turn.go(Status.CANCELLED)
            return turn.reply("error", "clarification.cancelled",
                              error={"code": "CLARIFICATION_ABANDONED", "detail": ""})
        turn.go(Status.CLARIFICATION_REQUIRED)
        return turn.reply("clarification", clarification.template, message=clarification.question,
                          clarification=clarification_view(clarification))
    _said_with_it(turn, state, slot_name, parts, values)
    state["slots"] = values
    close_clarification(turn, clarification, PendingStatus.CONSUMED)
    turn.event("CLARIFICATION_RESOLVED", {"clarification_id": str(clarification.pk), "slot": slot_name})
    resume_intent(turn, state)


def _day_of_month(slot: SlotSpec | None, parts: list[str]) -> str | None:
    """"dia N" when a date slot is answered with a lone number that can be a day of the month, else None."""
    said = [p for p in parts if p not in ARTICLES]
    if slot is None or slot.parse != "date" or len(said) != 1 or not said[0].isdigit() or not 1 <= int(said[0]) <= 31:
        return None
    return f"dia {int(said[0])}"


def _said_with_it(turn: Turn, state: dict[str, Any], asked: str | None, parts: list[str],
                  values: dict[str, Any]) -> None:
    """"É pra <nome>, e o <campo> vai ser o <outro nome>": the answer also gives other values of the same
    request, not yet given — taken with it instead of asked for next."""
    cap = turn.grammar.capabilities[state["capability"]]
    others = {s.name for s in cap.slots if s.name not in (asked, "source") and not values.get(s.name)}
    if not others:
        return
    extractor = Extractor(grammar=turn.grammar, reader=turn.reader, situation=situation_for(turn.conversation),
                          text=turn.text, language=turn.language)
    more = extractor.extract(cap, parts, only=others, use_context=False)
    for name in others & set(more.from_text):
        if more.values.get(name):
            values[name] = [v.to_dict() for v in more.values[name]]


def candidate_words(clarification: Clarification, parts: list[str]) -> frozenset[str]:
    """The words of the candidate on screen the message names, if it names one: they answer the
    question whatever verb they resemble ("Delta Engenharia" is no "delete")."""
    chosen = _pick_candidate(clarification.candidates, parts) if clarification.candidates else None
    if chosen is None:
        return frozenset()
    return frozenset(tokens(" ".join([str(chosen.get("label") or ""), *_texts(chosen.get("entity"))])))


def _texts(value: Any) -> list[str]:
    """The text values of a candidate's entity reference, nested ones included (its label, its parent's name)."""
    if isinstance(value, dict):
        return [t for k, v in value.items() if k not in ("type", "id", "revision") for t in _texts(v)]
    return [value] if isinstance(value, str) else []


def _pick_candidate(candidates: list[dict[str, Any]], parts: list[str]) -> dict[str, Any] | None:
    items = [{**c, "text": " ".join(str(x) for x in [c.get("label"), (c.get("entity") or {}).get("label")])}
             for c in candidates]
    found = mention(parts, items, "text")
    if found is not None and len(found.items) == 1:
        return next(c for c in candidates if c["id"] == found.items[0]["id"])
    numbers = [p for p in parts if p.isdigit()]
    if len(numbers) == 1 and 1 <= int(numbers[0]) <= len(candidates) and len(parts) <= 2:
        return candidates[int(numbers[0]) - 1]
    at = _ordinal(parts)
    return candidates[at] if at is not None and -len(candidates) <= at < len(candidates) else None


def _named_by(turn: Turn, state: dict[str, Any], slot_name: str, candidates: list[dict[str, Any]],
              parts: list[str]) -> dict[str, Any] | None:
    """"a do <pessoa>", "the one <person> is responsible for": the one candidate a value the slot's items are
    named by (the manifest's `named_by`: a person, a place) says, when the options on screen do not say it."""
    cap = turn.grammar.capabilities.get(str(state.get("capability")))
    slot = cap.slot(slot_name) if cap is not None else None
    if slot is None or not slot.named_by:
        return None
    items, _at = named_by_attribute(turn.reader, slot, parts)
    ids = {str(item.get("id")) for item in items}
    found = [c for c in candidates if str(c.get("value")) in ids]
    return found[0] if len(found) == 1 else None


def _in_state_said(turn: Turn, state: dict[str, Any], slot_name: str, candidates: list[dict[str, Any]],
                   parts: list[str]) -> dict[str, Any] | None:
    """"a cancelada", "the approved one": the one candidate in the state the words say."""
    cap = turn.grammar.capabilities.get(str(state.get("capability")))
    slot = cap.slot(slot_name) if cap is not None else None
    if slot is None:
        return None
    enums = states_said(turn.grammar, slot.type, parts)[0]
    found = [c for c in candidates if in_state([c.get("entity") or {}], enums)]
    return found[0] if len(found) == 1 else None


def picks_by_state(turn: Turn, clarification: Clarification, parts: list[str]) -> bool:
    """"the draft one" while two items are offered: a short answer that picks the one in the state it says — an
    answer, even when its word is also a verb ("draft" makes a new item)."""
    said = [p for p in parts if p not in _AROUND_AN_ORDINAL]
    slot_name = clarification.missing_fields[0] if clarification.missing_fields else None
    if not clarification.candidates or slot_name is None or not 0 < len(said) <= _SHORT_ANSWER:
        return False
    return _in_state_said(turn, dict(clarification.intent), slot_name, clarification.candidates, parts) is not None


_SHORT_ANSWER = 2  # words besides articles and "one": "a em rascunho", "the draft one", "the approved one"


def _ordinal(parts: list[str]) -> int | None:
    """"a primeira", "a de cima", "the second one", "the last one": the place of the choice in the list shown."""
    return ANSWER_PLACES.get(tuple(p for p in parts if p not in _AROUND_AN_ORDINAL))


_AROUND_AN_ORDINAL = frozenset(tokens("a o as os the one opcao option essa esse that this aquela aquele"))


def resume_intent(turn: Turn, state: dict[str, Any]) -> None:
    """Continue an intent whose missing pieces were just given: re-check what is still missing."""
    cap = turn.grammar.capabilities[state["capability"]]
    extraction = Extraction(values={k: [SlotValue.from_dict(v) for v in vals]
                                    for k, vals in (state.get("slots") or {}).items()})
    if state.get("clone"):
        extraction.missing = [] if extraction.values.get("source") else ["source"]
    else:
        for slot in cap.slots:
            if slot.required and not extraction.values.get(slot.name):
                if slot.from_context:
                    ref = reference(slot.type, [], situation_for(turn.conversation))
                    if ref is not None:
                        extraction.values[slot.name] = [ref]
                        continue
                extraction.missing.append(slot.name)
    state["slots"] = {k: [v.to_dict() for v in vals] for k, vals in extraction.values.items()}
    if not extraction.complete:
        return clarify(turn, state, extraction)
    if state.get("field"):  # a field question about one of several: answer it for the one picked
        return _field_of_picked(turn, cap, state)
    activate_targets(turn, state)
    if cap.kind == "navigation":
        return navigate_state(turn, cap, state)
    if cap.kind == "read" and not is_count(cap):
        return read_answer_direct(turn, cap, state)
    plan_and_decide(turn, state)


def _field_of_picked(turn: Turn, cap: Any, state: dict[str, Any]) -> None:
    slot = next(s for s in cap.slots if s.parse == "reference")
    picked = SlotValue.from_dict(state["slots"][slot.name][0])
    body = turn.reader.entity(slot.type, picked.value)
    if body is None or state["field"] not in body:
        rest(turn)
        return turn.error("NOT_FOUND", "clarify.entity_not_found", number=picked.label, **turn.nouns(slot.type))
    field_answer(turn, slot, body, state["field"], [])
