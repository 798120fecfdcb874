"""The judge: one turn's expectations against what was observed once it settled (pure; no I/O).

`judge(expect, observation, baseline)` checks the keys in the order the file gives them and
returns the first that does not hold, with what was observed, or None. Semantics are those of
SCENARIOS.md "Expectations"; `baseline` holds what the world was before the first turn (the
permit and inspection ids, so `permit: new` is the one permit the turns created, and the other
tenant's digest). Permits and inspections are judged alike, through the table in `kinds`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sst.text import fold

from .kinds import KINDS, EntityKind, kind_of_type, kinds_named
from .loader import NEW

NONE = "none"


@dataclass(frozen=True)
class ExecutionSeen:
    status: str | None
    failed: int  # steps that failed
    wrote: bool  # a write capability (or one the runner could not classify) ran


@dataclass(frozen=True)
class NavigationSeen:
    entity_id: str | None
    label: str | None
    tab: str | None
    entity_type: str | None = None


@dataclass(frozen=True)
class Observation:
    status: str | None
    type: str | None
    texts: tuple[str, ...] = ()
    candidates: int = 0
    navigation: NavigationSeen | None = None
    execution: ExecutionSeen | None = None
    events: tuple[str, ...] = ()
    llm_calls: int | None = None
    permits: tuple[Mapping[str, Any], ...] = ()
    inspections: tuple[Mapping[str, Any], ...] = ()
    other_digest: str | None = None
    http_status: int = 200

    def rows(self, kind: EntityKind) -> tuple[Mapping[str, Any], ...]:
        return getattr(self, kind.plural)


@dataclass(frozen=True)
class Baseline:
    permit_ids: frozenset[int] = field(default_factory=frozenset)
    inspection_ids: frozenset[int] = field(default_factory=frozenset)
    other_digest: str | None = None

    def ids(self, kind: EntityKind) -> frozenset[int]:
        return getattr(self, f"{kind.key}_ids")


@dataclass(frozen=True)
class Mismatch:
    key: str
    expected: Any
    observed: Any

    def __str__(self) -> str:
        return f"{self.key}: expected {self.expected!r}, observed {self.observed!r}"


Check = Callable[[Any, Observation, Baseline], Mismatch | None]


def judge(expect: Mapping[str, Any], observation: Observation, baseline: Baseline) -> Mismatch | None:
    for key, expected in expect.items():
        mismatch = CHECKS[key](expected, observation, baseline)
        if mismatch is not None:
            return mismatch
    return None


def _equal(key: str, attribute: str) -> Check:
    def check(expected: Any, observation: Observation, baseline: Baseline) -> Mismatch | None:
        observed = getattr(observation, attribute)
        return None if observed == expected else Mismatch(key, expected, observed)

    return check


def contains_text(texts: Sequence[str], wanted: str) -> bool:
    """Case- and accent-insensitive: does `wanted` appear in any of `texts`?"""
    needle = fold(wanted)
    return any(needle in fold(text) for text in texts)


def _says(expected: list[str], observation: Observation, baseline: Baseline) -> Mismatch | None:
    missing = [text for text in expected if not contains_text(observation.texts, text)]
    return Mismatch("says", missing[0], list(observation.texts)) if missing else None


def _not_says(expected: list[str], observation: Observation, baseline: Baseline) -> Mismatch | None:
    present = [text for text in expected if contains_text(observation.texts, text)]
    if not present:
        return None
    return Mismatch("not_says", f"no {present[0]!r}", [t for t in observation.texts if contains_text([t], present[0])])


def _events(expected: list[str], observation: Observation, baseline: Baseline) -> Mismatch | None:
    remaining = iter(observation.events)
    for wanted in expected:
        if not any(seen == wanted for seen in remaining):  # consumes: order matters
            return Mismatch("events", expected, list(observation.events))
    return None


def _execution(expected: Any, observation: Observation, baseline: Baseline) -> Mismatch | None:
    seen = observation.execution
    if expected == NONE:
        return None if seen is None or not seen.wrote else Mismatch("execution", NONE, _describe_execution(seen))
    if seen is None:
        return Mismatch("execution", expected, None)
    observed = {"status": seen.status, "failed": seen.failed}
    if any(observed[key] != value for key, value in expected.items()):
        return Mismatch("execution", expected, observed)
    return None


def _describe_execution(seen: ExecutionSeen) -> dict[str, Any]:
    return {"status": seen.status, "failed": seen.failed, "wrote": seen.wrote}


def created(kind: EntityKind, observation: Observation, baseline: Baseline) -> list[Mapping[str, Any]]:
    """The rows of `kind` the turns created (`permit: new`)."""
    return [row for row in observation.rows(kind) if row["id"] not in baseline.ids(kind)]


def describe_navigation(observation: Observation) -> dict[str, Any] | None:
    """The navigation target as a scenario would name it (`{permit: "123", company, tab}`), or what was seen."""
    navigation = observation.navigation
    if navigation is None:
        return None
    kind = kind_of_type(navigation.entity_type)
    row = None if kind is None else next(
        (r for r in observation.rows(kind) if str(r["id"]) == str(navigation.entity_id)), None)
    if row is None:
        what = f"not a {kind.key} of this tenant" if kind else "not a permit or an inspection"
        return {"entity_type": navigation.entity_type, "entity_id": navigation.entity_id, "label": navigation.label,
                "tab": navigation.tab, "found": what}
    return {kind.key: row["number"], "company": row["company"], "tab": navigation.tab}


def _navigation(expected: Any, observation: Observation, baseline: Baseline) -> Mismatch | None:
    observed = describe_navigation(observation)
    if expected == NONE:
        return None if observed is None else Mismatch("navigation", NONE, observed)
    if observed is None:
        return Mismatch("navigation", expected, observed)
    for kind in kinds_named(expected):
        if kind.key not in observed:
            return Mismatch("navigation", expected, observed)
        if expected[kind.key] == NEW:
            rows = created(kind, observation, baseline)
            if len(rows) != 1 or str(rows[0]["id"]) != str(observation.navigation.entity_id):
                return Mismatch("navigation", expected, {**observed, f"{kind.plural} created": len(rows)})
        elif observed[kind.key] != expected[kind.key]:
            return Mismatch("navigation", expected, observed)
    for key in ("company", "tab"):
        if key in expected and observed.get(key) != expected[key]:
            return Mismatch("navigation", expected, observed)
    return None


def _world(expected: list[Mapping[str, Any]], observation: Observation, baseline: Baseline) -> Mismatch | None:
    for fact in expected:
        observed = fact_problem(fact, observation, baseline)
        if observed is not None:
            return Mismatch("world", fact, observed)
    return None


def fact_problem(fact: Mapping[str, Any], observation: Observation, baseline: Baseline) -> Any:
    """None when the fact holds, else what was observed instead."""
    for kind in KINDS:
        if kind.plural in fact and len(observation.rows(kind)) != fact[kind.plural]:
            return {kind.plural: len(observation.rows(kind))}
    if fact.get("other_tenant_unchanged") and observation.other_digest != baseline.other_digest:
        return "the other tenant's SST data changed"
    named = kinds_named(fact)
    return None if not named else _entity_problem(named[0], fact, observation, baseline)


def _entity_problem(kind: EntityKind, fact: Mapping[str, Any], observation: Observation, baseline: Baseline) -> Any:
    matching = _matching(kind, fact, observation, baseline)
    if not fact.get("exists", True):
        return None if not matching else {"exists": True, kind.key: _fact_view(kind, matching[0], fact)}
    if len(matching) != 1:
        return f"{len(matching)} {kind.plural} match {fact[kind.key]!r}" + (
            f" of {fact['company']!r}" if "company" in fact else "")
    row = matching[0]
    if any(key in fact and row[key] != fact[key] for key in kind.fields):
        return _fact_view(kind, row, fact)
    if any(key in fact and sorted(row[key]) != sorted(fact[key]) for key in kind.sets):
        return _fact_view(kind, row, fact)
    return None


def _matching(kind: EntityKind, fact: Mapping[str, Any], observation: Observation,
              baseline: Baseline) -> list[Mapping[str, Any]]:
    if fact[kind.key] == NEW:
        return created(kind, observation, baseline)  # 0 or 2+ created: reported as a count
    return [row for row in observation.rows(kind)
            if row["number"] == fact[kind.key] and fact.get("company", row["company"]) == row["company"]]


def _fact_view(kind: EntityKind, row: Mapping[str, Any], fact: Mapping[str, Any]) -> dict[str, Any]:
    keys = [k for k in fact if k in (*kind.fields, *kind.sets, "company")]
    view = {key: row.get(key) for key in keys}
    view[kind.key] = row["number"]
    return view


CHECKS: dict[str, Check] = {
    "status": _equal("status", "status"),
    "type": _equal("type", "type"),
    "says": _says,
    "not_says": _not_says,
    "candidates": _equal("candidates", "candidates"),
    "navigation": _navigation,
    "execution": _execution,
    "llm_calls": _equal("llm_calls", "llm_calls"),
    "events": _events,
    "world": _world,
}
