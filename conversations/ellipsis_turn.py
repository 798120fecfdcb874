"""An ellipsis as a turn ("e a 458?", "and 460?", "e as canceladas?", "e o inspetor?"): the last
request (ellipsis.last_request) asked again with what the short message changes —

- a field question: the same field of another entity the message names, or another field of the
  same entity;
- a read or count: the same capability with the slots the message fills replaced.

What the message changes is found by the normal extraction, so nothing here knows an entity.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from . import lexicon
from .attributes import named_by_attribute, same_number_elsewhere
from .ellipsis import WHICH_ONES, last_request, says_also
from .flow import operated_mark
from .lexicon import DAY_UNITS, QUOTED
from .navigation import navigate
from .operations import operate
from .plurals import plural_types
from .question import field_answer, field_asked
from .reads import entity_ref
from .request import understand
from .state import situation_for
from .text_filter import text_filter
from .turns import Turn
from .understanding import MASK, Extraction, Extractor, SlotValue


def ellipsis_apply(turn: Turn, rest: list[str], allowed: set[str]) -> bool:
    """Ask the last request again with `rest`; False when there is none or `rest` changes nothing."""
    request = last_request(turn.conversation.context)
    if request is None:
        return False
    if request.get("kind") == "field":
        return _field_again(turn, request, rest)
    return _request_again(turn, request, rest, allowed)


def asked_again_without_its_verb(turn: Turn, rest: list[str]) -> list[str]:
    """"e canceladas, quantas são?" after a count: the words of the last request's own verb ("quantas") and a
    copula are that request asked again, not a new one — what is left is the ellipsis ("canceladas")."""
    request = last_request(turn.conversation.context) or {}
    cap = turn.grammar.capabilities.get(str(request.get("capability")))
    if request.get("kind") != "capability" or cap is None or cap.kind == "write":
        return rest
    own = {w for verb in cap.verbs for w in verb.words} | (lexicon.COUNT_WORDS if cap.intent == "count" else set())
    left = [w for w in rest if w not in own and w not in _COPULAS]
    return left if left and len(left) < len(rest) and any(w in own for w in rest) else rest


_COPULAS = frozenset(lexicon.tokens("sao estao tem temos existem ha are is there have has exist"))


def which_ones(turn: Turn, parts: list[str], allowed: set[str]) -> bool:
    """"quais são?" right after a count: the search of the same entity, with the count's filters, lists them."""
    request = last_request(turn.conversation.context)
    cap = turn.grammar.capabilities.get(str((request or {}).get("capability")))
    if cap is None or cap.intent != "count" or " ".join(parts) not in WHICH_ONES:
        return False
    values = {name: [SlotValue.from_dict(v) for v in kept] for name, kept in (request.get("values") or {}).items()}
    listing = _the_list_of(turn, cap, set(values), allowed)
    if listing is None:
        return False
    operate(turn, listing, Extraction(values=values), parts)
    return True


def _the_list_of(turn: Turn, cap: Any, names: set[str], allowed: set[str]) -> Any:
    """The one search or list of the counted entity that takes the count's slots, else None."""
    lists = [c for c in turn.grammar.capabilities.values() if c.id in allowed and c.entity == cap.entity
             and c.kind == "read" and c.intent in ("search", "list") and names <= {s.name for s in c.slots}]
    return lists[0] if len(lists) == 1 else None


# "quais delas …?", "which of them …?" after a count: the items themselves are asked for, narrowed
_WHICH = frozenset(lexicon.tokens("quais qual which"))


def number_again(turn: Turn, parts: list[str]) -> bool:
    """"312" right after a field question ("quem é o responsável pela 310?"): the same question about the item
    with that number, when one of the question's type has it, or named alone by its name; else not this (a value,
    another request)."""
    request = last_request(turn.conversation.context)
    said = [p for p in parts if p not in lexicon.ARTICLES]
    if request is None or request.get("kind") != "field" or not said:
        return False
    if len(said) == 1 and said[0].isdigit():
        return _field_again(turn, request, said)
    # "Almoxarifado" after "quem inspeciona a Caldeiraria?": an item's name alone, the same question about it (a
    # few words, none asking: a new question reads no names here)
    if len(said) > _NAME_WORDS or set(said) & (lexicon.QUESTION_WORDS | lexicon.COUNT_WORDS):
        return False
    slot = next((s for c in turn.grammar.capabilities.values() if c.kind == "read" and c.intent == "show"
                 for s in c.slots if s.parse == "reference" and s.type == request.get("type")), None)
    return slot is not None and named_alone(turn, slot, said) is not None and _field_again(turn, request, said)


