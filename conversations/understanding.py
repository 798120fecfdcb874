"""The deterministic intent engine (PRD-010 §58-§59): which capability a message asks for, and
its slots, from the registry's language metadata and the tenant's data — no LLM.

ranking.py orders the candidate capabilities from cheap evidence; this module extracts each one's
slots from the message, the conversation and the tenant's data (the Extractor), and request.choose
then prefers the candidate the message itself fills best.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from . import metrics
from .attributes import another_slots_value, named_among, named_by_attribute, said_of_it
from .dates import date_in, date_label, shift_in, shift_problem, today
from .freetext import leftover_value, marked_value, quoted_values, value_as_typed
from .grammar import CapabilityGrammar, Grammar, SlotSpec, camel_parts, find_phrase
from .increments import increment_sign
from .lexicon import ARTICLES, CREATED, DEMONSTRATIVES, PREVIOUS, tokens
from .matching import Mention, mention
from .numbers import numerals_of, on_an_item, reference_number, value_problem
from .ranking import MASK, Hints, Ranked, number_positions, rank  # noqa: F401 - the engine's public names
from .reads import Reader, entity_ref

_NUMBER_WORDS = frozenset(tokens("numero n no nº num number nr"))
_VALUE_PARSES = frozenset({"reference", "integer", "enum", "entity_number"})  # read from words outside names


def masked(parts: list[str], positions: frozenset[int]) -> list[str]:
    """The message with the tenant's names blanked: what verbs, nouns and numbers are read from."""
    return [MASK if i in positions else p for i, p in enumerate(parts)] if positions else parts


def _range_of(schema: Mapping[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in (schema or {}).items() if k in ("minimum", "maximum")}


# --- slots -----------------------------------------------------------------------------------


@dataclass
class SlotValue:
    value: Any
    label: str
    entity: dict[str, Any] | None = None
    source: str = "text"  # text | ui | context | result | focus | topic

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "label": self.label, "entity": self.entity, "source": self.source}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SlotValue:
        return cls(value=data.get("value"), label=str(data.get("label", "")), entity=data.get("entity"),
                   source=str(data.get("source", "text")))


@dataclass
class Extraction:
    values: dict[str, list[SlotValue]] = field(default_factory=dict)
    ambiguous: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    not_found: dict[str, str] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    used: set[int] = field(default_factory=set)
    # slot → {"said", "problem": negative | fraction | range, "minimum", "maximum"}: never used as is
    invalid: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def from_text(self) -> set[str]:
        return {name for name, values in self.values.items() if values and values[0].source == "text"}

    @property
    def complete(self) -> bool:
        return not (self.ambiguous or self.not_found or self.missing or self.invalid)


@dataclass
class Situation:
    """What the conversation knows, for references (§11 priority) and hints."""

    selection: dict[str, Any] | None = None  # validated UI selection
    selection_fresh: bool = False  # the selection is newer than the active entity
    active: dict[str, Any] | None = None
    created: list[dict[str, Any]] = field(default_factory=list)  # last result's created entities
    recent: list[dict[str, Any]] = field(default_factory=list)
    filter_company: dict[str, Any] | None = None


def reference(slot_type: str, parts: list[str], situation: Situation) -> SlotValue | None:
    """The entity of `slot_type` the message points at through context (§11, §20, §42)."""
    pronoun = any(p in CREATED for p in parts)
    created = next((c for c in situation.created if c.get("type") == slot_type), None)
    if pronoun and created:
        return SlotValue(created.get("id"), str(created.get("label")), created, "result")
    if any(p in PREVIOUS for p in parts):
        earlier = [r for r in situation.recent if r.get("type") == slot_type
                   and (situation.active is None or r.get("id") != situation.active.get("id"))]
        if earlier:
            return SlotValue(earlier[0].get("id"), str(earlier[0].get("label")), earlier[0], "context")
    ordered = []
    selection, active = situation.selection, situation.active
    if selection and selection.get("type") == slot_type and (situation.selection_fresh or not active
                                                              or active.get("type") != slot_type):
        ordered.append((selection, "ui"))
    if active and active.get("type") == slot_type:
        ordered.append((active, "context"))
    if selection and selection.get("type") == slot_type:
        ordered.append((selection, "ui"))
    if created:
        ordered.append((created, "result"))
    ordered += [(r, "context") for r in situation.recent if r.get("type") == slot_type]
    if ordered:
        ref, source = ordered[0]
        return SlotValue(ref.get("id"), str(ref.get("label")), ref, source)
    return None


