"""Runs scenario files and reports: each file loaded (invalid → reported, counted failed), played, judged.

`scenarios_run(paths, api, out=…)` returns the outcomes and writes, per failure, the scenario, the
turn and the first expectation that did not hold with what was observed, then the final line
`N passed, M failed`. A scenario with a model script (model_script.py) is played with a scripted
fake model when the transport is in-process; over `--live` it is reported SKIP and counted in
neither number, since the runner cannot script a running server's model.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

from .client import ApiClient
from .loader import InvalidScenario, scenario_files, scenario_load
from .model_script import scripted_model
from .player import Outcome, scenario_play
from .transport import InProcessTransport

LIVE_SKIP = "has a model script; a live server's model cannot be scripted"


def scenarios_run(paths: Iterable[str | Path], api: ApiClient, *, out: TextIO,
                  settle_seconds: float = 30.0) -> list[Outcome]:
    outcomes: list[Outcome] = []
    files = scenario_files(paths)
    for path in files:
        outcome = _play_file(path, api, settle_seconds)
        report_outcome(outcome, out)
        outcomes.append(outcome)
    if not files:
        out.write("no scenario files found\n")
    out.write(summary_line(outcomes) + "\n")
    return outcomes


def _play_file(path: Path, api: ApiClient, settle_seconds: float) -> Outcome:
    try:
        scenario = scenario_load(path)
    except InvalidScenario as exc:
        return Outcome(exc.name or path.stem, str(path), passed=False, invalid=True, reason="; ".join(exc.problems))
    if scenario.model_script is None:
        return scenario_play(scenario, api, settle_seconds=settle_seconds)
    if not isinstance(api.transport, InProcessTransport):
        return Outcome(scenario.name, str(path), passed=False, skipped=True, reason=LIVE_SKIP)
    with scripted_model(scenario.model_script) as model:
        return scenario_play(scenario, api, settle_seconds=settle_seconds, on_turn=model.turn_started)


def report_outcome(outcome: Outcome, out: TextIO) -> None:
    if outcome.passed:
        out.write(f"PASS {outcome.scenario}\n")
    elif outcome.skipped:
        out.write(f"SKIP {outcome.scenario} ({outcome.path}): {outcome.reason}\n")
    elif outcome.invalid:
        out.write(f"INVALID {outcome.scenario} ({outcome.path}): {outcome.reason}\n")
    else:
        out.write(f"FAIL {outcome.scenario} ({outcome.path}) turn {outcome.turn}: {outcome.reason}\n")


def summary_line(outcomes: list[Outcome]) -> str:
    passed = sum(1 for o in outcomes if o.passed)
    failed = sum(1 for o in outcomes if failed_outcome(o))
    return f"{passed} passed, {failed} failed"


def failed_outcome(outcome: Outcome) -> bool:
    return not outcome.passed and not outcome.skipped
