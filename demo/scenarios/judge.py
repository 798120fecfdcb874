"""The judge: one turn's expectations against what was observed once it settled (pure; no I/O).

`judge(expect, observation, baseline)` checks the keys in the order the file gives them and
returns the first that does not hold, with what was observed, or None. Semantics are those of
SCENARIOS.md "Expectations"; `baseline` holds what the world was before the first turn (the
permit ids, so `permit: new` is the one permit the turns created, and the other tenant's digest).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sst.text import fold

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
    other_digest: str | None = None
    http_status: int = 200


@dataclass(frozen=True)
class Baseline:
    permit_ids: frozenset[int] = field(default_factory=frozenset)
    other_digest: str | None = None


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


def new_permits(observation: Observation, baseline: Baseline) -> list[Mapping[str, Any]]:
    return [p for p in observation.permits if p["id"] not in baseline.permit_ids]


def _permit_by_id(observation: Observation, entity_id: str | None) -> Mapping[str, Any] | None:
    return next((p for p in observation.permits if str(p["id"]) == str(entity_id)), None)


def describe_navigation(observation: Observation) -> dict[str, Any] | None:
    navigation = observation.navigation
    if navigation is None:
        return None
    permit = _permit_by_id(observation, navigation.entity_id)
    if permit is None:
        return {"entity_id": navigation.entity_id, "label": navigation.label, "tab": navigation.tab,
                "permit": "not a permit of this tenant"}
    return {"permit": permit["number"], "company": permit["company"], "tab": navigation.tab}


def _navigation(expected: Any, observation: Observation, baseline: Baseline) -> Mismatch | None:
    observed = describe_navigation(observation)
    if expected == NONE:
        return None if observed is None else Mismatch("navigation", NONE, observed)
    if observed is None or observed.get("permit") == "not a permit of this tenant":
        return Mismatch("navigation", expected, observed)
    if expected["permit"] == NEW:
        created = new_permits(observation, baseline)
        if len(created) != 1 or str(created[0]["id"]) != str(observation.navigation.entity_id):
            return Mismatch("navigation", expected, {**observed, "permits created": len(created)})
    elif observed["permit"] != expected["permit"]:
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
    if "permits" in fact and len(observation.permits) != fact["permits"]:
        return {"permits": len(observation.permits)}
    if fact.get("other_tenant_unchanged") and observation.other_digest != baseline.other_digest:
        return "the other tenant's SST data changed"
    if "permit" not in fact:
        return None
    matching = _matching_permits(fact, observation, baseline)
    if not fact.get("exists", True):
        return None if not matching else {"exists": True, "permit": _fact_view(matching[0], fact)}
    if len(matching) != 1:
        return f"{len(matching)} permits match {fact['permit']!r}" + (
            f" of {fact['company']!r}" if "company" in fact else "")
    permit = matching[0]
    for key in ("status", "validity_days", "responsible"):
        if key in fact and permit[key] != fact[key]:
            return _fact_view(permit, fact)
    for key in ("components", "workers"):
        if key in fact and sorted(permit[key]) != sorted(fact[key]):
            return _fact_view(permit, fact)
    return None


def _matching_permits(fact: Mapping[str, Any], observation: Observation, baseline: Baseline) -> list[Mapping]:
    if fact["permit"] == NEW:
        return new_permits(observation, baseline)  # 0 or 2+ created: reported as a count
    return [p for p in observation.permits
            if p["number"] == fact["permit"] and fact.get("company", p["company"]) == p["company"]]


def _fact_view(permit: Mapping[str, Any], fact: Mapping[str, Any]) -> dict[str, Any]:
    keys = [k for k in fact if k not in ("exists", "permits", "other_tenant_unchanged")] or ["permit"]
    view = {key: permit.get(key) for key in keys}
    view["permit"] = permit["number"]
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
