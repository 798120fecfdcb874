"""The deterministic intent engine (PRD-010 §58-§59): which capability a message asks for, and
its slots, from the registry's language metadata and the tenant's data — no LLM.

ranking.py orders the candidate capabilities from cheap evidence; this module extracts each one's
slots from the message, the conversation and the tenant's data (the Extractor: its reference half —
which item a number or a name says — is references.py, the values it fills are extraction.py), and
choice.choose then prefers the candidate the message itself fills best.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import date, timedelta
from typing import Any

from . import metrics
from .attributes import known_value
from .children import child_said, parent_input
from .dates import date_from_word, date_in, date_label, shift_in, shift_said_wrong, today
from .extraction import Extraction, Situation, SlotValue
from .freetext import colon_positions, leftover_value, marked_value, only_a_date, quoted_values, value_as_typed
from .grammar import CapabilityGrammar, Grammar, SlotSpec, camel_parts
from .increments import extension_said, increment_sign
from .lexicon import ARTICLES, CREATED, DEMONSTRATIVES, REQUEST_OPENERS, not_excluded, tokens
from .matching import Mention, by_label, mention
from .numbers import numerals_of, on_an_item, other_unit_after, value_problem
from .ordinals import without_the_pick
from .owner_in_focus import owner_in_focus
from .ranking import MASK, Hints, Ranked, number_positions, rank  # noqa: F401 - the engine's public names
from .reads import Reader, entity_ref
from .references import NUMBER_WORDS, NumberedReferences, reference
from .relative import factor_of

__all__ = ["MASK", "Extraction", "Extractor", "Hints", "Ranked", "Situation", "SlotValue", "known_items", "masked",
           "number_positions",
           "parent_input", "rank", "reference"]
_SET_TO = frozenset({"para", "pra", "pro", "to"})
_DEFINITE = frozenset({"a", "o", "the"})  # ("a 340": the item; an amount takes no article)
_VALUE_PARSES = frozenset({"reference", "integer", "enum", "entity_number"})  # read from words outside names


def masked(parts: list[str], positions: frozenset[int]) -> list[str]:
    """The message with the tenant's names blanked: what verbs, nouns and numbers are read from."""
    return [MASK if i in positions else p for i, p in enumerate(parts)] if positions else parts


