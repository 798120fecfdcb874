"""Step references and paths: `${steps.<id>.result.<path>}` (PRD-006 §8), `${item.<path>}` inside a
`for_each` step, and `${input.<path>}` / `${result.<path>}` in a capability's verification and
compensation blocks.

A value that is exactly one reference keeps the referenced value's type; a reference inside a longer
string is interpolated as text. `${a|b}` takes the first alternative that resolves to a non-null
value (a later write takes the revision of the previous step, or of the create when the previous
one added nothing). Paths: `a.b`, `a[0].b`, `a[*].b` (every element). The grammar is this small on
purpose, so it is parsed here rather than through a JSONPath library whose larger language a plan
(or an LLM) could then use.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

REF = re.compile(r"\$\{([^}]+)\}")
_SEGMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)?((?:\[(?:\d+|\*)\])*)")
_INDEX = re.compile(r"\[(\d+|\*)\]")

MISSING = object()


class ReferenceError_(ValueError):
    """A reference that does not parse or does not resolve."""


@dataclass(frozen=True)
class Ref:
    root: str  # "steps", "item", "input", "result"
    step_id: str | None
    path: str  # below result (steps) or below the root

    @property
    def text(self) -> str:
        if self.root == "steps":
            return f"steps.{self.step_id}.result" + (f".{self.path}" if self.path else "")
        return self.root + (f".{self.path}" if self.path else "")


def parse_ref(expression: str) -> Ref:
    expression = expression.strip()
    if expression.startswith("steps."):
        parts = expression.split(".", 3)
        if len(parts) < 3 or parts[2] != "result" or not parts[1]:
            raise ReferenceError_(f"malformed step reference ${{{expression}}}")
        path = parts[3] if len(parts) == 4 else ""
        _check_path(path)
        return Ref("steps", parts[1], path)
    root, _, path = expression.partition(".")
    if root not in ("item", "input", "result"):
        raise ReferenceError_(f"unknown reference root in ${{{expression}}}")
    _check_path(path)
    return Ref(root, None, path)


def _check_path(path: str) -> None:
    if path == "":
        return
    for segment in _split(path):
        match = _SEGMENT.fullmatch(segment)
        if not match or (not match.group(1) and not match.group(2)):
            raise ReferenceError_(f"malformed path {path!r}")


def _split(path: str) -> list[str]:
    # "a[*].b" → ["a[*]", "b"]; "[*].notes" → ["[*]", "notes"]
    return [s for s in path.split(".")] if path else []


def alternatives(expression: str) -> list[Ref]:
    return [parse_ref(part) for part in expression.split("|")]


def refs_in(value: Any) -> Iterator[Ref]:
    """Every reference anywhere inside a JSON value."""
    if isinstance(value, str):
        for match in REF.finditer(value):
            yield from alternatives(match.group(1))
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from refs_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from refs_in(item)


def get_path(value: Any, path: str) -> Any:
    """The value at `path`, a list for `[*]`, MISSING when absent."""
    current: list[Any] = [value]
    spread = False
    for segment in _split(path):
        match = _SEGMENT.fullmatch(segment)
        name, indexes = match.group(1), _INDEX.findall(match.group(2) or "")
        nxt: list[Any] = []
        for node in current:
            if name is not None:
                if not isinstance(node, Mapping) or name not in node:
                    continue
                node = node[name]
            nodes = [node]
            for index in indexes:
                expanded = []
                for item in nodes:
                    if not isinstance(item, list):
                        continue
                    if index == "*":
                        expanded.extend(item)
                        spread = True
                    elif int(index) < len(item):
                        expanded.append(item[int(index)])
                nodes = expanded
            nxt.extend(nodes)
        current = nxt
    if spread:
        return current
    return current[0] if current else MISSING


Lookup = Callable[[Ref], Any]


def resolve(value: Any, lookup: Lookup) -> Any:
    """`value` with every reference replaced through `lookup(ref)` (which returns MISSING or a value)."""
    if isinstance(value, str):
        whole = REF.fullmatch(value)
        if whole:
            return _first(whole.group(1), lookup)

        def text(match: re.Match[str]) -> str:
            found = _first(match.group(1), lookup)
            return "" if found is None else str(found)

        return REF.sub(text, value)
    if isinstance(value, Mapping):
        return {k: resolve(v, lookup) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [resolve(v, lookup) for v in value]
    return value


def _first(expression: str, lookup: Lookup) -> Any:
    for ref in alternatives(expression):
        found = lookup(ref)
        if found is not MISSING and found is not None:
            return found
    return None


def drop_nulls(value: dict[str, Any]) -> dict[str, Any]:
    """An optional field whose reference resolved to nothing is left out rather than sent as null."""
    return {k: v for k, v in value.items() if v is not None}
