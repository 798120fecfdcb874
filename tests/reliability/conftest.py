"""The reliability and security suite: shared fixtures and its report of how many cases of each kind ran.

Two tiers. The in-process tests (hostile inputs, cross-tenant and cross-user attacks) run in
`make test`. Tests marked `heavy` (schema fuzzing: over a minute) or `chaos` (they restart or kill
servers, which they start themselves with their own PostgreSQL cluster and Redis on free ports:
tests/reliability/chaos.py) run only with RELIABILITY=1 (`make reliability`, which runs the whole
suite) and are skipped otherwise, so `make test` stays fast and never touches a process it did not
start.

Every test adds its cases to the report with `reliability_cases(kind, n)`; at the end of the
session the counts (and pass/fail per test) are written to tests/artifacts/reliability.md and
printed.
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

import pytest

ARTIFACT = Path(__file__).resolve().parents[1] / "artifacts" / "reliability.md"
FULL = os.environ.get("RELIABILITY") == "1"

_cases: Counter[str] = Counter()
_outcomes: dict[str, Counter[str]] = defaultdict(Counter)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "chaos: restarts or kills servers it starts itself (RELIABILITY=1 only)")
    config.addinivalue_line("markers", "heavy: over the `make test` time budget (RELIABILITY=1 only)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/reliability/" not in item.nodeid:
            continue
        if not FULL and ("chaos" in item.keywords or "heavy" in item.keywords):
            item.add_marker(pytest.mark.skip(reason="runs in `make reliability` (RELIABILITY=1)"))


@pytest.fixture
def reliability_cases() -> Callable[[str, int], None]:
    def add(kind: str, n: int = 1) -> None:
        _cases[kind] += n

    return add


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if "tests/reliability/" not in report.nodeid:
        return
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        outcome = "xfailed" if hasattr(report, "wasxfail") else report.outcome
        _outcomes[report.nodeid.split("::")[0].rsplit("/", 1)[-1]][outcome] += 1


def _report() -> str:
    lines = ["# Reliability and security suite", "",
             f"Tier: {'full (RELIABILITY=1)' if FULL else 'fast (chaos tests skipped)'}", "",
             "| kind | cases |", "|---|---|"]
    lines += [f"| {kind} | {n} |" for kind, n in sorted(_cases.items())]
    lines += [f"| **total** | {sum(_cases.values())} |", "", "| module | passed | failed | skipped | xfailed |",
              "|---|---|---|---|---|"]
    for module, counts in sorted(_outcomes.items()):
        lines.append(f"| {module} | {counts['passed']} | {counts['failed']} | {counts['skipped']} | "
                     f"{counts['xfailed']} |")
    return "\n".join(lines) + "\n"


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if not _outcomes:
        return
    text = _report()
    ARTIFACT.parent.mkdir(parents=True, exist_ok=True)
    ARTIFACT.write_text(text, encoding="utf-8")
    terminalreporter.write_sep("=", f"reliability report ({ARTIFACT.relative_to(ARTIFACT.parents[2])})")
    terminalreporter.write_line(text)
