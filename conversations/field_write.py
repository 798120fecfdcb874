"""A new value said for a field, with no verb: "<campo> da 310 pra 40 dias", "<field> of 62 to Friday".

The message names a field (a phrase of the manifest's `language.fields` for the entity, or the label
of the slot that writes it) before a "para/pra/to" and a value after it. The write capability of that
entity whose one value slot (a number, a date or an enum) fills that field is asked, with the normal
extraction — the reference, the value and their checks as for any write, then a confirmation — so a
message read this way is still shown to the user before anything happens. Nothing here knows an entity.
"""

from __future__ import annotations

from .grammar import CapabilityGrammar, find_phrase
from .lexicon import DAY_UNITS, tokens
from .operations import operate
from .relative import factor_of
from .turns import Turn
from .understanding import Extractor, Ranked

_TO = frozenset(tokens("para pra pro to"))
_VALUE_PARSES = frozenset({"integer", "date", "enum"})
_UNIT_WORDS = {"days": DAY_UNITS}  # a manifest `unit` → the words that say it


def field_write(turn: Turn, parts: list[str], allowed: set[str], extractor: Extractor) -> bool:
    cap = field_write_of(turn, parts, allowed)
    if cap is None:
        return False
    operate(turn, cap, extractor.extract(cap, parts), parts)
    return True


def field_write_of(turn: Turn, parts: list[str], allowed: set[str]) -> CapabilityGrammar | None:
    """The one write whose field the words before a "para/pra/to" name, with a value after it; else None. The
    first such marker counts ("dava pra passar a <campo> pra 25": the first "pra" only opens the request)."""
    for marker in (i for i, p in enumerate(parts) if p in _TO and 0 < i < len(parts) - 1):
        found = [cap for cap in turn.grammar.capabilities.values()
                 if cap.id in allowed and cap.kind == "write" and _names_its_field(turn, cap, parts[:marker])]
        if found:
            return found[0] if len(found) == 1 else None
    return _amount_beside_its_field(turn, parts, allowed)


def _amount_beside_its_field(turn: Turn, parts: list[str], allowed: set[str]) -> CapabilityGrammar | None:
    """"318 <field> 20", "<campo> da 311 → 25 dias", "318 needs 20 days <field>": the field named and, beside
    the item's number, an amount — right after the field's name or said in its unit. A value for the field, not
    a question about it (a question asks; this one is read only when nothing asks: request.understand)."""
    numbers = [i for i, p in enumerate(parts) if p.isdigit()]
    if any(factor_of(p) is not None for p in parts):  # "triplica a <campo> da 311", "halve 310's <field>"
        scaled = [cap for cap in turn.grammar.capabilities.values() if cap.id in allowed and cap.kind == "write"
                  and _names_its_field(turn, cap, parts) and any(s.parse == "integer" for s in cap.slots)]
        return scaled[0] if len(scaled) == 1 else None
    if len(numbers) < 2:
        return None
    found = [cap for cap in turn.grammar.capabilities.values() if cap.id in allowed and cap.kind == "write"
             and _names_its_field(turn, cap, parts) and _amount_in_its_unit(cap, parts, after=_field_end(turn, cap,
                                                                                                          parts))]
    return found[0] if len(found) == 1 else None


def field_writes(turn: Turn, parts: list[str], allowed: set[str], *, by_unit: bool = True) -> list[CapabilityGrammar]:
    """The writes whose one value slot fills a field the message names: candidates beside the verbs'
    readings ("põe a <campo> da 312 em 55 dias" — "põe" also adds a child; the field says which), a slot
    that takes a name by its label too ("put <person> as <label> on 340")."""
    return [cap for cap in turn.grammar.capabilities.values()
            if cap.id in allowed and cap.kind == "write" and (_names_its_field(turn, cap, parts, names=True)
                                                               or (by_unit and _amount_in_its_unit(cap, parts)))]


