"""Field questions ("qual é a validade da permissão 123?", "who is the inspector of inspection 45?"):
the named or active entity's field, read now through its read capability and answered directly.
(Count questions and show/list reads are plans like any other: operations.operate.)"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from datetime import date
from typing import Any

from . import lexicon, messages
from .attributes import named_by_attribute
from .clarify import clarify
from .date_windows import date_window
from .dates import date_label, today
from .ellipsis import remember_field
from .flow import rest, topic_set
from .grammar import SlotSpec, dropped_letter, same_word
from .intents import intent_state
from .matching import mention
from .plurals import plural_types
from .reads import entity_ref
from .references import NUMBER_WORDS
from .state import entity_activate, situation_for
from .summary import code_labels, parts_shown
from .turns import Turn
from .understanding import Extraction, Extractor, SlotValue, masked


def numbered_by_another(parts: list[str], named: Mapping[str, tuple[int, int]]) -> bool:
    """Every number of the message stands right after a named entity's noun ("<entidade> 123")."""
    numbers = [i for i, p in enumerate(parts) if p.isdigit()]
    return bool(numbers) and all(any(end == i for _start, end in named.values()) for i in numbers)


def field_question(turn: Turn, parts: list[str], *, phrases_with: frozenset[str] | None = None,
                   data: frozenset[int] = frozenset()) -> bool:
    """"qual é a validade da permissão 123?": the named or active entity's field, read now (§ item 3).

    `phrases_with`: only a field the manifest's phrases name, with one of these words in the phrase
    ("quantos dias…" is a field question although "quantos" counts); an empty set: any phrase.
    A field asked of an entity named by its noun and a number that does not exist is answered so
    ("não encontrei a <entidade> 315"), not left to a clarification. `data`: the positions of the tenant's names
    (and quoted text) in `parts` — values, never a noun or a number that picks the item ("who works for <an owner
    named '… <entity> 318'>" asks nothing of <entity> 318)."""
    missing: tuple[SlotSpec, str] | None = None
    unnamed: list[tuple[Any, SlotSpec, str]] = []  # a field asked of no item, for each entity that has it
    outside_names = masked(parts, data)
    named = turn.grammar.types_named_in(outside_names)
    # ("qual a <campo> da <entidade> de trabalho 320?": the words of the item's own noun of several words name no
    # field — a noun of one word may be a field's verb as well: "who inspects 53?")
    asking = [p if not any(a <= i < b and b - a > 1 for t, (a, b) in named.items() if t in turn.grammar.referenced)
              else "" for i, p in enumerate(parts)]
    numbered = any(p.isdigit() for p in outside_names)
    for cap in turn.grammar.capabilities.values():
        if cap.kind != "read" or cap.intent != "show":
            continue
        slot = next((s for s in cap.slots if s.parse == "reference"), None)
        if slot is None or not turn.reader.spec(cap.id):
            continue
        if slot.type not in named and numbered_by_another(parts, named):
            continue  # "… da <entidade> 123": the number is that entity's; another type's search is a call for nothing
        if phrases_with is not None and field_asked(cap.fields, asking, dict.fromkeys(cap.fields)) is None:
            continue  # no phrase of any of its fields is said: nothing of it to find, read or answer
        extractor = Extractor(grammar=turn.grammar, reader=turn.reader, situation=situation_for(turn.conversation),
                              text=turn.text, language=turn.language, data=(parts, data))
        extraction = extractor.extract(cap, parts)
        value = (extraction.values.get(slot.name) or [None])[0] or _named_alone(turn, cap, slot, parts)
        # (said in the plural — "quais <entidades> estão … da <nome>?" — it asks for the list instead)
        if (value is None and extraction.ambiguous.get(slot.name) and (slot.type in named or (numbered and not named))
                and slot.type not in plural_types(turn.grammar, parts)):
            # "qual a <campo> da 771?" with two of them: which one — then that one's field is answered (also
            # without the noun, "quem responde pela 771?", when the field asked is of this entity).
            field = field_asked(cap.fields, asking, dict.fromkeys(cap.fields), phrases_with or frozenset())
            if field is None and phrases_with:  # "how many <filhos> are on 340?" (two of them): its list, counted
                field = field_asked(cap.fields, asking, dict.fromkeys(cap.fields))
            if field is not None:
                state = intent_state(capability=cap.id, values={}, text=turn.text, language=turn.language)
                state["field"] = field
                clarify(turn, state, Extraction(ambiguous={slot.name: extraction.ambiguous[slot.name]}))
                return True
        if value is not None and (value.source != "text" or not numbered) and slot.type in plural_types(
                turn.grammar, parts):
            continue  # "quais <entidades> estão <estado>?" with one in focus or named by a place: a list asked
        if (value is not None and value.source == "text" and slot.type not in named and not numbered
                and (named or not _own_value_said(turn, slot, value, parts))):
            # "which <entities> is <person> <field> for?", "who works for <owner>?": a name of another type
            # (or of the item's owner, without the item's noun) picked an item: the question is not about it
            continue
        if value is None:
            said = extraction.not_found.get(slot.name)
            asked = field_asked(cap.fields, asking, dict.fromkeys(cap.fields), phrases_with or frozenset())
            if said and missing is None and slot.type in named and asked:
                missing = (slot, said)
            elif asked and not said and not extraction.ambiguous.get(slot.name):
                unnamed.append((cap, slot, asked))
            continue
        if (phrases_with is not None and not (phrases_with and _points_at_it(value, parts))
                and field_asked(cap.fields, asking, dict.fromkeys(cap.fields), phrases_with) is None):
            continue  # none of its fields is asked, whatever it holds: not read ("quantos <outros> existem?")
        body = turn.reader.entity(slot.type, value.value)
        if body is None:
            continue
        field = field_asked(cap.fields, asking, body, phrases_with) if phrases_with is not None else (
            field_asked(cap.fields, asking, body) or _field_named(turn, parts, body, slot.type))
        counted = None
        if field is None and phrases_with and _points_at_it(value, parts):
            # "quantos <itens> tem a <entidade> 51?" / "… tem nela?": a list field of that entity, counted
            # ("quantos <itens> existem?" counts them all: no entity pointed at, the count capability answers)
            counted = field_asked(cap.fields, asking, body)
            field = counted if isinstance(body.get(counted), list) else None
        if field is None:
            continue
        if counted:
            field_answer(turn, slot, body, field, parts, template="answer.field_count",
                         extra={"count": len(body[field])})
        else:
            field_answer(turn, slot, body, field, parts)
        return True
    if missing is not None:
        turn.error("NOT_FOUND", "clarify.entity_not_found", number=missing[1], **turn.nouns(missing[0].type))
        return True
    unnamed = [u for u in unnamed if not named or u[1].type in named]  # "the status of the <entity>?": of that one
    if (len(unnamed) == 1 and phrases_with is None and not numbered
            and len(parts) <= _SHORT and not plural_types(turn.grammar, parts)
            and not any(p in _ANY or p in lexicon.EVERY for p in parts)  # (a plural or an "any" asks for a list)
            and date_window(turn.text) is None):  # ("tem <entidade> marcada pra amanhã?": the ones on that day)
        # "qual a <campo>?" with nothing in focus: which one — then that one's field is answered
        cap, slot, field = unnamed[0]
        state = intent_state(capability=cap.id, values={}, text=turn.text, language=turn.language)
        state["field"] = field
        clarify(turn, state, Extraction(missing=[slot.name]))
        return True
    return False


