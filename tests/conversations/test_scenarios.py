"""Our own scenario files (other names, numbers, components and phrasings than the shared ones), played
through the project's scenario runner in-process: the same public API a front end uses."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from demo.scenarios.client import ApiClient
from demo.scenarios.runner import scenarios_run
from demo.scenarios.transport import in_process

HERE = Path(__file__).parent / "scenarios"


@pytest.mark.django_db(transaction=True)
def test_our_scenarios_play_green(registry):
    out = io.StringIO()
    with in_process() as transport:
        outcomes = scenarios_run([HERE], ApiClient(transport), out=out, settle_seconds=10)
    assert outcomes and all(o.passed for o in outcomes), out.getvalue()