def values_masked(turn: Turn, rest: list[str]) -> list[str]:
    """The ellipsis's words with those naming a value of the last request's slots blanked: in "what about
    approved?" / "e as aprovadas?" after a count, "approved" is the value asked about, not the verb that
    approves — only what is left may start a new request. Only a value as the manifest spells it: "e
    aprova a 311" keeps its verb."""
    request = last_request(turn.conversation.context) or {}
    cap = turn.grammar.capabilities.get(str(request.get("capability")))
    phrases = {phrase for slot in (cap.slots if cap is not None else ()) if slot.parse == "enum"
               for phrase in [*(p for ps in slot.value_phrases.values() for p in ps),
                              *((v.lower(),) for v in slot.values)]}
    out = list(rest)
    for phrase in phrases:
        for i in range(len(rest) - len(phrase) + 1):
            if tuple(rest[i:i + len(phrase)]) == phrase:
                out[i:i + len(phrase)] = [MASK] * len(phrase)
    return out


def _extractor(turn: Turn) -> Extractor:
    return Extractor(grammar=turn.grammar, reader=turn.reader, situation=situation_for(turn.conversation),
                     text=turn.text, language=turn.language)


def _field_again(turn: Turn, request: dict[str, Any], rest: list[str]) -> bool:
    if _field_of_another_type(turn, request, rest):
        return True
    for cap in turn.grammar.capabilities.values():
        slot = next((s for s in cap.slots if s.parse == "reference" and s.type == request.get("type")), None)
        if cap.kind != "read" or cap.intent != "show" or slot is None or not turn.reader.spec(cap.id):
            continue
        extractor = _extractor(turn)
        named = (extractor.extract(cap, rest, use_context=False).values.get(slot.name) or [None])[0]
        named = (named or _same_number_named(turn, extractor, slot, rest, request)
                 or pointed_on_screen(turn, slot, rest) or _the_other(turn, slot, rest, request)
                 or named_alone(turn, slot, rest))
        other = named is not None and str(named.value) != str(request.get("id"))
        body = turn.reader.entity(slot.type, named.value if other else request.get("id"))
        if body is None:
            return False
        field = field_asked(cap.fields, rest, body) or (str(request.get("field")) if other else None)
        if field is None or field not in body:
            return False
        if request.get("counted") and field == request.get("field") and isinstance(body[field], list):
            # "how many <filhos> does 52 have?" then "and 60?": counted again
            field_answer(turn, slot, body, field, rest, template="answer.field_count",
                         extra={"count": len(body[field])})
        else:
            field_answer(turn, slot, body, field, rest)
        return True
    return False


def _field_of_another_type(turn: Turn, request: dict[str, Any], rest: list[str]) -> bool:
    """"same for the <other entity>", "e a <outra entidade> 52?" after a field question about an item of one type: the
    same field of the item of the one other type the words name in the singular — by its number, else the one of
    that type last spoken of — when that type has the field too."""
    types = [t for t in turn.grammar.types_named_in(rest) if t != request.get("type")]
    if len(types) != 1 or types[0] in plural_types(turn.grammar, rest):
        return False
    for cap in turn.grammar.capabilities.values():
        slot = next((s for s in cap.slots if s.parse == "reference" and s.type == types[0]), None)
        if cap.kind != "read" or cap.intent != "show" or slot is None or not turn.reader.spec(cap.id):
            continue
        named = (_extractor(turn).extract(cap, rest, use_context=False).values.get(slot.name) or [None])[0]
        if named is None and not any(p.isdigit() for p in rest):
            last = next((r for r in situation_for(turn.conversation).recent if r.get("type") == types[0]), None)
            named = SlotValue(last.get("id"), str(last.get("label") or ""), dict(last), "context") if last else None
        body = turn.reader.entity(slot.type, named.value) if named is not None else None
        field = str(request.get("field"))
        if body is None or field not in body:
            return False
        field_answer(turn, slot, body, field, rest)
        return True
    return False


def pointed_on_screen(turn: Turn, slot: Any, words: list[str]) -> SlotValue | None:
    """The item of the slot's type selected on the page (the validated selection), when the words only point at
    it: "and this one?" asks the last question about it, "no, I meant this one" retargets to it."""
    if not words or any(w not in _POINTING for w in words):
        return None
    selection = situation_for(turn.conversation).selection
    if not selection or selection.get("type") != slot.type:
        return None
    return SlotValue(selection.get("id"), str(selection.get("label") or ""), dict(selection), "ui")


# pointing words, and the correction's own lead ("I meant", "quis dizer") before them
_POINTING = frozenset(lexicon.tokens("this that one these essa esse esta este aqui ai ali a o "
                                     "desta deste dessa desse nesta neste nessa nesse for about "
                                     "i meant quis dizer eu era"))


