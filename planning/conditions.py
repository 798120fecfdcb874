"""Conditions and assertions: one small evaluator for a step's `condition` (run or skip), its pre-
and postconditions, and a capability's verification assertions (PRD-006 §5.3, §27-§28).

An assertion is `{"path": <path in the subject>, "op": <op>, "value": <expected>}`; a condition is
the same with `"ref"` (a `${...}` reference) instead of a path. `expired` is the one domain op:
true when `created_at + validity_days` is in the past (`path` names the permit object).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from django.utils.dateparse import parse_datetime

from tenancy import clock

from .references import MISSING, get_path

OPS = frozenset({"equals", "not_equals", "contains", "not_contains", "in", "not_in", "lt", "lte", "gt", "gte",
                 "exists", "not_exists", "truthy", "falsy", "count_equals", "expired", "not_expired"})


def _expired(subject: Any, now: datetime) -> bool | None:
    if not isinstance(subject, Mapping):
        return None
    created, days = subject.get("created_at"), subject.get("validity_days")
    created_at = parse_datetime(created) if isinstance(created, str) else created
    if not isinstance(created_at, datetime) or not isinstance(days, int):
        return None
    return created_at + timedelta(days=days) < now


def holds(actual: Any, op: str, expected: Any = None, *, now: datetime | None = None) -> bool:
    """Whether `actual op expected`. A missing value satisfies only `not_exists` / `falsy` / `not_contains`."""
    if op == "exists":
        return actual is not MISSING and actual is not None
    if op == "not_exists":
        return actual is MISSING or actual is None
    if op in ("expired", "not_expired"):
        expired = _expired(None if actual is MISSING else actual, now or clock.now())
        return expired is not None and expired == (op == "expired")
    if actual is MISSING:
        return op in ("falsy", "not_contains")
    comparisons = {
        "equals": lambda: actual == expected,
        "not_equals": lambda: actual != expected,
        "contains": lambda: isinstance(actual, list | str) and expected in actual,
        "not_contains": lambda: not (isinstance(actual, list | str) and expected in actual),
        "in": lambda: isinstance(expected, list) and actual in expected,
        "not_in": lambda: isinstance(expected, list) and actual not in expected,
        "truthy": lambda: bool(actual),
        "falsy": lambda: not actual,
        "count_equals": lambda: isinstance(actual, list)
        and len(actual) == (len(expected) if isinstance(expected, list) else expected),
    }
    if op in comparisons:
        return bool(comparisons[op]())
    try:
        return {"lt": actual < expected, "lte": actual <= expected, "gt": actual > expected,
                "gte": actual >= expected}[op]
    except TypeError:
        return False


def assertion_holds(subject: Any, assertion: Mapping[str, Any], *, now: datetime | None = None) -> bool:
    path = assertion.get("path", "")
    actual = subject if path in ("", None) else get_path(subject, path)
    return holds(actual, assertion["op"], assertion.get("value"), now=now)