class Extractor:
    """Fills a capability's slots from one message with the tenant's data (reads are cached per turn)."""

    def __init__(self, *, grammar: Grammar, reader: Reader, situation: Situation, text: str = "",
                 language: str = "pt-BR", data: tuple[list[str], frozenset[int]] | None = None) -> None:
        self.grammar, self.reader, self.situation = grammar, reader, situation
        self.text, self.language = text, language  # the raw message: dates keep their "/" and "-"
        # (the message's words, the positions that are the tenant's names: data_spans.py)
        self.data = data or ([], frozenset())
        self._observed: set[str] = set()  # entity types whose reference this turn already counted
        self._only: set[str] | None = None  # the slots the running extract() fills (None: all)

    def skip_words(self, cap: CapabilityGrammar) -> set[str]:
        words = {w for verb in cap.verbs for w in verb.words}
        words |= {w for phrases in self.grammar.synonyms.values() for p in phrases for w in p}
        # Words naming another slot's enum value ("approved") are that value, never part of a name.
        words |= {w for s in cap.slots for phrases in s.value_phrases.values() for p in phrases for w in p}
        # "…, número 71, …", "a new one": another slot's own label and the words saying it is new are
        # structure around a free-text value, never the value (a text slot's own label may be in it).
        words |= {w for s in cap.slots if s.type != "text" or s.parse != "text" for label in (s.label or {}).values()
                  for w in tokens(label)}
        return words | set(DEMONSTRATIVES) | CREATED

    def extract(self, cap: CapabilityGrammar, parts: list[str], *, only: set[str] | None = None,
                use_context: bool = True) -> Extraction:
        out = Extraction()
        self._only = only
        # Dates first (their day numbers are never entity numbers), then references, then the rest.
        ordered = sorted(cap.slots, key=lambda s: (s.parse != "date", s.parse != "reference",
                                                   parent_input(self.reader, s) is not None))
        view = masked(parts, self.data[1]) if parts == self.data[0] else parts
        for slot in ordered:
            if only is not None and slot.name not in only:
                continue
            self._slot(cap, slot, view if slot.parse in _VALUE_PARSES else parts, out, use_context)
        for slot in ordered:
            if slot.parse == "date" and slot.name in out.missing and (only is None or slot.name in only):
                self._date_shift(cap, slot, out)
        self._texts(cap, [s for s in ordered if only is None or s.name in only], parts, out)
        return out

    def _texts(self, cap: CapabilityGrammar, slots: list[SlotSpec], parts: list[str], out: Extraction) -> None:
        """Free-text slots last: they take what the other slots left (freetext.py)."""
        texts = [s for s in slots if s.type == "text" and s.parse == "text" and s.name not in out.values]
        if not texts:
            return
        said = quoted_values(self.text)
        required = [s for s in texts if s.required]
        skip = self.skip_words(cap)
        if not said and len(required) == 1:
            left = leftover_value(self.text, parts, out.used, skip)
            said = [left] if left else []
        elif not said:
            marked = marked_value(self.text)
            said = [marked] if marked else []
        for slot, value in zip(required + [s for s in texts if not s.required], said, strict=False):
            value = value_as_typed(value, skip, {w for label in (slot.label or {}).values() for w in tokens(label)})
            out.values[slot.name] = [SlotValue(value, value)]
        for slot in required:
            if slot.name not in out.values and slot.name not in out.missing:
                out.missing.append(slot.name)

    def _slot(self, cap: CapabilityGrammar, slot: SlotSpec, parts: list[str], out: Extraction,
              use_context: bool) -> None:
        if slot.type in ("text", "knowledgeRef") and slot.parse not in ("reference", "entity_number"):
            return
        started = time.perf_counter()
        if slot.parse == "reference" and slot.type != "text":
            self._numbered_entity(cap, slot, parts, out, use_context)
        elif slot.parse == "date":
            self._date(cap, slot, parts, out)
        elif slot.parse == "integer":
            self._integer(cap, slot, parts, out)
        elif slot.parse == "entity_number":
            self._new_number(cap, slot, parts, out)
        elif slot.parse == "enum":
            value = self.grammar.enum_value(slot, parts)
            if value:
                out.values[slot.name] = [SlotValue(value, value)]
        elif slot.resolver:
            self._named(cap, slot, parts, out, use_context)
        if slot.required and slot.name not in out.values and slot.name not in out.ambiguous \
                and slot.name not in out.not_found:
            out.missing.append(slot.name)
        if slot.parse == "reference" or slot.resolver:
            self._reference_observed(slot, out, time.perf_counter() - started)

    def _new_number(self, cap: CapabilityGrammar, slot: SlotSpec, parts: list[str], out: Extraction) -> None:
        """"cria a <entidade> 350": the number the entity's noun names is the new one's — unless an entity
        of that type has it ("make X the responsible on <entity> 340" is about that one, no create)."""
        at = sorted(self.named_numbers(parts, frozenset({cap.entity})) - out.used)
        if not at:  # "…, número 71, …" / "number 70": the number the slot's own label names
            labels = {w for label in (slot.label or {}).values() for w in tokens(label)}
            at = [i for i in range(1, len(parts)) if parts[i].isdigit() and parts[i - 1] in labels
                  and i not in out.used]
            out.used.update(i - 1 for i in at[:1])  # the label word, too: never part of a text value
        ref = next((s for c in self.grammar.capabilities.values() for s in c.slots
                    if s.parse == "reference" and s.type == cap.entity), None)
        if at and not (ref is not None and self.reader.search(ref, parts[at[0]])):
            out.used.add(at[0])
            out.values[slot.name] = [SlotValue(parts[at[0]], parts[at[0]])]

    def _reference_observed(self, slot: SlotSpec, out: Extraction, seconds: float) -> None:
        # choose() extracts for up to five candidate capabilities: each entity type counts once a turn.
        if slot.type in self._observed:
            return
        values = out.values.get(slot.name)
        if values:
            outcome, source = "resolved", values[0].source
        elif slot.name in out.ambiguous:
            outcome, source = "ambiguous", ""
        elif slot.name in out.not_found:
            outcome, source = "not_found", ""
        elif slot.name in out.missing:
            outcome, source = "unresolved", ""
        else:
            return  # an optional reference the message did not make
        self._observed.add(slot.type)
        metrics.reference_observe(outcome=outcome, source=source, seconds=seconds)

    # numbers ------------------------------------------------------------------------------

    def explicit_number(self, slot: SlotSpec, parts: list[str], cap: CapabilityGrammar,
                        used: set[int] = frozenset()) -> tuple[int, str] | None:
        phrases = self.grammar.synonyms.get(slot.type, frozenset())
        named_at = [i for i, _, _ in number_positions(parts)
                    if any(find_phrase(parts[max(0, i - 3):i], p) for p in phrases)]
        # A bare number is a quantity only where the message may still give one: answering "which
        # <entity>?" (only the reference asked for), "a 311" is the reference.
        takes_value = any(s.parse == "integer" and (self._only is None or s.name in self._only) for s in cap.slots)
        return reference_number(parts, set(used), takes_value=takes_value, named_at=named_at)

    def named_numbers(self, parts: list[str], types: frozenset[str] | None = None) -> set[int]:
        """Positions of numbers an entity noun names ("<entidade> 311", "<entity> 62"): references,
        never a quantity — whichever capability reads the message. `types`: only these entities' nouns."""
        phrases = [p for type_ in (self.grammar.referenced if types is None else types)
                   for p in self.grammar.synonyms.get(type_, ())]
        named = set()
        for i, _, unit in number_positions(parts):
            start = i  # back over "número", "nº", articles between the noun and the number
            while start > 0 and (parts[start - 1] in ARTICLES or parts[start - 1] in _NUMBER_WORDS):
                start -= 1
            if not unit and any(find_phrase(parts[max(0, start - len(p)):start], p) == (0, len(p))
                                for p in phrases if start >= len(p)):
                named.add(i)
        return named

    # dates --------------------------------------------------------------------------------

    def _date(self, cap: CapabilityGrammar, slot: SlotSpec, parts: list[str], out: Extraction) -> None:
        moving = any(s.parse == "reference" and s.type == cap.entity for s in cap.slots)
        said = date_in(self.text, today(), self.language, moving=moving)
        if said is None:
            return
        said_words = set(said.words.split()) | set(tokens(said.words))
        out.used.update(i for i, p in enumerate(parts) if p in said_words and p not in ARTICLES)
        if slot.not_before == "today" and said.value < today():
            out.invalid[slot.name] = {"said": date_label(said.value, self.language), "problem": "past"}
            return
        out.values[slot.name] = [SlotValue(said.value.isoformat(), date_label(said.value, self.language))]

    def _date_shift(self, cap: CapabilityGrammar, slot: SlotSpec, out: Extraction) -> None:
        """"adiar em 3 dias": the target's current date of this field, moved."""
        shift = shift_in(self.text, self.language)
        target = next((v[0] for s in cap.slots if s.parse == "reference" and (v := out.values.get(s.name))), None)
        if shift is None or target is None or not (target.entity or {}).get("type"):
            return
        problem = shift_problem(self.text)
        if problem is not None:
            out.missing.remove(slot.name)
            out.invalid[slot.name] = {"said": shift[1], "problem": problem}
            return
        current = (self.reader.entity(str(target.entity["type"]), target.value) or {}).get(slot.field)
        try:
            moved = date.fromisoformat(str(current)) + timedelta(days=shift[0])
        except ValueError:
            return
        out.missing.remove(slot.name)
        out.values[slot.name] = [SlotValue(moved.isoformat(), date_label(moved, self.language))]

    def _numbered_entity(self, cap: CapabilityGrammar, slot: SlotSpec, parts: list[str], out: Extraction,
                         use_context: bool) -> None:
        found = self.explicit_number(slot, parts, cap, out.used)
        # "a <entidade> da Subestação 2": a number inside a name the entity has is that name's
        if (found is None or found[0] not in self.named_numbers(parts)) and self._by_attribute(
                cap, slot, parts, out, covering=found[0] if found else None):
            return
        if found is None:
            if use_context:
                ref = reference(slot.type, parts, self.situation)
                if ref is not None:
                    out.values[slot.name] = [ref]
            return
        index, number = found
        out.used.add(index)
        self.resolve_number(slot, number, parts, out)

    def _by_attribute(self, cap: CapabilityGrammar, slot: SlotSpec, parts: list[str], out: Extraction,
                      covering: int | None = None) -> bool:
        """"the <place> <entity>": the entities whose named_by field the message says (names are data:
        read in the message as typed, never as a verb)."""
        said = self.data[0] or parts
        enums = [(s.field, v) for c in self.grammar.capabilities.values() if c.entity == slot.type for s in c.slots
                 if s.parse == "enum" and s.values and (v := self.grammar.enum_value(s, said))]
        items, at = named_by_attribute(self.reader, slot, said, enums, skip=self.skip_words(cap), used=out.used)
        if ((covering is not None and covering not in at) or another_slots_value(self.reader, cap, slot, said, at)
                or not said_of_it(self.grammar, slot, said, at)):
            return False
        out.used.update(at)
        label_key = str((slot.resolver or {}).get("label", "number"))
        refs = [entity_ref(slot.type, item, label_field=label_key) for item in items]
        if len(refs) == 1:
            out.values[slot.name] = [SlotValue(refs[0]["id"], refs[0]["label"], refs[0], "text")]
        elif refs:
            out.ambiguous[slot.name] = refs
        return bool(refs)

    def resolve_number(self, slot: SlotSpec, number: str, parts: list[str], out: Extraction, *,
                       by_attribute: bool = False, besides: Any = None) -> None:
        """`by_attribute`: the words only say which of the items with this number ("no, <person>'s one"), so
        any of the manifest's named_by values narrows them (else a name may be another slot's value).
        `besides`: the id of an item not meant (the one a correction corrects)."""
        items = [i for i in self.reader.search(slot, number) if besides is None or str(i.get("id")) != str(besides)]
        if len(items) > 1:
            items = self._narrow_by_company(items, parts)
        if len(items) > 1 and by_attribute:
            items = named_among(slot, items, self.data[0] if len(self.data[0]) == len(parts) else parts) or items
        label_key = str((slot.resolver or {}).get("label", "number"))
        if not items:
            out.not_found[slot.name] = number
        elif len(items) == 1:
            ref = entity_ref(slot.type, items[0], label_field=label_key)
            out.values[slot.name] = [SlotValue(ref["id"], ref["label"], ref, "text")]
        else:
            out.ambiguous[slot.name] = [entity_ref(slot.type, item, label_field=label_key) for item in items]

    def _narrow_by_company(self, items: list[dict[str, Any]], parts: list[str]) -> list[dict[str, Any]]:
        companies = [i["company"] for i in items if isinstance(i.get("company"), Mapping)]
        # The names are blanked in the words a reference is read from; here a name is what is wanted.
        if self.data and len(self.data[0]) == len(parts):
            parts = self.data[0]
        hit = mention(parts, companies, "name")
        if hit is not None and len({c.get("id") for c in hit.items}) == 1:
            wanted = hit.items[0].get("id")
            return [i for i in items if (i.get("company") or {}).get("id") == wanted]
        company = self.situation.filter_company
        if company:
            narrowed = [i for i in items if str((i.get("company") or {}).get("id")) == str(company.get("id"))]
            if narrowed:
                return narrowed
        return items

    def _integer(self, cap: CapabilityGrammar, slot: SlotSpec, parts: list[str], out: Extraction) -> None:
        named = self.named_numbers(parts)
        numbers = [(i, d, u) for i, d, u in number_positions(parts) if i not in out.used and i not in named
                   and not on_an_item(parts, i)]
        with_unit = [(i, d) for i, d, u in numbers if u]
        chosen = with_unit[0] if with_unit else (numbers[0][:2] if numbers else None)
        if chosen is None:
            return
        out.used.add(chosen[0])
        numeral = numerals_of(parts, self.text).get(chosen[0])
        spec = self.reader.spec(cap.id)
        schema = ((spec.input_schema if spec else {}).get("properties") or {}).get(slot.field)
        digits = chosen[1]
        current = self._current(cap, slot, out) if increment_sign(parts, chosen[0]) else None
        if current is not None:  # "10 more days": the entity's current value, changed by the amount
            digits = str(current + increment_sign(parts, chosen[0]) * int(digits))
        negative = digits.startswith("-") or _said_negative(parts, chosen[0])
        problem = value_problem(numeral, digits, schema) if not negative else "negative"
        if problem is not None:
            shown = numeral.text if numeral is not None else chosen[1]
            shown = f"-{shown}" if negative and not shown.startswith("-") else shown
            out.invalid[slot.name] = {"said": shown, "problem": problem, **_range_of(schema)}
            return
        out.values[slot.name] = [SlotValue(int(digits), digits)]

    def _current(self, cap: CapabilityGrammar, slot: SlotSpec, out: Extraction) -> int | None:
        """The integer the capability's target holds now in the slot's field (None without a target)."""
        target = next((v[0] for s in cap.slots if s.parse == "reference" and (v := out.values.get(s.name))), None)
        if target is None or not (target.entity or {}).get("type"):
            return None
        current = (self.reader.entity(str(target.entity["type"]), target.value) or {}).get(slot.field)
        return current if isinstance(current, int) else None

    # names --------------------------------------------------------------------------------

    def catalog(self, slot: SlotSpec, out: Extraction) -> list[dict[str, Any]]:
        """The items a name can refer to: the tenant's catalog, or — when the resolver lists the children
        of an entity (its required input is another slot's field, e.g. a component of *this* permit) —
        the children of the entity this message already resolved."""
        parent = parent_input(self.reader, slot)
        if parent is None:
            return self.reader.catalog(slot)
        value = next((v[0].value for name, v in out.values.items() if v and v[0].entity
                      and self._field_of(name) == parent), None)
        if value is None:
            return []
        return self.reader.children(str((slot.resolver or {}).get("capability")), {parent: value})

    def _field_of(self, slot_name: str) -> str | None:
        return next((s.field for c in self.grammar.capabilities.values() for s in c.slots if s.name == slot_name
                     and s.parse == "reference"), None)

    def _named(self, cap: CapabilityGrammar, slot: SlotSpec, parts: list[str], out: Extraction,
               use_context: bool) -> None:
        resolver = slot.resolver or {}
        label, value_key = str(resolver.get("label", "name")), str(resolver.get("value", "id"))
        items = self.catalog(slot, out)
        found: Mention | None = mention(parts, items, label, many=True, skip=self.skip_words(cap), used=out.used)
        key_field = value_key if value_key != "id" else "key"
        if found is None and any(i.get(key_field) for i in items):
            # A catalog key said as words ("working at height" for workingAtHeight), exact only.
            keyed = [{**i, "_words": " ".join(camel_parts(str(i.get(key_field, ""))))} for i in items]
            by_key = mention(parts, keyed, "_words", many=True, used=out.used)
            found = by_key if by_key is not None and by_key.exact else None
        if found is None:
            if use_context and slot.from_context:
                ref = reference(slot.type, parts, self.situation) or self._from_target(slot, out)
                if ref is not None:
                    out.values[slot.name] = [ref]
            return
        if found.exact and not found.unique and not slot.many:
            found = _by_label(cap, slot, parts, found)
        if found.exact or found.unique:
            out.values[slot.name] = [SlotValue(item.get(value_key), str(item.get(label)),
                                               entity_ref(slot.type, item, label_field=label), "text")
                                     for item in found.items]
            for a, b in found.spans:
                out.used.update(range(a, b))
        else:
            out.ambiguous[slot.name] = [{**entity_ref(slot.type, item, label_field=label),
                                         "value": item.get(value_key)} for item in found.items]

    def _from_target(self, slot: SlotSpec, out: Extraction) -> SlotValue | None:
        """A context slot such as the company of a create: the one of the entity in focus."""
        for ref in (self.situation.selection, self.situation.active):
            company = (ref or {}).get(slot.type) if ref else None
            if isinstance(company, Mapping) and company.get("id"):
                return SlotValue(company["id"], str(company.get("name")), {"type": slot.type, **company}, "context")
        return None


