"""How an operation is worded: the confirmation's summary ("adicionar “Trabalho em Altura” à
permissão 123 (Alfa)") with the affected resources, and the reply once it is done — from the
capability's `language` templates in the registry, else a generic form — and what a read answers: its
count or its items by label ("Encontrei 2 <nouns>: 52 (Alfa), 60 (Beta).")."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from execution.messages import text as result_text
from registry.selectors import RegistrySnapshot

from . import messages
from .batch_plan import batch_describe
from .grammar import CapabilityGrammar, Grammar
from .intents import is_target
from .reads import entity_ref
from .turns import Turn
from .understanding import SlotValue


def _verb(cap: CapabilityGrammar, language: str) -> str:
    for verb in cap.verbs:
        if verb.language == language:
            return " ".join(verb.words)
    return cap.intent


@dataclass
class _Texts:
    values: dict[str, str] = field(default_factory=dict)  # slot name (and "target") -> display text
    details: list[str] = field(default_factory=list)
    affected: list[dict[str, Any]] = field(default_factory=list)


def _slot_texts(turn: Turn, state: Mapping[str, Any]) -> _Texts:
    cap = turn.grammar.capabilities[state["capability"]]
    language, out, target_text = turn.language, _Texts(), ""
    for name, raw in (state.get("slots") or {}).items():
        values = [SlotValue.from_dict(v) for v in raw]
        slot = cap.slot(name)
        if name == "source" or (slot is not None and is_target(turn, cap, name)):
            ref = values[0].entity or {}
            company = (ref.get("company") or {}).get("name")
            noun = turn.grammar.noun(str(ref.get("type") or (slot.type if slot else "")), language)
            target_text = f"{noun} {values[0].label}" + (f" ({company})" if company else "")
            out.affected.append({"type": ref.get("type"), "id": str(values[0].value), "label": values[0].label,
                                 **({"company": company} if company else {})})
            continue
        if slot is not None and slot.parse == "integer":
            out.values[name] = str(values[0].label)
            unit = f" {messages.term('days', language)}" if slot.name.endswith("_days") else ""
            out.details.append(f"{messages.term(slot.name, language)} {values[0].label}{unit}")
        else:
            labels = messages.join_list([f"\u201c{v.label}\u201d" for v in values], language)
            out.values[name] = labels
            term = messages.term(slot.name if slot is None or not slot.type else slot.type, language)
            out.details.append(f"{term} {labels}" if term and term != slot.type else labels)
            out.affected.extend({"type": v.entity.get("type"), "id": str(v.value), "label": v.label}
                                for v in values if v.entity)
    out.values["target"] = target_text.strip()
    return out


def describe(turn: Turn, state: Mapping[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """("adicionar “Trabalho em Altura” à permissão 123 (Alfa)", affected resources) in the turn's language.

    The capability's `language.summary` template (registry) words the action when it has one; the
    generic "verb, details — target" form covers capabilities without it.
    """
    if state.get("batch"):
        return batch_describe(turn, state)
    if state.get("compound"):
        return _compound_describe(turn, state)
    texts = _slot_texts(turn, state)
    summary = None if state.get("clone") else _render(turn, state["capability"], "summary", texts.values)
    if summary:
        return summary, texts.affected
    cap = turn.grammar.capabilities[state["capability"]]
    language = turn.language
    if state.get("clone"):  # "clonar a <entidade> 310 (…) com <campo> 20 dias": the source, then the changes
        pt = language == "pt-BR"
        action = " ".join(p for p in ["clonar" if pt else "clone", texts.values["target"]] if p)
        if texts.details:
            action += (" com " if pt else " with ") + ", ".join(texts.details)
        return action, texts.affected
    action = " ".join(p for p in [_verb(cap, language), ", ".join(texts.details)] if p)
    if texts.values["target"]:
        action += f" \u2014 {texts.values['target']}"
    return action, texts.affected


def done_text(turn: Turn, state: Mapping[str, Any]) -> str | None:
    """The reply once the operation completed ("Validade da permissão 123 alterada para 60 dias."), from the
    capability's `language.done` template; None when it has none (the execution composer answers then)."""
    parts = state.get("compound") or []
    if parts and not any(p.get("condition") or p.get("refs") for p in parts):  # every part ran: each says its own
        said = [done_text(turn, p["state"]) for p in parts]
        return " ".join(said) if all(said) else None  # type: ignore[arg-type]
    if state.get("batch") or parts:
        return None  # worded from the steps' results when the execution settles (hooks)
    return None if state.get("clone") else _render(turn, state["capability"], "done", _slot_texts(turn, state).values)