def _range_of(schema: Mapping[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in (schema or {}).items() if k in ("minimum", "maximum")}


def known_items(cap: CapabilityGrammar, slots: Mapping[str, Any] | None) -> dict[str, list[SlotValue]]:
    """The items a pending intent's slots (as kept: dicts) already name — `Extractor.extract(parents=…)`."""
    return {name: [SlotValue.from_dict(v) for v in values] for name, values in (slots or {}).items()
            if (slot := cap.slot(name)) is not None and slot.parse == "reference" and values}


class Extractor(NumberedReferences):
    """Fills a capability's slots from one message with the tenant's data (reads are cached per turn)."""

    def __init__(self, *, grammar: Grammar, reader: Reader, situation: Situation, text: str = "",
                 language: str = "pt-BR", data: tuple[list[str], frozenset[int]] | None = None) -> None:
        self.grammar, self.reader, self.situation = grammar, reader, situation
        self.text, self.language = text, language  # the raw message: dates keep their "/" and "-"
        # (the message's words, the positions that are the tenant's names: data_spans.py)
        self.data = data or ([], frozenset())
        self._observed: set[str] = set()  # entity types whose reference this turn already counted
        self._only: set[str] | None = None  # the slots the running extract() fills (None: all)
        self._after: int | None = None  # where the running extract()'s verb ends (None: not known)
        self._parents: Mapping[str, list[SlotValue]] = {}  # items known before the running extract() (extract)

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
                use_context: bool = True, verb_end: int | None = None,
                parents: Mapping[str, list[SlotValue]] | None = None) -> Extraction:
        """`parents`: the items already known whose children a name may be said of (a correction's pending
        item: "no, <another child>" names a child of the item the proposal is about)."""
        out = Extraction()
        self._only, self._after, self._parents = only, verb_end, parents or {}
        # Dates first (their day numbers are never entity numbers), then references, then the rest.
        ordered = sorted(cap.slots, key=lambda s: (s.parse != "date", s.parse != "reference",
                                                   parent_input(self.reader, s) is not None))
        view = masked(parts, self.data[1]) if parts == self.data[0] else parts
        # A text slot takes the colon's text whole: what it mentions is never the item acted on.
        dictated = colon_positions(self.text, parts) if any(
            s.type == "text" and s.parse == "text" for s in cap.slots) and not quoted_values(self.text) else None
        for slot in ordered:
            if only is not None and slot.name not in only:
                continue
            said = masked(view, dictated) if dictated and slot.parse == "reference" else view
            self._slot(cap, slot, said if slot.parse in _VALUE_PARSES else parts, out, use_context)
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
        if not said and len(required) == 1 and (  # "… at the <local> on the 15th": a value its items have
                known := known_value(self.grammar, self.reader, cap.entity, required[0].name, parts)):
            said = [known]
        elif not said and len(required) == 1:
            left = leftover_value(self.text, parts, out.used | self._verb_place(parts), skip)
            said = [left] if left and not only_a_date(left, self.language) else []
        elif not said:
            marked = marked_value(self.text)
            said = [marked] if marked else []
        for slot, value in zip(required + [s for s in texts if not s.required], said, strict=False):
            value = value_as_typed(value, skip, {w for label in (slot.label or {}).values() for w in tokens(label)})
            out.values[slot.name] = [SlotValue(value, value)]
        for slot in required:
            if slot.name not in out.values and slot.name not in out.missing:
                out.missing.append(slot.name)

    def _verb_place(self, parts: list[str]) -> set[int]:
        """"bota a 57 pra amanhã": the word at the verb's place, when it is any capability's verb, is never
        a free-text value (it says what to do, whichever capability reads the message)."""
        at = next((i for i, p in enumerate(parts) if p not in ARTICLES and p not in REQUEST_OPENERS), None)
        if at is None:
            return set()
        verbs = {v.words[0] for c in self.grammar.capabilities.values() for v in c.verbs if len(v.words) == 1}
        return {at} if parts[at] in verbs else set()

    def _slot(self, cap: CapabilityGrammar, slot: SlotSpec, parts: list[str], out: Extraction,
              use_context: bool) -> None:
        if slot.type in ("text", "knowledgeRef") and slot.parse not in ("reference", "entity_number"):
            return
        started = time.perf_counter()
        if slot.parse == "reference" and slot.type != "text":
            self._numbered_entity(cap, slot, parts, out, use_context)
        elif slot.parse == "reference":
            self._own_number(slot, parts, out)
        elif slot.parse == "date":
            self._date(cap, slot, parts, out)
        elif slot.parse == "integer":
            self._integer(cap, slot, parts, out)
        elif slot.parse == "entity_number":
            self._new_number(cap, slot, parts, out)
        elif slot.parse == "enum":
            # "<valor>, sem contar as <outro>": a value said outside what is left out is the one asked
            kept = not_excluded(parts)
            value = (kept != parts and self.grammar.enum_value(slot, kept)) or self.grammar.enum_value(slot, parts)
            if value:
                out.values[slot.name] = [SlotValue(value, value)]
        elif slot.resolver:
            self._named(cap, slot, parts, out, use_context)
        if slot.required and slot.name not in out.values and slot.name not in out.ambiguous \
                and slot.name not in out.not_found:
            out.missing.append(slot.name)
        if slot.parse == "reference" or slot.resolver:
            self._reference_observed(slot, out, time.perf_counter() - started)

    def _own_number(self, slot: SlotSpec, parts: list[str], out: Extraction) -> None:
        """"change <entity> 310's number to 315", "muda o nº da 310 pra 317": a text slot read as a reference is
        the item's own number, rewritten — the number said after the word "number" and the item's, never the
        item's own (consumed first)."""
        if not any(p in NUMBER_WORDS for p in parts):
            return
        said = [i for i, _, unit in number_positions(parts) if not unit and i not in out.used]
        if len(said) == 1:
            out.used.add(said[0])
            out.values[slot.name] = [SlotValue(parts[said[0]], parts[said[0]])]

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

    # dates --------------------------------------------------------------------------------

    def _date(self, cap: CapabilityGrammar, slot: SlotSpec, parts: list[str], out: Extraction) -> None:
        moving = any(s.parse == "reference" and s.type == cap.entity for s in cap.slots)
        text = without_the_pick(self.text, self.situation.listed, parts)
        # a date after the reading's verb is the one it asks for (its words are the message's: `parts` is all of it)
        after = (date_from_word(text, self._after, today(), self.language, moving=moving)
                 if self._after and len(tokens(text)) == len(parts) else None)
        said = after or date_in(text, today(), self.language, moving=moving)
        if said is None:
            return
        wrong = shift_said_wrong(self.text)
        if wrong is not None:  # "to -2 days from now", "in 1.5 weeks": never read as the amount without its sign
            out.invalid[slot.name] = {"said": wrong[1], "problem": wrong[0]}
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
        wrong = shift_said_wrong(self.text)
        if wrong is not None:
            out.missing.remove(slot.name)
            out.invalid[slot.name] = {"said": wrong[1], "problem": wrong[0]}
            return
        current = (self.reader.entity(str(target.entity["type"]), target.value) or {}).get(slot.field)
        try:
            moved = date.fromisoformat(str(current)) + timedelta(days=shift[0])
        except ValueError:
            return
        out.missing.remove(slot.name)
        if slot.not_before == "today" and moved < today():  # "bring it forward by a week" past today: asked again
            out.invalid[slot.name] = {"said": date_label(moved, self.language), "problem": "past"}
            return
        out.values[slot.name] = [SlotValue(moved.isoformat(), date_label(moved, self.language))]

    def _integer(self, cap: CapabilityGrammar, slot: SlotSpec, parts: list[str], out: Extraction) -> None:
        named = self.named_numbers(parts)
        of_field = self._field_words(cap, slot)
        numbers = [(i, d, u) for i, d, u in number_positions(parts) if i not in out.used and i not in named
                   and not on_an_item(parts, i) and not (not u and _after_its_field(parts, i, of_field))
                   and not (not u and self._an_item_said(cap, parts, i))]
        with_unit = [(i, d) for i, d, u in numbers if u]
        # "lost three days to the rain, so set its <field> to 40 days": of amounts said, the one said "to"
        set_to = [n for n in with_unit if n[0] > 0 and parts[n[0] - 1] in _SET_TO]
        with_unit = set_to if len(with_unit) > 1 and len(set_to) == 1 else with_unit
        chosen = with_unit[0] if with_unit else (numbers[0][:2] if numbers else None)
        spec = self.reader.spec(cap.id)
        schema = ((spec.input_schema if spec else {}).get("properties") or {}).get(slot.field)
        if chosen is None:
            return self._scaled(cap, slot, parts, out, schema)
        out.used.add(chosen[0])
        unit = other_unit_after(parts, chosen[0], self.text)
        if unit is not None:  # "48 horas", "3 shifts", "20%": asked about, never that many of the slot's unit
            out.invalid[slot.name] = {"said": unit, "problem": "unit"}
            return
        numeral = numerals_of(parts, self.text).get(chosen[0])
        digits = chosen[1]
        sign = increment_sign(parts, chosen[0])
        if not sign and extension_said(parts, chosen[0]):  # "extend it 5 days": below the value now, how much longer
            now = self._current(cap, slot, out)
            sign = 1 if now is not None and int(digits) < now else 0
        delta = sign * int(digits) if sign and digits.isdigit() else None
        current = self._current(cap, slot, out) if delta is not None else None
        if current is not None:  # "10 more days": the entity's current value, changed by the amount
            digits = str(current + delta)
        negative = digits.startswith("-") or _said_negative(parts, chosen[0])
        problem = value_problem(numeral, digits, schema) if not negative else "negative"
        if problem is not None:
            shown = digits if current is not None else (numeral.text if numeral is not None else chosen[1])
            shown = f"-{shown}" if negative and not shown.startswith("-") else shown  # (a sum says its result)
            out.invalid[slot.name] = {"said": shown, "problem": problem, **_range_of(schema)}
            return
        # (no item yet, "add a week to <a number two items have>": counted once the item is known)
        out.values[slot.name] = [SlotValue(int(digits), digits, delta=delta)]

    def _an_item_said(self, cap: CapabilityGrammar, parts: list[str], at: int) -> bool:
        """"passa a 340 pro <pessoa>": a bare number after a definite article that an item of the capability's
        entity has is that item — never an amount (it had become 340 days of the item in focus)."""
        if not at or parts[at - 1] not in _DEFINITE:
            return False
        own = next((s for s in cap.slots if s.parse == "reference" and s.type == cap.entity), None)
        return own is not None and bool(self.reader.search(own, parts[at]))

    def _scaled(self, cap: CapabilityGrammar, slot: SlotSpec, parts: list[str], out: Extraction,
                schema: Mapping[str, Any] | None) -> None:
        """"dobra a <campo> da 312", "halve …": no amount said, a factor of the current value, checked against
        the input schema as a said amount is."""
        factor = next((f for p in parts if (f := factor_of(p)) is not None), None)
        current = self._current(cap, slot, out) if factor is not None else None
        if current is None:
            return
        value = current * factor
        problem = "fraction" if value != int(value) else value_problem(None, str(int(value)), schema)
        if problem is not None:
            out.invalid[slot.name] = {"said": f"{value:g}", "problem": problem, **_range_of(schema)}
            return
        out.values[slot.name] = [SlotValue(int(value), str(int(value)))]

    def _field_words(self, cap: CapabilityGrammar, slot: SlotSpec) -> frozenset[str]:
        """The last words of the phrases that name the field `slot` writes (its label, the reads' `fields`)."""
        return frozenset(p[-1] for p in self.grammar.field_phrases(cap.entity, slot))

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
        value = next((v[0].value for name, v in [*out.values.items(), *self._parents.items()]
                      if v and v[0].entity and self._field_of(name) == parent), None)
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
        if found is None:  # its only part, the part just listed at a place, or at a place or in a state said
            found = child_said(self.grammar, self.reader, self.situation, self.language, slot, parts, items, label,
                               value_key)
        if found is None and use_context:  # "quantas <entidades> a <dona> dela tem?": the focused item's own
            found_owner = owner_in_focus(self.grammar, self.situation, slot, parts)
            if found_owner is not None:
                out.values[slot.name] = [found_owner]
                return
        if found is None:
            if use_context and slot.from_context:
                ref = (reference(slot.type, parts, self.situation, self.grammar.referenced,
                                 noun_said=self.noun_said(slot.type, parts),
                                 other_named=self.other_named(slot.type, parts))
                       or self._from_target(slot, out))
                if ref is not None:
                    out.values[slot.name] = [ref]
            return
        if found.exact and not found.unique and not slot.many:
            found = by_label(cap, slot, parts, found)
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


_OF = frozenset(tokens("of da do de"))


def _after_its_field(parts: list[str], at: int, field_words: frozenset[str]) -> bool:
    """"<field> of 312", "a <campo> da 312": a bare number right after the field's name and "of" is the item's."""
    return at > 1 and parts[at - 1] in _OF and parts[at - 2] in field_words


def _said_negative(parts: list[str], at: int) -> bool:
    """"valid for minus 5 days", "para menos 5 dias": a sign in words right before the amount."""
    before = parts[at - 1] if at else ""
    return before == "minus" or (before == "menos" and at > 1 and parts[at - 2] in ("para", "pra", "to", "for", "de"))


def words_of(text: str) -> list[str]:
    return tokens(text)
