"""An entity named by what it has rather than its number: "the Caldeiraria <entity>", "a <entidade>
do <local>", "a <entidade> da <nome>". A reference slot lists in the manifest (`named_by`) the
fields of its resolver's items that name one (dotted paths into an item); a value of one
of those fields said word for word picks the entities that have it. Nothing here knows an entity.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .grammar import SlotSpec
from .matching import find_exact
from .reads import Reader

MAX_CANDIDATES = 8  # more than this is a search, not a reference


def _at(item: Mapping[str, Any], path: str) -> Any:
    value: Any = item
    for key in path.split("."):
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def named_by_attribute(reader: Reader, slot: SlotSpec, parts: list[str],
                       enums: Iterable[tuple[str, str]] = ()) -> tuple[list[dict[str, Any]], set[int]]:
    """The entities of `slot`'s type one of whose `named_by` values the message says, and the positions
    of those words; ([], set()) when none. `enums`: (field, value) the message also says ("a <entidade>
    aprovada da X"), which narrow several down when some have them."""
    if not slot.named_by:
        return [], set()
    items = reader.catalog(slot)
    for path in slot.named_by:
        values = {str(v) for item in items if isinstance(v := _at(item, path), str) and v.strip()}
        hits = find_exact(parts, [{"_v": v} for v in values], "_v")
        said = {row["_v"] for row, _span in hits}
        chosen = [item for item in items if _at(item, path) in said]
        for field, value in enums:
            narrowed = [item for item in chosen if item.get(field) == value]
            chosen = narrowed or chosen
        if 0 < len(chosen) <= MAX_CANDIDATES:
            return chosen, {i for _row, (a, b) in hits for i in range(a, b)}
    return [], set()