def _compound_describe(turn: Any, state: Mapping[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """"adicionar X à <entidade> 123; depois aprovar a <entidade> 123" and every part's affected items."""
    texts, affected = [], []
    numbers = {p["part"]: n for n, p in enumerate(state["compound"], 1)}
    for part in state["compound"]:
        action, items = describe(turn, part["state"])
        for source in dict.fromkeys(part.get("refs", {}).values()):
            action += " \u2014 " + turn.say("compound.result_of", n=numbers.get(source, "?"))
        condition = part.get("condition")
        if condition:
            op = messages.OP_WORDS.get(turn.language, messages.OP_WORDS["pt-BR"]).get(condition["op"], "")
            said = turn.say("compound.condition", path=condition.get("path") or "", op=op,
                            value=condition.get("value", "")).replace("“” ", "").strip()
            action = turn.say("compound.if", condition=said) + action
        texts.append(action)
        affected += [a for a in items if a not in affected]
    return turn.say("compound.then").join(texts), affected


_OPTIONAL = re.compile(r"\[([^\[\]]*)\]")
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


def _render(turn: Turn, capability_id: str, kind: str, values: Mapping[str, str]) -> str | None:
    """The registry's `language.<kind>` template filled in; None when it has none or lacks a required value."""
    spec = turn.snapshot.get(capability_id)
    template = ((spec.language.get(kind) if spec else None) or {}).get(turn.language)
    if not template:
        return None
    template = _OPTIONAL.sub(
        lambda m: m.group(1) if all(values.get(k) for k in _PLACEHOLDER.findall(m.group(1))) else "", template)
    if not all(values.get(k) for k in _PLACEHOLDER.findall(template)):
        return None
    text = _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)
    return text[0].upper() + text[1:] if kind == "done" else text


# --- what a read answers ----------------------------------------------------------------------

MAX_ITEMS = 10  # a chat reply stays short: the rest is counted ("e mais 4")


def parts_shown(grammar: Grammar, cap: CapabilityGrammar, rows: list[Any]) -> list[dict[str, Any]] | None:
    """An item's parts that `cap` read, as references of their type in the order shown (the next "remove the
    2nd" picks among them), when `cap` is the resolver of a slot of that type; else None."""
    slot = next((s for c in grammar.capabilities.values() for s in c.slots
                 if s.type == cap.entity and (s.resolver or {}).get("capability") == cap.id), None)
    if slot is None:
        return None
    label = str((slot.resolver or {}).get("label", "name"))
    return [entity_ref(cap.entity, r, label_field=label) for r in rows[:MAX_ITEMS]
            if isinstance(r, Mapping) and r.get("id") is not None]
_MAX_LABEL = 80


def read_answer(grammar: Grammar, snapshot: RegistrySnapshot, steps: list[Mapping[str, Any]],
                language: str, left_out: Mapping[str, Any] | None = None,
                slots: Mapping[str, Any] | None = None, compared: Mapping[str, Any] | None = None) -> str | None:
    """The reply to a read from its last count or list result ("Há 9 <nouns>.", "Encontrei 2 <nouns>:
    52 (Alfa), 60 (Beta)."), worded with the manifest's nouns and `language.item`; None
    when no step returned one (the execution composer answers then). `left_out` (a negated filter,
    negated_filter.py): the items whose `field` has `value` are not counted nor listed. `compared` (an amount
    compared, compared_filter.py): only the items whose `field` compares so are, and the answer says how."""
    for step in reversed(steps):
        cap, result = grammar.capabilities.get(step["capability"]), step.get("result")
        if cap is None or step.get("status") != "completed":
            continue
        spec = snapshot.get(cap.id)
        item = dict((spec.language or {}).get("item") or {}) if spec else {}
        noun = _Noun.of(grammar, cap.entity, language, item.get("noun"))
        where = _owner(grammar, cap, slots or {}, language) or _matching(cap, slots or {}, noun)
        if compared:
            where = f"{where} {compared['where']}".strip()
        tail = "_in" if where else ""
        if cap.intent == "count" and isinstance(result, Mapping) and isinstance(result.get("count"), int):
            return noun.say(("result.count_one" if result["count"] == 1 else "result.count_many") + tail,
                            count=result["count"], where=where)
        if cap.intent == "show" and isinstance(result, Mapping) and item:  # "what's up with 52?": the item itself
            return list_text([item_label(grammar, cap.entity, result, item, code_labels(grammar, language))], noun)
        if isinstance(result, list):
            entries = [entry for entry in result if isinstance(entry, Mapping)]
            if left_out:
                if not any(left_out["field"] in entry for entry in entries):
                    return None  # the items do not say it: never a count that did not leave them out
                entries = [entry for entry in entries if entry.get(left_out["field"]) != left_out["value"]]
            if compared:
                if not any(compared["field"] in entry for entry in entries):
                    return None  # the items do not say it: never a count that did not compare them
                entries = [e for e in entries if compares(e.get(compared["field"]), compared["op"], compared["value"])]
            if (left_out and left_out.get("count")) or (compared and compared.get("count")):
                return noun.say(("result.count_one" if len(entries) == 1 else "result.count_many") + tail,
                                count=len(entries), where=where)
            item["details"] = _varying(entries, item.get("details") or ())
            codes = code_labels(grammar, language)
            return list_text([item_label(grammar, cap.entity, entry, item, codes) for entry in entries], noun,
                             where=where)
    return None


def compares(value: Any, op: str, amount: int) -> bool:
    """Does an item's `value` compare with `amount` as said? A value that is no number never does."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return {"gt": value > amount, "lt": value < amount, "ge": value >= amount, "le": value <= amount}[op]


def _varying(entries: list[Mapping[str, Any]], details: Any) -> list[str]:
    """Details that tell items apart: one every item shares (the value the user filtered by) is noise."""
    if len(entries) < 2:
        return list(details)
    return [p for p in details if len({str(_path(entry, p)) for entry in entries}) > 1]


@dataclass(frozen=True)
class _Noun:
    one: str
    many: str
    female: bool
    language: str

    @classmethod
    def of(cls, grammar: Grammar, entity: str, language: str, own: Mapping[str, Any] | None = None) -> _Noun:
        """The capability's own `item.noun` when it has one, else the manifest's noun of its entity."""
        forms = (own or {}).get(language) or (own or {}).get("pt-BR")
        if forms:
            return cls(forms["one"], forms["many"], forms.get("gender", "f") == "f", language)
        female = not grammar.noun(entity, language, article="the").startswith("o ")
        return cls(grammar.noun(entity, language), grammar.noun(entity, language, many=True), female, language)

    def say(self, key: str, **values: Any) -> str:
        return result_text(self.language, key, noun=self.one, nouns=self.many, **values)


def _owner(grammar: Grammar, cap: Any, slots: Mapping[str, Any], language: str) -> str:
    """"no pedido 51" / "on order 51": the item a list of its children was read from (the list
    capability's reference slot, as the user named it), so the answer says whose list it is."""
    for slot in cap.slots:
        said = slots.get(slot.name) or []
        if slot.parse == "reference" and slot.type != cap.entity and said:
            label = str(said[0].get("label") or said[0].get("value"))
            if language.startswith("en"):
                return f"on {grammar.noun(slot.type, language)} {label}"
            return f"{grammar.noun(slot.type, language, article='in')} {label}"
    return ""


def _matching(cap: Any, slots: Mapping[str, Any], noun: _Noun) -> str:
    """"com “<texto>”", "entre 06/12/2026 e 21/12/2026": the filters the read ran with (text_filter.py), so the
    answer says what it searched — never a filtered count said as the total."""
    said = {slot.parse: slots[slot.name][0] for slot in cap.slots
            if slot.parse in ("filter", "window_from", "window_to") and slots.get(slot.name)}
    parts = []
    if "filter" in said:
        parts.append(noun.say("result.matching", text=said["filter"].get("label") or said["filter"].get("value")))
    if "window_from" in said and "window_to" in said:  # text_filter.py: the days the read was filtered by
        first, last = (said[k].get("label") or said[k].get("value") for k in ("window_from", "window_to"))
        parts.append(noun.say("result.on_day" if first == last else "result.between", first=first, last=last))
    return " ".join(parts)


def list_text(labels: list[str], noun: _Noun, *, where: str = "") -> str:
    """"Encontrei 12 <nouns>: 310, …, 340 e mais 2." — or "Nenhuma <noun> encontrada."; with `where`
    ("no pedido 51") the list says whose it is."""
    tail = "_in" if where else ""
    if not labels:
        return noun.say(("result.list_empty_f" if noun.female else "result.list_empty_m") + tail, where=where)
    shown = labels[:MAX_ITEMS]
    # A label holding a comma (free text) would blur the items: separate them more strongly then.
    items = ("; " if any("," in label for label in shown) else ", ").join(shown)
    if len(labels) > MAX_ITEMS:
        items = noun.say("result.list_more", items=items, count=len(labels) - MAX_ITEMS)
    return noun.say(("result.list_one" if len(labels) == 1 else "result.list_many") + tail, count=len(labels),
                    items=items, where=where)


def code_labels(grammar: Grammar, language: str) -> dict[str, str]:
    """Enum codes → the words the registry's slots show them with in `language` ("HIGH" → "alta")."""
    labels: dict[str, str] = {}
    for cap in grammar.capabilities.values():
        for slot in cap.slots:
            for code in slot.value_labels:
                labels.setdefault(code, slot.value_label(code, language))
    return labels


def item_label(grammar: Grammar, entity: str, entry: Mapping[str, Any], item: Mapping[str, Any],
               codes: Mapping[str, str] | None = None) -> str:
    """"325 (Elétrica Pinheiro)": the field `item.label` names (else the entity's resolver label, else a
    generic one), then the `item.details` paths that have a value — an enum code in words (`codes`)."""
    field_name = item.get("label") or _resolver_label(grammar, entity)
    label = _path(entry, field_name) if field_name else None
    if label in (None, ""):
        label = entity_ref(entity, entry)["label"]
    details = [str((codes or {}).get(v, v)) if isinstance(v, str) else str(v)
               for v in (_path(entry, p) for p in item.get("details") or ()) if v not in (None, "")]
    text = str(label) + (f" ({', '.join(details)})" if details else "")
    return text if len(text) <= _MAX_LABEL else text[:_MAX_LABEL - 1].rstrip() + "\u2026"


def _resolver_label(grammar: Grammar, entity: str) -> str | None:
    """The output field a slot of this entity type is matched by (its resolver's `label`)."""
    return next((str(s.resolver["label"]) for c in grammar.capabilities.values() for s in c.slots
                 if s.type == entity and s.resolver and s.resolver.get("label")), None)


def _path(entry: Any, dotted: str) -> Any:
    for key in dotted.split("."):
        entry = entry.get(key) if isinstance(entry, Mapping) else None
    return entry