def _own_value_said(turn: Turn, slot: SlotSpec, value: SlotValue, parts: list[str]) -> bool:
    """Does the message say one of the item's own named_by values (its place, not its owner's name: a path
    without a dot)?"""
    own = tuple(path for path in slot.named_by if "." not in path)
    body = turn.reader.entity(slot.type, value.value) if own else None
    return bool(body) and bool(mention(parts, [{"_v": str(body[p])} for p in own if body.get(p)], "_v"))


_ANY = frozenset(lexicon.tokens("alguma algum algumas alguns nenhuma nenhum qualquer any some anyone anything"))
_SHORT = 8  # "qual é a <campo> dela mesmo?": a question of a few words, nothing else asked


def _named_alone(turn: Turn, cap: Any, slot: SlotSpec, parts: list[str]) -> SlotValue | None:
    """"when is <place> scheduled?", "quem inspeciona a <local 2>?": no noun and no number of its own, but a field
    of this entity asked of a value that names exactly one of its items (the manifest's named_by) — the subject
    of the question, read as a name (a number inside that name is the name's)."""
    if field_asked(cap.fields, parts, dict.fromkeys(cap.fields)) is None:
        return None
    # word for word only: one word of a long value ("… <entities> …" in a name) names nothing without its noun
    items, at = named_by_attribute(turn.reader, slot, parts, partial=False)
    if len(items) != 1 or any(p.isdigit() and i not in at for i, p in enumerate(parts)):
        return None
    # a name that also names an item of another type is no reference to this one
    if any(s.parse == "reference" and s.type != slot.type and s.named_by
           and named_by_attribute(turn.reader, s, parts, partial=False)[0]
           for c in turn.grammar.capabilities.values() if c.kind == "read" and c.intent == "show" for s in c.slots):
        return None
    ref = entity_ref(slot.type, items[0], label_field=str((slot.resolver or {}).get("label", "number")))
    return SlotValue(ref["id"], ref["label"], ref, "text")


