"""An entity named by what it has rather than its number: "the Caldeiraria <entity>", "a <entidade>
do <local>", "a <entidade> da <nome>". A reference slot lists in the manifest (`named_by`) the
fields of its resolver's items that name one (dotted paths into an item); a value of one
of those fields said word for word picks the entities that have it. Nothing here knows an entity.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .grammar import SlotSpec
from .matching import find_exact, find_partial
from .reads import Reader

MAX_CANDIDATES = 8  # more than this is a search, not a reference


def _at(item: Mapping[str, Any], path: str) -> Any:
    value: Any = item
    for key in path.split("."):
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def named_by_attribute(reader: Reader, slot: SlotSpec, parts: list[str], enums: Iterable[tuple[str, str]] = (),
                       *, skip: frozenset[str] | set[str] = frozenset(),
                       used: Iterable[int] = ()) -> tuple[list[dict[str, Any]], set[int]]:
    """The entities of `slot`'s type one of whose `named_by` values the message says, and the positions
    of those words; ([], set()) when none. `enums`: (field, value) the message also says ("a <entidade>
    aprovada da X"), which narrow several down when some have them. A value said word for word wins;
    else one distinctive word of a value ("da Metalúrgica" for "Metalúrgica Vale Azul"), outside the
    request's own words (`skip`) and the words other slots took (`used`)."""
    if not slot.named_by:
        return [], set()
    items = reader.catalog(slot)
    enums = list(enums)
    for partial in (False, True):
        for path in slot.named_by:
            values = [{"_v": str(v)} for v in {_at(item, path) for item in items} if isinstance(v, str) and v.strip()]
            said, at = _said(parts, values, partial, skip, set(used))
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
    if found is None or any(len(parts[a]) < _DISTINCTIVE for a, _ in found.spans):
        return set(), set()
    return {row["_v"] for row in found.items}, {a for a, _ in found.spans}


_DISTINCTIVE = 5  # a word this long or longer names a value alone ("Metalúrgica"); "da", "Sul" do not