def _the_other(turn: Turn, slot: Any, words: list[str], request: dict[str, Any]) -> SlotValue | None:
    """"e da outra?", "and the other one?" after a question about one of two items just shown (the last list, else
    the two last spoken of): the same question about the other one; None when more than one other is possible."""
    said = [w for w in words if w not in lexicon.ARTICLES and w not in _OF_ONE]
    if not said or any(w not in lexicon.OTHER for w in said):
        return None
    situation = situation_for(turn.conversation)
    for group in (situation.listed, situation.recent[:2]):
        items = [r for r in group if r.get("type") == slot.type]
        others = [r for r in items if str(r.get("id")) != str(request.get("id"))]
        if len(items) == 2 and len(others) == 1:
            return SlotValue(others[0].get("id"), str(others[0].get("label") or ""), dict(others[0]), "context")
    return None


def named_alone(turn: Turn, slot: Any, words: list[str]) -> SlotValue | None:
    """"e o <local>?" after "quem inspeciona o <outro local>?": a name of one item (the manifest's named_by), word
    for word and alone, asks the same question about that item. Only the item's own fields (a path without a
    dot): a person or an owner said alone ("não, a <pessoa>") is a value of the request, never the item they
    are on."""
    own = tuple(path for path in slot.named_by if "." not in path)
    if not own:
        return None
    items, at = named_by_attribute(turn.reader, replace(slot, named_by=own), words, partial=False)
    if len(items) != 1 or any(w not in lexicon.ARTICLES and w not in _OF_ONE for i, w in enumerate(words)
                              if i not in at):
        return None
    ref = entity_ref(slot.type, items[0], label_field=str((slot.resolver or {}).get("label", "number")))
    return SlotValue(ref["id"], ref["label"], ref, "text")


_NAME_WORDS = 4
_OF_ONE = frozenset(lexicon.tokens("da do de of one e and what about about i meant quis dizer era sorry"))


def _same_number_named(turn: Turn, extractor: Extractor, slot: Any, rest: list[str],
                       request: dict[str, Any]) -> SlotValue | None:
    """The item with the field question's number that the words name by another attribute ("no, the <name>
    one"): the same question about it."""
    body = turn.reader.entity(slot.type, request.get("id")) or {}
    number = str(body.get(str((slot.resolver or {}).get("label", "number"))) or "")
    if same_number_elsewhere(turn.reader, slot, rest, request.get("id"), number) is None:
        return None
    out = Extraction()
    extractor.resolve_number(slot, number, rest, out, by_attribute=True, besides=request.get("id"))
    return (out.values.get(slot.name) or [None])[0]


def _other_target(extractor: Extractor, cap: Any, rest: list[str]) -> Extraction:
    """The item a bare number names — or the items, when two share it (asked which: never the number taken as the
    value instead, "do the same for 340" once proposed 340 days)."""
    slot = next((s for s in cap.slots if s.parse == "reference" and s.type == cap.entity), None)
    bare = [p for i, p in enumerate(rest) if p.isdigit() and not (i + 1 < len(rest) and rest[i + 1] in DAY_UNITS)]
    out = Extraction()
    if slot is not None and len(bare) == 1:
        extractor.resolve_number(slot, bare[0], rest, out)
    return out


def _said_again(turn: Turn, cap: Any, request: dict[str, Any], before: dict[str, list[SlotValue]],
                changed: dict[str, list[SlotValue]], allowed: set[str]) -> bool:
    """"postpone 51 by 2 days" then "same for 52": the first request's words said again with the new
    target in place of the old one, so that what was relative to the target (a shift, "N more days")
    is computed for the new one."""
    # The words come from the intent the conversation keeps (retention redacts them there).
    conversation = turn.conversation
    intents = [conversation.active_intent, (conversation.last_result or {}).get("intent"),
               (conversation.active_operation or {}).get("intent")]
    text = next((str(i.get("text") or "") for i in intents if isinstance(i, dict) and i.get("capability") == cap.id
                 and i.get("text")), "")
    swaps = [(str(before[name][0].label), str(values[0].label)) for name, values in changed.items()
             if before.get(name) and any(s.name == name and s.parse == "reference" for s in cap.slots)]
    if len(swaps) != 1 or len(changed) != 1:
        return False
    old, new = swaps[0]
    # "same for <entity> 340 at <name>": a number several items share, said again alone, would be asked
    # about again; the item already resolved is kept instead
    slot = next(s for s in cap.slots if s.name in changed)
    if len(turn.reader.search(slot, new)) > 1:
        return False
    pattern = re.compile(rf"(?<![\w-]){re.escape(old)}(?![\w-])")
    if len(pattern.findall(text)) != 1:
        return False
    turn.text = pattern.sub(new, text)
    understand(turn, lexicon.strip_filler(lexicon.tokens(turn.text)), allowed)
    return True


