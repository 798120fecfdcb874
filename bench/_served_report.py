"""bench/served_turns.py's arithmetic, apart from its servers and clients so it can be tested alone:
what one level's clients saw (`Seen`), its summary per kind and in all, and the issue's targets.

A turn's kind is the part of the mix it plays (KINDS). "Executando…" is a reply of type `execution`
to a turn that asked for an answer or a page (QUESTIONS): the read did not finish within the wait.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from _common import summarize

KINDS = ("navigation", "field", "count", "write", "sim")
QUESTIONS = frozenset({"navigation", "field", "count"})
# Issue 18's targets on this machine, by level.
K_FAST, K_LOAD = 50, 200
FAST_TURNS_PER_S, FAST_P95_MS, FAST_RATIO = 100.0, 500.0, 1.5
LOAD_P95_MS = 1500.0


@dataclass
class Seen:
    """What one level's clients saw, by kind: latency of every answered turn, and what went wrong."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KINDS})
    errors: Counter[str] = field(default_factory=Counter)  # kind → turns still failing after retries
    error_statuses: Counter[str] = field(default_factory=Counter)  # "http 503", "transport", … → turns
    overloaded: Counter[str] = field(default_factory=Counter)  # kind → 503 answers (each retried while allowed)
    executing: Counter[str] = field(default_factory=Counter)  # kind → "Executando…" replies to a question
    unexpected: Counter[str] = field(default_factory=Counter)  # kind → replies of another type than the mix's
    examples: list[str] = field(default_factory=list)
    polls: int = 0  # state reads while a client waited for its last write to settle (not turns)

    def answered(self, kind: str, ms: float, reply_type: str, expected: str, message: str = "") -> None:
        self.latencies[kind].append(ms)
        if reply_type == expected:
            return
        if kind in QUESTIONS and reply_type == "execution":
            self.executing[kind] += 1
        else:
            self.unexpected[kind] += 1
        if len(self.examples) < 5:
            self.examples.append(f"{kind}: wanted {expected}, got {reply_type} {message[:60]!r}")


def _ratio(ours: float, baseline: float | None) -> float | None:
    return round(ours / baseline, 3) if baseline else None


def kind_summary(latencies: list[float], seconds: float, baseline_p50: float | None) -> dict[str, Any]:
    stats = summarize(latencies or [0.0], digits=2)
    stats["n"] = len(latencies)
    return {**stats, "turns_per_s": round(len(latencies) / seconds, 2) if seconds else 0.0,
            "ratio": _ratio(stats["p50_ms"], baseline_p50) if latencies else None}


def level_summary(seen: Seen, seconds: float, baseline: list[float]) -> dict[str, Any]:
    """One level: every turn together (percentiles from every sample), each kind, and the baseline."""
    base = summarize(baseline or [0.0], digits=2)
    base["n"] = len(baseline)
    base_p50 = base["p50_ms"] if baseline else None
    every = [ms for kind in KINDS for ms in seen.latencies[kind]]
    by_kind = {kind: {**kind_summary(seen.latencies[kind], seconds, base_p50), "errors": seen.errors[kind],
                      "overloaded_503": seen.overloaded[kind], "executing_replies": seen.executing[kind],
                      "unexpected_replies": seen.unexpected[kind]} for kind in KINDS}
    return {**kind_summary(every, seconds, base_p50), "seconds": round(seconds, 2),
            "errors": sum(seen.errors.values()), "errors_by_status": dict(seen.error_statuses),
            "overloaded_503": sum(seen.overloaded.values()),
            "executing_replies": sum(seen.executing.values()), "unexpected_replies": sum(seen.unexpected.values()),
            "unexpected_examples": seen.examples, "settle_polls": seen.polls, "baseline": base, "kinds": by_kind}


def lost_or_duplicated(verified: dict[str, Any]) -> int:
    """Every effect that is missing or there twice: turns, SST writes, executions, final validity."""
    return (verified["lost_turns"] + verified["duplicate_turns"] + verified["wrong_final_validity"]
            + abs(verified["sst_writes"]["expected"] - verified["sst_writes"]["recorded"])
            + verified["executions"]["started_by_sim"] - verified["executions"]["completed"])


def targets_met(levels: dict[int, dict[str, Any]]) -> dict[str, bool | None]:
    """The issue's targets, each true or false, or null when its level was not played in this run."""
    fast, load = levels.get(K_FAST), levels.get(K_LOAD)
    met: dict[str, bool | None] = dict.fromkeys(
        ("k50_turns_per_s", "k50_p95", "k50_ratio", "k200_no_errors", "k200_p95", "k200_nothing_lost",
         "k200_no_executing_reply"))
    if fast is not None:
        met["k50_turns_per_s"] = fast["turns_per_s"] >= FAST_TURNS_PER_S
        met["k50_p95"] = fast["n"] > 0 and fast["p95_ms"] <= FAST_P95_MS
        met["k50_ratio"] = fast["ratio"] is not None and fast["ratio"] <= FAST_RATIO
    if load is not None:
        met["k200_no_errors"] = load["errors"] == 0
        met["k200_p95"] = load["n"] > 0 and load["p95_ms"] <= LOAD_P95_MS
        met["k200_nothing_lost"] = load["lost_or_duplicated"] == 0
        met["k200_no_executing_reply"] = load["executing_replies"] == 0
    # false as soon as one played target is missed; true only when every target was played and met
    played = [v for v in met.values() if v is not None]
    met["all"] = False if not all(played) else (True if len(played) == len(met) else None)
    return met
