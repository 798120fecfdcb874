"""bench/served_turns.py's arithmetic on hand-made samples: what counts as an "Executando…" reply, the
per-kind and whole-level figures, the ratio to the baseline, and each target true, false or unplayed.
Pure Python: no server, no database."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _served_report import KINDS, Seen, level_summary, lost_or_duplicated, targets_met  # noqa: E402


def _seen(ms_by_kind: dict[str, list[float]]) -> Seen:
    seen = Seen()
    expected = {"navigation": "navigation", "field": "answer", "count": "answer", "write": "confirmation",
                "sim": "execution"}
    for kind, samples in ms_by_kind.items():
        for ms in samples:
            seen.answered(kind, ms, expected[kind], expected[kind])
    return seen


def test_an_execution_reply_to_a_question_is_executing_and_elsewhere_unexpected() -> None:
    seen = Seen()
    seen.answered("count", 10.0, "execution", "answer", "Executando: contar funcionários")
    seen.answered("write", 10.0, "error", "confirmation")
    seen.answered("sim", 10.0, "execution", "execution")
    assert seen.executing == {"count": 1}
    assert seen.unexpected == {"write": 1}
    assert len(seen.examples) == 2 and seen.examples[0].startswith("count: wanted answer, got execution")


def test_level_summary_takes_percentiles_from_every_sample_and_the_ratio_to_the_baseline_p50() -> None:
    seen = _seen({"navigation": [10.0] * 10 + [100.0], "count": [30.0] * 9})
    seen.errors["field"] += 2
    seen.error_statuses["http 500"] += 2
    seen.overloaded["count"] += 3
    seen.polls += 4
    report = level_summary(seen, seconds=2.0, baseline=[10.0] * 20)
    assert report["n"] == 20 and report["turns_per_s"] == 10.0
    assert report["p50_ms"] == 10.0 and report["p95_ms"] == 30.0 and report["p99_ms"] == 100.0
    assert report["baseline"]["p50_ms"] == 10.0 and report["ratio"] == 1.0
    assert report["kinds"]["count"]["ratio"] == 3.0 and report["kinds"]["count"]["overloaded_503"] == 3
    assert report["errors"] == 2 and report["errors_by_status"] == {"http 500": 2} and report["overloaded_503"] == 3
    assert set(report["kinds"]) == set(KINDS) and report["kinds"]["write"]["ratio"] is None
    assert report["settle_polls"] == 4 and report["n"] == 20  # a poll while a write settles is not a turn


def test_no_baseline_sample_gives_no_ratio() -> None:
    report = level_summary(_seen({"navigation": [5.0]}), seconds=1.0, baseline=[])
    assert report["ratio"] is None and report["baseline"]["n"] == 0


def test_lost_or_duplicated_adds_every_missing_or_doubled_effect() -> None:
    verified = {"lost_turns": 1, "duplicate_turns": 2, "wrong_final_validity": 1,
                "sst_writes": {"expected": 10, "recorded": 11}, "executions": {"started_by_sim": 10, "completed": 9}}
    assert lost_or_duplicated(verified) == 6


def _level(**overrides: object) -> dict:
    return {"n": 100, "turns_per_s": 150.0, "p95_ms": 400.0, "ratio": 1.2, "errors": 0, "lost_or_duplicated": 0,
            "executing_replies": 0, **overrides}


def test_targets_met_when_every_level_meets_them() -> None:
    met = targets_met({50: _level(), 200: _level(p95_ms=1400.0)})
    assert met["all"] is True and all(v is True for v in met.values())


def test_one_missed_target_is_false_and_so_is_all() -> None:
    met = targets_met({50: _level(ratio=1.6), 200: _level(executing_replies=3)})
    assert met["k50_ratio"] is False and met["k200_no_executing_reply"] is False
    assert met["k50_turns_per_s"] is True and met["all"] is False


def test_a_level_not_played_leaves_its_targets_null() -> None:
    met = targets_met({10: _level(), 50: _level()})
    assert met["k50_p95"] is True and met["k200_p95"] is None and met["all"] is None
    assert targets_met({50: _level(turns_per_s=12.0)})["all"] is False