def _by_label(cap: CapabilityGrammar, slot: SlotSpec, parts: list[str], found: Mention) -> Mention:
    """"owner Ana Lima, … with Bia Reis as helper": of several names of a type two slots take, this
    slot's is the one its own label stands next to; the others stay for the other slot."""
    if not any(s.type == slot.type and s.name != slot.name for s in cap.slots):
        return found
    labels = {w for text in (slot.label or {}).values() for w in tokens(text)}
    at = [i for i, p in enumerate(parts) if p in labels]

    def distance(span: tuple[int, int]) -> int:
        return min((min(abs(i - (span[0] - 1)), abs(i - span[1])) for i in at), default=99)

    ranked = sorted(zip(found.items, found.spans, strict=True), key=lambda pair: distance(pair[1]))
    if distance(ranked[0][1]) > 2 or distance(ranked[1][1]) == distance(ranked[0][1]):
        return found  # no label beside any of them, or two equally near: still ambiguous
    return Mention(items=[ranked[0][0]], exact=True, spans=[ranked[0][1]], text=found.text)


def _said_negative(parts: list[str], at: int) -> bool:
    """"valid for minus 5 days", "para menos 5 dias": a sign in words right before the amount."""
    before = parts[at - 1] if at else ""
    return before == "minus" or (before == "menos" and at > 1 and parts[at - 2] in ("para", "pra", "to", "for"))


def parent_input(reader: Reader, slot: SlotSpec) -> str | None:
    """The input a slot's resolver needs from another entity ("permit_id" for a permit's components), or
    None when it searches the tenant's catalog (its required inputs, if any, are query fields)."""
    resolver = slot.resolver or {}
    if slot.parse == "reference" or not resolver.get("capability"):
        return None
    spec = reader.spec(str(resolver["capability"]))
    required = [str(r) for r in (spec.input_schema.get("required") or ()) if spec] if spec else []
    query = str(resolver.get("query_field") or "")
    return next((r for r in required if r != query), None)


def words_of(text: str) -> list[str]:
    return tokens(text)