def fields_outweighing(turn: Turn, top: CapabilityGrammar, verb: list[str], parts: list[str],
                       allowed: set[str]) -> set[str]:
    """The writes whose field the message names, when the verb's best reading is another write on an item and the
    verb said (`verb`: its words) is one of theirs too ("muda a <campo abreviado> da 311": "muda" also changes a
    child) — never over a create, a batch, a read or a navigation, nor over a verb of its own ("cancela a <x> que
    pediram sem <campo>" cancels). choice.choose weighs them above that reading."""
    if top.kind != "write" or top.intent == "create" or top.batch is not None or not verb:
        return set()
    if any(p.isdigit() and parts[i + 1:i + 2] and parts[i + 1] in DAY_UNITS for i, p in enumerate(parts)):
        return set()  # "bota 50 dias de <campo> na 312 aí, chefe": an amount in its unit says which write
    return {c.id for c in field_writes(turn, parts, allowed, by_unit=False)
            if any(v.words[:1] == tuple(verb[:1]) for v in c.verbs)}


def _amount_in_its_unit(cap: CapabilityGrammar, parts: list[str], *, after: int | None = None) -> bool:
    """"bota 20 dias na 340": an amount said in the unit of the one value slot of a write on an existing item
    ("bota" also adds a child; the unit says which). `after`: where the field's name ends — a number right
    there is its amount too ("<campo> 20")."""
    values = [s for s in cap.slots if not s.from_context and s.parse in _VALUE_PARSES]
    if len(values) != 1 or values[0].unit not in _UNIT_WORDS or not _targets_its_entity(cap):
        return False
    words = _UNIT_WORDS[values[0].unit]
    return any(p.isdigit() and ((i + 1 < len(parts) and parts[i + 1] in words) or i == after)
               for i, p in enumerate(parts))


def _field_end(turn: Turn, cap: CapabilityGrammar, parts: list[str]) -> int | None:
    """Where the name of the field the capability's value slot writes ends in `parts`, else None."""
    spans = [found for p in _field_phrases(turn, cap) if p and (found := find_phrase(parts, p)) is not None]
    return max(spans, key=lambda span: span[1] - span[0])[1] if spans else None


def _targets_its_entity(cap: CapabilityGrammar) -> bool:
    return any(s.parse == "reference" and s.type == cap.entity for s in cap.slots)


def _names_its_field(turn: Turn, cap: CapabilityGrammar, head: list[str], *, names: bool = False) -> bool:
    """Does `head` name the field the capability's one value slot writes, on an entity that exists (the
    capability targets one of its own entity: a create is never read this way)? `names`: a slot that
    resolves a name and has a label counts as a value slot."""
    values = [s for s in cap.slots if not s.from_context and (
        s.parse in _VALUE_PARSES or (names and s.parse is None and s.resolver and s.label))]
    if len(values) != 1 or not _targets_its_entity(cap):
        return False
    return any(p and find_phrase(head, p) is not None for p in _field_phrases(turn, cap, names=names))


def _field_phrases(turn: Turn, cap: CapabilityGrammar, *, names: bool = False) -> set[tuple[str, ...]]:
    """The phrases that name the field the capability's one value slot writes: its label, the reads' fields."""
    values = [s for s in cap.slots if not s.from_context and (
        s.parse in _VALUE_PARSES or (names and s.parse is None and s.resolver and s.label))]
    if len(values) != 1:
        return set()
    return set(turn.grammar.field_phrases(cap.entity, values[0]))


def moves_its_own(turn: Turn, best: Ranked, cap: CapabilityGrammar, parts: list[str]) -> bool:
    """"move it 5 days later" with a <dated entity> and then another item in view: the verb moves a date of its own
    entity, and the conversation has been on one of those — an amount in another entity's unit is no evidence for
    that entity's write (the item in view is not what the verb can move)."""
    top = best.cap
    if best.verb_span is None or top.entity == cap.entity or not any(
            s.parse == "date" and not s.from_context for s in top.slots) or _names_its_field(turn, cap, parts,
                                                                                              names=True):
        return False  # ("adia a <campo> da 311 em 5 dias": the field named says whose write it is)
    return any(r.get("type") == top.entity for r in (turn.conversation.context or {}).get("recent_entities") or [])