def _request_again(turn: Turn, request: dict[str, Any], rest: list[str], allowed: set[str]) -> bool:
    cap = turn.grammar.capabilities.get(str(request.get("capability")))
    also = says_also(lexicon.after_lead_ins(lexicon.tokens(turn.text)))  # "now do the same for …"
    if cap is None or cap.id not in allowed or (cap.kind == "write" and not also):
        return False
    if cap.intent == "count" and set(lexicon.after_lead_ins(lexicon.tokens(turn.text))[:1]) & _WHICH:
        cap = _the_list_of(turn, cap, set(request.get("values") or {}), allowed) or cap
    extractor = _extractor(turn)
    fresh = extractor.extract(cap, rest, use_context=False)
    # "e no <Lugar>?", "and next week?": a place or a window of dates is the read's filter again
    unread = text_filter(turn, cap, fresh, rest, None, extractor.skip_words(cap)) if cap.kind == "read" else None
    changed = {name: values for name, values in fresh.values.items() if values and values[0].source == "text"}
    # ("and the same one on 60 too": the words left are no new text — a free text changes only when quoted)
    quoted = QUOTED.search(turn.text) is not None
    changed = {name: values for name, values in changed.items() if not _free_text(cap, name) or quoted}
    target = _other_target(extractor, cap, rest) if cap.kind == "write" else Extraction()
    # "a 311 também": a bare number is the other target, never a new quantity — but a value said with it is the
    # new request's ("faz o mesmo na 311, só que com 25 dias"; with "-5 dias" it is asked about, never dropped)
    targets = {k: v for k, v in target.values.items() if v}
    values = {name: [SlotValue.from_dict(v) for v in kept] for name, kept in (request.get("values") or {}).items()}
    if targets:
        named = {str(v.label) for vs in targets.values() for v in vs}
        changed = {**{k: v for k, v in changed.items() if str(v[0].label) not in named}, **targets}
        invalid = {k: v for k, v in fresh.invalid.items() if str(v.get("said")) not in named}
        if invalid:
            operate(turn, cap, Extraction(values={**values, **changed}, invalid=invalid), rest)
            return True
    if target.ambiguous:  # which of the items with that number
        operate(turn, cap, Extraction(values={k: v for k, v in values.items() if k not in target.ambiguous},
                                      ambiguous=target.ambiguous), rest)
        return True
    if not changed and cap.kind == "navigation" and any(w in lexicon.OTHER for w in rest) and all(
            w in lexicon.OTHER or w in lexicon.ARTICLES or w in _ONE for w in rest):
        return _the_other_opened(turn, cap, request, rest, extractor)
    if not changed:
        return _other_entity(turn, cap, request, rest, allowed)
    if cap.kind == "write" and _said_again(turn, cap, request, values, changed, allowed):
        return True
    values.update(changed)
    (navigate if cap.kind == "navigation" else operate)(turn, cap, Extraction(values=values), rest)
    if unread:
        operated_mark(turn, cap.id, "unfiltered", unread)
    return True


def _the_other_opened(turn: Turn, cap: Any, request: dict[str, Any], rest: list[str], extractor: Extractor) -> bool:
    """"and the other one?" right after one of two items was opened: the other one opened (references.reference
    reads "the other" in context), never the same one again."""
    again = extractor.extract(cap, rest)
    opened = {str(v.get("value")) for values in (request.get("values") or {}).values() for v in values}
    targets = [v for s in cap.slots if s.parse == "reference" for v in again.values.get(s.name) or ()]
    if len(targets) != 1 or str(targets[0].value) in opened:
        return False
    navigate(turn, cap, again, rest)
    return True


_ONE = frozenset(lexicon.tokens("one ones"))


def _free_text(cap: Any, name: str) -> bool:
    slot = cap.slot(name)
    return slot is not None and slot.type == "text" and slot.parse == "text"


def _other_entity(turn: Turn, cap: Any, request: dict[str, Any], rest: list[str], allowed: set[str]) -> bool:
    """"how many <entities A> of <owner>?" then "and <entities B>?": the same read of the entity the
    ellipsis names, with the filters both take (a slot of the same name and type)."""
    if cap.kind != "read":
        return False
    named = turn.grammar.types_named_in(rest)
    others = [c for c in turn.grammar.capabilities.values() if c.id in allowed and c.kind == "read"
              and c.intent == cap.intent and c.entity != cap.entity and c.entity in named]
    if len(others) != 1:
        return False
    other = others[0]
    kinds = {s.name: s.type for s in other.slots}
    own = {s.name: s.type for s in cap.slots}
    values = {name: [SlotValue.from_dict(v) for v in kept] for name, kept in (request.get("values") or {}).items()
              if kinds.get(name) is not None and kinds.get(name) == own.get(name)}
    values.update({name: v for name, v in _extractor(turn).extract(other, rest, use_context=False).values.items()
                   if v and v[0].source == "text"})
    operate(turn, other, Extraction(values=values), rest)
    return True
