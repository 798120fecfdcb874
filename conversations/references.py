"""Which item a message refers to (PRD-010 §11): a number an entity noun names or a bare number, the
item a named_by value names, one of several with the same number narrowed by the name of its owner, and the item
the conversation points at (selection, focus, the last result). The Extractor (understanding.py) reads
the other slots; this is its reference half."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .attributes import (
    another_slots_value,
    could_be_said_of_it,
    filtered_among,
    named_among,
    named_by_attribute,
    quoting,
    said_of_it,
    states_said,
)
from .extraction import Extraction, Situation, SlotValue
from .freetext import quoted_positions
from .grammar import CapabilityGrammar, Grammar, SlotSpec, dropped_letter, find_phrase, same_word
from .lexicon import ARTICLES, CREATED, OTHER, POINTING, PREVIOUS, tokens
from .matching import mention
from .numbers import reference_number
from .ordinals import listed_pick, opened_pick
from .picked import picked_by_value
from .ranking import number_positions
from .reads import Reader, entity_ref

# "take me to the one before that", "volta pra de antes", "a de antes": the one before, said in two words
_BEFORE = frozenset({("one", "before"), ("de", "antes"), ("da", "antes"), ("do", "antes")})
NUMBER_WORDS = frozenset(tokens("numero n no nº num number nr nro"))
# A number mark as typed ("nº 70", "n° 76", "no. 74", "nr 78", "num. 3"): "no" alone is a word ("no dia 20").
NUMBER_MARK = re.compile(r"(?i)(?<!\w)(?:n\.?\s?[º°]\.?|no\.|nro\.?|nr\.?|num\.|#)\s*(\d+)")


def _the_other_listed(situation: Situation, slot_type: str) -> dict[str, Any] | None:
    """Of the two items of the type the last list showed, the one not in focus (one of them is), else None."""
    items = [r for r in situation.listed if r.get("type") == slot_type]
    active = situation.active or {}
    others = [r for r in items if str(r.get("id")) != str(active.get("id"))]
    return others[0] if len(items) == 2 and len(others) == 1 else None


# "a próxima <entidade>", "the next <entity>": a word of order before a type's noun (next_item.py too)
NEXT = frozenset(tokens("proxima proximas proximo proximos next upcoming seguinte"))


def spoken_before(situation: Situation, slot_type: str, parts: list[str], besides: Any) -> dict[str, Any] | None:
    """"não, na anterior", "the previous one", "a de antes": the item of the type spoken of before `besides` (the
    one a proposal is about), else None."""
    if not (any(p in PREVIOUS for p in parts) or _BEFORE & set(zip(parts, parts[1:], strict=False))):
        return None
    return next((r for r in situation.recent if r.get("type") == slot_type and str(r.get("id")) != str(besides)),
                None)


def reference(slot_type: str, parts: list[str], situation: Situation,
              items: frozenset[str] = frozenset(), *, noun_said: bool = False,
              other_named: bool = False) -> SlotValue | None:
    """The entity of `slot_type` the message points at through context (§11, §20, §42). `items`: the types of
    the items referred to by number (the grammar's `referenced`); `noun_said`: the message names the type by its
    noun ("back to the <entity>, push it out 2 days": the one of that type spoken of last, whatever is open);
    `other_named`: it names another type by its noun (then a place said — "a primeira <outra>" — is that one's)."""
    picked = listed_pick(situation.listed, slot_type, parts)  # "abre a segunda": by its place in the last list
    if picked is not None:
        return SlotValue(picked.get("id"), str(picked.get("label")), picked, "context")
    pronoun = any(p in CREATED for p in parts)
    created = next((c for c in situation.created if c.get("type") == slot_type), None)
    if pronoun and created:
        return SlotValue(created.get("id"), str(created.get("label")), created, "result")
    # "back to the previous one", "volta na outra": the one spoken of before the one in focus
    if any(p in PREVIOUS or p in OTHER for p in parts) or _BEFORE & set(zip(parts, parts[1:], strict=False)):
        earlier = [r for r in situation.recent if r.get("type") == slot_type
                   and (situation.active is None or r.get("id") != situation.active.get("id"))]
        if earlier:
            return SlotValue(earlier[0].get("id"), str(earlier[0].get("label")), earlier[0], "context")
        other = _the_other_listed(situation, slot_type)  # "open the first one", then "the other one": of the two
        if other is not None:
            return SlotValue(other.get("id"), str(other.get("label")), other, "context")
        # (with none spoken of before, "the other one" may be another child of the item in focus: it stays)
    opened = None if other_named and not noun_said else opened_pick(situation, slot_type, parts)  # "a primeira"
    if opened is not None:
        return SlotValue(opened.get("id"), str(opened.get("label")), opened, "context")
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
    # "open <other entity> 52" then "bump it 3 days later": "it" is the item just spoken of — never an older item
    # of the type this capability would need
    if noun_said or not (active and active.get("type") != slot_type and active.get("type") in items
                         and any(p in POINTING for p in parts)):
        ordered += [(r, "context") for r in situation.recent if r.get("type") == slot_type]
    if ordered:
        ref, source = ordered[0]
        return SlotValue(ref.get("id"), str(ref.get("label")), ref, source)
    return None


class NumberedReferences:
    """The Extractor's reference half: the numbers and names that say which item (a mixin over its state)."""

    grammar: Grammar
    reader: Reader
    situation: Situation
    data: tuple[list[str], frozenset[int]]
    _only: set[str] | None
    _after: int | None  # where the verb of the reading being extracted ends

    def skip_words(self, cap: CapabilityGrammar) -> set[str]:
        raise NotImplementedError

    def _field_words(self, cap: CapabilityGrammar, slot: SlotSpec) -> frozenset[str]:
        raise NotImplementedError

    def _new_number(self, cap: CapabilityGrammar, slot: SlotSpec, parts: list[str], out: Extraction) -> None:
        """"cria a <entidade> 350": the number the entity's noun names is the new one's — unless an entity
        of that type has it ("make X the responsible on <entity> 340" is about that one, no create)."""
        at = sorted(self.named_numbers(parts, frozenset({cap.entity})) - out.used)
        if not at:  # "…, número 71, …", "number 70", "nº 72", "no. 74": the number its label or a mark names
            labels = {w for label in (slot.label or {}).values() for w in tokens(label)}
            marked = set(NUMBER_MARK.findall(self.text))
            at = [i for i in range(1, len(parts)) if parts[i].isdigit() and i not in out.used
                  and (parts[i - 1] in labels or (parts[i - 1] in NUMBER_WORDS and parts[i] in marked))]
            out.used.update(i - 1 for i in at[:1])  # the label word, too: never part of a text value
        ref = next((s for c in self.grammar.capabilities.values() for s in c.slots
                    if s.parse == "reference" and s.type == cap.entity), None)
        if at and not (ref is not None and self.reader.search(ref, parts[at[0]])):
            out.used.add(at[0])
            # "<entity> nr 78": the number word too, never part of a text value
            out.used.update(j for j in range(max(0, at[0] - 2), at[0]) if parts[j] in NUMBER_WORDS)
            out.values[slot.name] = [SlotValue(parts[at[0]], parts[at[0]])]

    def explicit_number(self, slot: SlotSpec, parts: list[str], cap: CapabilityGrammar,
                        used: set[int] = frozenset()) -> tuple[int, str] | None:
        phrases = self.grammar.synonyms.get(slot.type, frozenset())
        named_at = [i for i, _, _ in number_positions(parts)
                    if any(find_phrase(parts[max(0, i - 3):i], p) for p in phrases)]
        # "double 311's <field>", "318 <field> 20": a bare number right before the field's name is the item's
        fields = {w for s in cap.slots if s.parse == "integer" for w in self._field_words(cap, s)}
        named_at += [i for i, _, unit in number_positions(parts) if not unit and parts[i + 1:i + 2]
                     and parts[i + 1] in fields and i not in named_at]
        # A bare number is a quantity only where the message may still give one: answering "which
        # <entity>?" (only the reference asked for), "a 311" is the reference.
        takes_value = any(s.parse == "integer" and (self._only is None or s.name in self._only) for s in cap.slots)
        return reference_number(parts, set(used), takes_value=takes_value, named_at=named_at, after=self._after)

    def named_numbers(self, parts: list[str], types: frozenset[str] | None = None) -> set[int]:
        """Positions of numbers an entity noun names ("<entidade> 311", "<entity> 62"): references,
        never a quantity — whichever capability reads the message. `types`: only these entities' nouns."""
        phrases = [p for type_ in (self.grammar.referenced if types is None else types)
                   for p in self.grammar.synonyms.get(type_, ())]
        named = set()
        for i, _, unit in number_positions(parts):
            start = i  # back over "número", "nº", articles between the noun and the number
            while start > 0 and (parts[start - 1] in ARTICLES or parts[start - 1] in NUMBER_WORDS):
                start -= 1
            if not unit and any(find_phrase(parts[max(0, start - len(p)):start], p) == (0, len(p))
                                for p in phrases if start >= len(p)):
                named.add(i)
        return named

    def _numbered_entity(self, cap: CapabilityGrammar, slot: SlotSpec, parts: list[str], out: Extraction,
                         use_context: bool) -> None:
        if use_context and self._picked(slot, parts, out):  # "a de 15 dias": by a value of the last list's items
            return
        found = self.explicit_number(slot, parts, cap, out.used)
        # "a <entidade> da Subestação 2": a number inside a name the entity has is that name's
        if (found is None or found[0] not in self.named_numbers(parts)) and self._by_attribute(
                cap, slot, parts, out, covering=found[0] if found else None):
            return
        if found is None:
            if use_context and self._next_said(slot.type, parts):
                return  # "remarca a próxima <entidade>": which one is next is asked, never the one in focus taken
            if use_context:
                noun_said = self.noun_said(slot.type, parts)
                ref = self._listed_in_state(cap, slot, self.data[0] or parts) or reference(
                    slot.type, parts, self.situation, self.grammar.referenced, noun_said=noun_said,
                    other_named=self.other_named(slot.type, parts))
                if ref is not None:
                    out.values[slot.name] = [ref]
            return
        index, number = found
        out.used.add(index)
        out.used.update(self._noun_of(slot.type, parts, index))
        self.resolve_number(slot, number, parts, out)

    def _next_said(self, type_: str, parts: list[str]) -> bool:
        """"a próxima <entidade>", "the next <entity>": a word of order right before the type's noun."""
        at = self.grammar.types_named_in(parts).get(type_)
        return at is not None and bool(set(parts[max(0, at[0] - 1):at[0]]) & NEXT)

    def _picked(self, slot: SlotSpec, parts: list[str], out: Extraction) -> bool:
        if not self.situation.listed or self.named_numbers(parts, frozenset({slot.type})):
            return False
        picked = picked_by_value(self.grammar, self.situation.listed, slot.type, parts, self.text, self.language)
        if picked is None:
            return False
        ref, at, _field = picked
        out.used.update(at)
        out.values[slot.name] = [SlotValue(ref.get("id"), str(ref.get("label")), ref, "context")]
        return True

    def other_named(self, type_: str, parts: list[str]) -> bool:
        """The message names another type referred to by number by its noun ("adia a primeira <outra>")."""
        return any(self.noun_said(t, parts) for t in self.grammar.referenced if t != type_)

    def noun_said(self, type_: str, parts: list[str]) -> bool:
        """The message names the type by one of its nouns (no number after it: that is a reference by number)."""
        for phrase in self.grammar.synonyms.get(type_, ()):
            found = find_phrase(parts, phrase)
            if found and not "".join(parts[found[1]:found[1] + 1]).isdigit():
                return True
        return False

    def _noun_of(self, type_: str, parts: list[str], index: int) -> set[int]:
        """"<entity> 312" (also with a letter dropped), "a <entidade> nº 312": the positions of the entity noun that
        names the number at `index` — words that say which item, never part of a child's name ("drop <person>
        from <entity> 312" names no child called "… <entity> 312")."""
        start = index
        while start > 0 and (parts[start - 1] in ARTICLES or parts[start - 1] in NUMBER_WORDS):
            start -= 1
        for phrase in self.grammar.synonyms.get(type_, ()):
            at = start - len(phrase)
            if at >= 0 and (find_phrase(parts[at:start], phrase) == (0, len(phrase)) or (
                    len(phrase) == 1 and len(phrase[0]) >= 6 and dropped_letter(parts[at], phrase[0]))):  # "permt"
                return set(range(at, start))
        return set()

    def _by_attribute(self, cap: CapabilityGrammar, slot: SlotSpec, parts: list[str], out: Extraction,
                      covering: int | None = None) -> bool:
        """"the <place> <entity>": the entities whose named_by field the message says (names are data:
        read in the message as typed, never as a verb)."""
        said = self.data[0] or parts
        if not could_be_said_of_it(self.grammar, slot, said):
            return False
        quoted = quoted_positions(self.text, said)
        # The words of a state are that state's, never part of a name ("the approved one" names no "Approve Ltd"),
        # unless quoted (a quote is the user's own text of a name).
        enums, in_enums = states_said(self.grammar, slot.type, [p if i not in quoted else "" for i, p in
                                                                enumerate(said)])
        items, at = named_by_attribute(self.reader, slot, said, enums, skip=self.skip_words(cap),
                                       used=out.used | in_enums)
        if at & quoted:  # a quoted passage is the user's own text: the items whose value holds all of it, or none
            items = quoting(slot, items, [said[i] for i in sorted(quoted)])
            if not items:
                return False
        if len(items) > 1:  # "open the approved one" after a list: of the items it showed
            items = self._among_listed(slot, items)
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

    def _listed_in_state(self, cap: CapabilityGrammar, slot: SlotSpec, said: list[str]) -> SlotValue | None:
        """"open the approved one", "quem responde pela cancelada?" right after a list: the one item it showed in
        the state said (its refs keep their state, else the search says which have it), else None. The request's
        own verb says no state ("cancel the one without <x>" asks for none cancelled). With no list shown, a read
        or a navigation picks so among the items the conversation spoke of (a write's state is its goal)."""
        listed = [r for r in self.situation.listed if r.get("type") == slot.type]
        if not self.situation.listed and cap.kind != "write":  # "volta pra aprovada", "return to the closed one":
            listed = [r for r in self.situation.recent if r.get("type") == slot.type]  # among the items spoken of
        said = ["" if any(same_word(p, verb.words[0]) for verb in cap.verbs) else p for p in said]
        enums = states_said(self.grammar, slot.type, said)[0] if listed else []
        hits = filtered_among(self.grammar, self.reader, slot.type, listed, enums) if enums else []
        return SlotValue(hits[0].get("id"), str(hits[0].get("label")), hits[0], "context") if len(hits) == 1 else None

    def _among_listed(self, slot: SlotSpec, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Of `items`, the ones the last list answered showed, when any (else all of them)."""
        shown = {str(r.get("id")) for r in self.situation.listed if r.get("type") == slot.type}
        return [i for i in items if str(i.get("id")) in shown] or items

    def resolve_number(self, slot: SlotSpec, number: str, parts: list[str], out: Extraction, *,
                       by_attribute: bool = False, besides: Any = None) -> None:
        """`by_attribute`: the words only say which of the items with this number ("no, <person>'s one"), so
        any of the manifest's named_by values narrows them (else a name may be another slot's value).
        `besides`: the id of an item not meant (the one a correction corrects)."""
        items = [i for i in self.reader.search(slot, number) if besides is None or str(i.get("id")) != str(besides)]
        if len(items) > 1 and besides is None:
            items = self._not_the_one_in_focus(slot, number, items, parts)
        if len(items) > 1:
            items = self._narrow_by_company(items, parts)
        if len(items) > 1:  # "list <owner>'s <entities> and give their 340 …": the one the list just showed
            items = self._among_listed(slot, items)
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

    def _not_the_one_in_focus(self, slot: SlotSpec, number: str, items: list[dict[str, Any]],
                              parts: list[str]) -> list[dict[str, Any]]:
        """"a outra 340", "the other <entity> 340": of the items with the number, all but the one in focus."""
        active = self.situation.active or {}
        said = [j for j, p in enumerate(parts) if p == number and any(w in OTHER for w in parts[max(0, j - 3):j])]
        if not said or active.get("type") != slot.type:
            return items
        return [i for i in items if str(i.get("id")) != str(active.get("id"))] or items

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