def field_answer(turn: Turn, slot: SlotSpec, body: Mapping[str, Any], field: str, parts: list[str], *,
                 template: str = "answer.field", extra: Mapping[str, Any] | None = None) -> None:
    """Answer `field` of the entity `body` (of `slot`'s type); it becomes the entity and topic in focus."""
    value = body[field]
    codes = code_labels(turn.grammar, turn.language)  # "CANCELLED" → "cancelada": a code is said in words
    shown = _shown(value, turn.language, codes) if value not in (None, [], "") else turn.say("answer.none")
    unit = f" {messages.term('days', turn.language)}" if field.endswith("_days") else ""
    entity = entity_ref(slot.type, body, label_field=str((slot.resolver or {}).get("label", "name")))
    entity_activate(turn.conversation, entity, version=turn.version)
    topic_set(turn, words=[p for p in parts if any(same_word(p, k) for k in _field_words(turn, field))],
              entity=entity, semantic_id=None)
    context = dict(turn.conversation.context or {})
    remember_field(context, slot.type, entity.get("id"), field,  # "mais 10 dias" / "e a 457?" next
                   counted=template == "answer.field_count")
    parts_shown = _parts_listed(turn, field, value)
    if parts_shown:  # "<filhos> da <entidade> 51" answered as its field: "remove the 2nd" next picks among them
        context["listed"] = parts_shown
    turn.conversation.context = context
    rest(turn)
    turn.reply("answer", template, values={"field": field_label(turn, field).capitalize(),
                                           "label": entity.get("label"), "value": f"{shown}{unit}",
                                           **turn.nouns(slot.type), **(extra or {})})


def _parts_listed(turn: Turn, field: str, value: Any) -> list[dict[str, Any]]:
    """A field that lists an item's parts, as references of their type: the type whose list a read gives at the
    item's sub-resource of that name (its call path ends in `/<field>`) and whose items a slot resolves."""
    if not isinstance(value, list) or not value or not all(isinstance(v, Mapping) and v.get("id") for v in value):
        return []
    for cap in turn.grammar.capabilities.values():
        spec = turn.reader.spec(cap.id) if cap.kind == "read" else None
        if spec is None or not str(spec.path_template).rstrip("/").endswith(f"/{field}"):
            continue
        shown = parts_shown(turn.grammar, cap, value)
        if shown is not None:
            return shown
    return []


def field_label(turn: Turn, field: str) -> str:
    """A field as replies name it: the first phrase the manifest lists for it in `language.fields`, else
    the label of a slot that fills it, else the term."""
    for cap in turn.grammar.capabilities.values():
        named = (cap.field_names.get(field) or {}).get(turn.language)
        if named:
            return named
    for cap in turn.grammar.capabilities.values():
        for slot in cap.slots:
            if field in (slot.field, slot.name) and (slot.label or slot.type in turn.grammar.nouns):
                return turn.grammar.slot_label(slot, turn.language)
    return messages.term(field, turn.language)


_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def _from_today(day: date, language: str) -> str:
    """"daqui a 14 dias", "3 days ago", "hoje": how far the day is ("quanto tempo falta?" asks that)."""
    days = (day - today()).days
    english = language.startswith("en")
    if days == 0:
        return "today" if english else "hoje"
    if abs(days) == 1:
        return ("tomorrow" if days > 0 else "yesterday") if english else ("amanhã" if days > 0 else "ontem")
    if english:
        return f"in {days} days" if days > 0 else f"{-days} days ago"
    return f"daqui a {days} dias" if days > 0 else f"há {-days} dias"


def _shown(value: Any, language: str, codes: Mapping[str, str] | None = None) -> str:
    """A field's value as a reply shows it: a related record by its name, a list as a list of names —
    each item with the enum codes it carries, in words ("Extintor sem lacre (média)"): a list is
    asked about for what its items are, not only for their names."""
    if isinstance(value, Mapping):
        name = str(value.get("name") or value.get("description") or value.get("number") or value.get("id"))
        details = [codes[v] for v in value.values() if codes and isinstance(v, str) and v in codes]
        return f"{name} ({', '.join(details)})" if details else name
    if isinstance(value, list):
        return messages.join_list([_shown(v, language, codes) for v in value], language) or "—"
    if isinstance(value, str) and codes and value in codes:
        return codes[value]
    if isinstance(value, str) and _ISO_DAY.fullmatch(value):  # a day as the user's language writes it, and how far
        day = date.fromisoformat(value)
        return f"{date_label(day, language)} ({_from_today(day, language)})"
    return "—" if value is None else str(value)


