"""An entity named by what it has rather than its number: "the Caldeiraria <entity>", "a <entidade>
do <local>", "a <entidade> da <nome>" — said of the item (said_of_it), and not a value another slot of
the request takes (another_slots_value). A reference slot lists in the manifest (`named_by`) the
fields of its resolver's items that name one (dotted paths into an item); a value of one
of those fields said word for word picks the entities that have it. Nothing here knows an entity.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from .grammar import CapabilityGrammar, Grammar, SlotSpec, camel_parts, same_word
from .lexicon import ARTICLES, OTHER, tokens
from .matching import find_exact, find_partial, mention
from .reads import Reader

MAX_CANDIDATES = 8  # more than this is a search, not a reference


def _at(item: Mapping[str, Any], path: str) -> Any:
    value: Any = item
    for key in path.split("."):
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def states_said(grammar: Grammar, entity_type: str, said: list[str]) -> tuple[list[tuple[str, str]], set[int]]:
    """The (field, value) of the entity's enum fields the words say ("aprovada", "the cancelled one") and the
    positions of the words that say them."""
    enums: list[tuple[str, str]] = []
    at: set[int] = set()
    for slot in (s for c in grammar.capabilities.values() if c.entity == entity_type for s in c.slots
                 if s.parse == "enum" and s.values):
        value = grammar.enum_value(slot, said)
        if value is None or (slot.field, value) in enums:
            continue
        enums.append((slot.field, value))
        phrase = grammar.enum_phrase(slot, said)
        at |= set(range(*phrase[1])) if phrase else {i for i, p in enumerate(said) if same_word(p, value.lower())}
    return enums, at


def in_state(items: list[dict[str, Any]], enums: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """Of `items` (entity refs or rows), those in every state said."""
    return [i for i in items if enums and all(i.get(field) == value for field, value in enums)]


def filtered_among(grammar: Grammar, reader: Reader, entity_type: str, items: list[dict[str, Any]],
                   enums: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """Of `items` (refs a list showed), those in every state said that the refs do not hold themselves — a filter
    of the entity's search ("a que tá sem inspetor": no item carries "without one"), asked of the API for the
    items shown, never guessed from their other values. [] when the search has no such filter."""
    asked = [(f, v) for f, v in enums if not any(f in i for i in items)]
    if not asked:
        return in_state(items, enums)
    search = next((c for c in grammar.capabilities.values() if c.kind == "read" and c.intent == "search"
                   and c.entity == entity_type and all(c.slot(f) is not None for f, _v in asked)), None)
    if search is None:
        return []
    result = reader.found(search.id, {f: v for f, v in asked}, entity_type)
    found = {str(r.get("id")) for r in (result.body if result.ok and isinstance(result.body, list) else ())
             if isinstance(r, Mapping)}
    held = [(f, v) for f, v in enums if (f, v) not in asked]
    return [i for i in (in_state(items, held) if held else items) if str(i.get("id")) in found]


def named_by_attribute(reader: Reader, slot: SlotSpec, parts: list[str], enums: Iterable[tuple[str, str]] = (),
                       *, skip: frozenset[str] | set[str] = frozenset(),
                       used: Iterable[int] = (), partial: bool = True) -> tuple[list[dict[str, Any]], set[int]]:
    """The entities of `slot`'s type one of whose `named_by` values the message says, and the positions
    of those words; ([], set()) when none. `enums`: (field, value) the message also says ("a <entidade>
    aprovada da X"), which narrow several down when some have them. A value said word for word wins;
    else one distinctive word of a value ("da Metalúrgica" for "Metalúrgica Vale Azul"), outside the
    request's own words (`skip`) and the words other slots took (`used`); `partial=False`: word for word only."""
    if not slot.named_by:
        return [], set()
    items = reader.catalog(slot)
    enums = list(enums)
    for partly in ((False, True) if partial else (False,)):
        for path in slot.named_by:
            values = [{"_v": str(v)} for v in {_at(item, path) for item in items} if isinstance(v, str) and v.strip()]
            said, at = _said(parts, values, partly, skip, set(used))
            chosen = [item for item in items if _at(item, path) in said]
            for field, value in enums:
                narrowed = [item for item in chosen if item.get(field) == value]
                chosen = narrowed or chosen
            if 0 < len(chosen) <= MAX_CANDIDATES:
                return chosen, at
    return [], set()


def _said(parts: list[str], values: list[dict[str, str]], partial: bool, skip: frozenset[str] | set[str],
          used: set[int]) -> tuple[set[str], set[int]]:
    if not partial:
        hits = find_exact(parts, values, "_v")
        return {row["_v"] for row, _span in hits}, {i for _row, (a, b) in hits for i in range(a, b)}
    free = [p if i not in used else "\x00" for i, p in enumerate(parts)]
    found = find_partial(free, [v for v in values if len(v["_v"].split()) > 1], "_v", skip)
    at = {a for a, _ in found.spans} if found is not None else set()
    if found is None or any(len(parts[a]) < _DISTINCTIVE and a - 1 not in at and a + 1 not in at for a in at):
        return set(), set()
    return {row["_v"] for row in found.items}, at


# a word this long or longer names a value alone ("Metalúrgica"); "da", "Sul" do not — two words of it in a row
# do ("Vale Azul")
_DISTINCTIVE = 5


# "a <entidade> da X", "for X", "of X": a value said of the item it names.
_OF = frozenset(tokens("da do de das dos na no para pra pro of for from"))
_ONE = frozenset(tokens("one ones"))  # "the Caldeiraria one"


def said_of_it(grammar: Grammar, slot: SlotSpec, said: list[str], at: set[int]) -> bool:
    """The value is said of the item: "a <entidade> da <valor>", "<valor>'s <entity>", "the <valor>
    <entity>", "… that <valor> is <field> for" — not a name in passing ("vejo isso com o <nome> depois")."""
    if not at:
        return True
    first, last = min(at), max(at)
    if (first and said[first - 1] in _OF) or said[last + 1:last + 2] == ["s"]:
        return True
    before = [p for p in said[max(0, first - 3):first] if p not in ARTICLES]
    after = [p for p in said[last + 1:last + 3] if p not in ARTICLES]
    nouns = _its_nouns(grammar, slot)
    near = before[-1:] + after[:1]
    return any(same_word(w, n) for w in near for n in nouns) or any(p in nouns - _ONE for p in said)


def could_be_said_of_it(grammar: Grammar, slot: SlotSpec, said: list[str]) -> bool:
    """Whether any value at all could pass `said_of_it` in these words — checked before the catalog is read,
    so a message with none of its words ("how many <others> are there?") costs no listing of the items.
    The same tests as said_of_it, without the value's position: a word of _OF, a possessive, or a noun."""
    nouns = _its_nouns(grammar, slot)
    return any(p in _OF or p == "s" or any(same_word(p, n) for n in nouns) for p in said)


def _its_nouns(grammar: Grammar, slot: SlotSpec) -> frozenset[str]:
    """The item's noun ("the <value> <entity>", "the <value> one"), or a named_by field's own name or noun
    ("da <field noun> <value>", "… that <value> is <field> for")."""
    heads = [path.split(".")[0] for path in slot.named_by]
    nouns = {w for t in (slot.type, *heads) for phrase in grammar.synonyms.get(t, ()) for w in phrase}
    return frozenset(nouns | {w for head in heads for w in camel_parts(head)} | _ONE)


def another_slots_value(reader: Reader, cap: CapabilityGrammar, slot: SlotSpec, said: list[str],
                        at: set[int]) -> bool:
    """"muda o responsável pra <pessoa>": a name another slot of the capability resolves (a person to
    assign, a type to add) is that slot's value, never the words that pick the target by its attribute."""
    if not at:
        return False
    words = [said[i] for i in sorted(at) if i < len(said)]
    return any(other.resolver and other.name != slot.name and other.parse != "reference"
               and mention(words, reader.catalog(other), str(other.resolver.get("label", "name")))
               for other in cap.slots)


def quoting(slot: SlotSpec, items: list[dict[str, Any]], quoted: list[str]) -> list[dict[str, Any]]:
    """Of `items`, those one of whose `named_by` values holds the quoted words in a row ("whose <owner> says
    '<part of its name>'"); a quote a value shares only some words with names none of them."""
    def holds(value: Any) -> bool:
        said = tokens(str(value)) if isinstance(value, str) else []
        return any(said[i:i + len(quoted)] == quoted for i in range(len(said) - len(quoted) + 1))
    return [item for item in items if any(holds(_at(item, path)) for path in slot.named_by)]


def named_among(slot: SlotSpec, items: list[dict[str, Any]], parts: list[str]) -> list[dict[str, Any]]:
    """Of `items`, those one of whose `named_by` values the words name ("… the <person>'s one"), else []."""
    for path in slot.named_by:
        rows = [{"_v": str(value), "_n": n} for n, item in enumerate(items)
                if isinstance(value := _at(item, path), str) and value.strip()]
        hit = mention(parts, rows, "_v", many=True) if rows else None
        if hit is not None:
            return [items[n] for n in sorted({row["_n"] for row in hit.items})]
    return []


def same_number_elsewhere(reader: Reader, slot: SlotSpec, parts: list[str], item_id: Any, number: str) -> str | None:
    """"não, a da Beta", "no, the <name> one", "não, a outra": the number of the item in question, when the words
    name another item with that number by one of its `named_by` values, or say "the other" and there is one
    other (the item meant is that one), else None."""
    others = [i for i in reader.search(slot, number) if str(i.get("id")) != str(item_id)] if number else []
    other = len(others) == 1 and any(p in OTHER for p in parts)
    return number if other or named_among(slot, others, parts) else None


def known_value(grammar: Grammar, reader: Reader, entity: str, field: str, parts: list[str]) -> str | None:
    """The one value of `field` that items of `entity` already have and the message says word for word
    ("schedule one at the <local> on the 15th": a known <local>), when a reference names items by that field
    (manifest named_by); else None. A creation's free text takes it rather than the words left over."""
    slot = next((s for c in grammar.capabilities.values() for s in c.slots
                 if s.parse == "reference" and s.type == entity and field in s.named_by), None)
    if slot is None:
        return None
    items, _positions = named_by_attribute(reader, replace(slot, named_by=[field]), parts, partial=False)
    values = {value for item in items if isinstance(value := _at(item, field), str)}
    return next(iter(values)) if len(values) == 1 else None