def _field_words(turn: Turn, field: str) -> set[str]:
    words = set(lexicon.tokens(field.replace("_", " ")))
    for cap in turn.grammar.capabilities.values():
        if cap.kind == "write" and any(s.field == field or s.name == field for s in cap.slots):
            words |= set(cap.keywords)
    return words


def _numbered(parts: list[str], after: int) -> bool:
    return after < len(parts) and parts[after].isdigit()


def _right_after_question_word(parts: list[str], phrase: tuple[str, ...]) -> bool:
    return any(parts[i - 1] in lexicon.QUESTION_WORDS and all(same_word(parts[i + k], w) for k, w in enumerate(phrase))
               for i in range(1, len(parts) - len(phrase) + 1))


def field_asked(fields: Mapping[str, tuple[tuple[str, ...], ...]], parts: list[str],
                 body: Mapping[str, Any], phrases_with: frozenset[str] = frozenset()) -> str | None:
    """The field whose phrases (manifest `language.fields`: "quem responde", "onde", "where") the
    question contains, word after word; the longest phrase wins ("quem responde" over "quem")."""
    best: tuple[int, str] | None = None
    # A question word that is a phrase of one field alone ("quando", "onde", "where") says which field.
    owners = Counter(p[0] for phrases in fields.values() for p in set(phrases) if len(p) == 1)
    for name, phrases in fields.items():
        if name not in body:
            continue
        for phrase in phrases:
            if phrases_with and not phrases_with & set(phrase):
                continue
            n = len(phrase)
            if any(all(_same_field_word(parts[i + k], w) for k, w in enumerate(phrase))
                   # "a <entidade> número 60": a number's label right before it labels the reference; any other
                   # field word right before a number asks that field of it ("<campo> 311?")
                   and not (n == 1 and phrase[0] in NUMBER_WORDS and _numbered(parts, i + n))
                   for i in range(len(parts) - n + 1)):
                # The phrase that says most wins: "quem responde" over "quem", and "responsável" over
                # "quem tá" in "quem tá de responsável" (question words say nothing of the field).
                weight = sum(len(w) for w in phrase if w not in lexicon.QUESTION_WORDS)
                if n == 1 and phrase[0] in lexicon.QUESTION_WORDS and owners[phrase[0]] == 1:
                    weight = _OWN_QUESTION_WORD  # "a <item> vai ser <verbo>da quando?": when, not the <verbo>r
                weight += 20 if _right_after_question_word(parts, phrase) else 0  # "qual <campo> …?"
                if best is None or weight > best[0]:
                    best = (weight, name)
    return None if best is None else best[1]


_OWN_QUESTION_WORD = 16  # more than one field word (up to 13 letters), less than one right after "qual" (20+)


def _points_at_it(value: Any, parts: list[str]) -> bool:
    """The message itself names the entity (its number, its name) or points at it ("nela", "this one")."""
    return value.source == "text" or any(p in lexicon.DEMONSTRATIVES for p in parts)


def _same_field_word(word: str, expected: str) -> bool:
    """A field's word as typed: inflected, or with a letter dropped or added ("satus", "valdade")."""
    return same_word(word, expected) or (len(expected) >= 5 and dropped_letter(word, expected))


def _field_named(turn: Turn, parts: list[str], body: Mapping[str, Any], entity: str) -> str | None:
    nouns = {w for phrases in turn.grammar.synonyms.values() for p in phrases for w in p}
    content = [p for i, p in enumerate(parts) if p not in lexicon.ARTICLES and p not in lexicon.QUESTION_WORDS
               and len(p) > 3 and p not in nouns and not _numbered(parts, i + 1)]
    for field in body:
        if any(same_word(p, w) for p in content for w in lexicon.tokens(field.replace("_", " "))):
            return field
    for cap in turn.grammar.capabilities.values():
        if cap.kind != "write" or cap.entity != entity or cap.intent == "create":
            continue  # a write of this entity names its field; another entity's (or a new one's) does not
        fields = [s.field for s in cap.slots if s.field in body and not s.from_context]
        if len(fields) == 1 and any(same_word(p, k) for p in content for k in cap.keywords):
            return fields[0]
    return None
