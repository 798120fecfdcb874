"""`manage.py run_scenarios PATH [PATH ...] [--live URL --token T]` — play conversation scenarios (SCENARIOS.md).

In-process by default (test control and fault injection switched on for this run only, Celery
tasks inline); `--live URL` plays against a running server and its workers through the
test-control API, which that server must have enabled. Exit status 1 when any scenario failed.

Standard output carries only the verdicts: the runtime's JSON log lines (on standard error) are
kept to warnings and errors for the run, unless `-v 2` asks for everything.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from demo.scenarios.client import ApiClient
from demo.scenarios.runner import failed_outcome, scenarios_run
from demo.scenarios.transport import LiveTransport, in_process

TOKEN_ENV = "AGENT_TEST_CONTROL_TOKEN"


class Command(BaseCommand):
    help = "Play conversation scenario files (or folders of them) and judge every turn."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", help="scenario files or folders")
        parser.add_argument("--live", metavar="URL", help="play against a running server instead of in-process")
        parser.add_argument("--token", help=f"test-control token for --live (default: ${TOKEN_ENV})")
        parser.add_argument("--settle-seconds", type=float, default=30.0,
                            help="how long a turn may stay busy before it counts as failed (default 30)")

    def handle(self, *args: Any, **options: Any) -> None:
        with _quiet_logs(options["verbosity"] < 2):
            self._play(options)

    def _play(self, options: dict[str, Any]) -> None:
        if options["live"]:
            outcomes = self._live(options)
        else:
            _migrate(self.stdout)
            with in_process() as transport:
                outcomes = scenarios_run(options["paths"], ApiClient(transport), out=self.stdout,
                                         settle_seconds=options["settle_seconds"])
        if not outcomes or any(failed_outcome(o) for o in outcomes):
            sys.exit(1)

    def _live(self, options: dict[str, Any]) -> list:
        token = options["token"] or os.environ.get(TOKEN_ENV)
        if not token:
            raise CommandError(f"--live needs the server's test-control token: --token or ${TOKEN_ENV}")
        transport = LiveTransport(options["live"], token)
        try:
            return scenarios_run(options["paths"], ApiClient(transport), out=self.stdout,
                                 settle_seconds=options["settle_seconds"])
        finally:
            transport.close()


@contextmanager
def _quiet_logs(quiet: bool) -> Iterator[None]:
    """Only warnings and errors from the runtime while the scenarios play (a turn logs at INFO)."""
    root = logging.getLogger()
    saved = root.level
    if quiet:
        root.setLevel(max(saved, logging.WARNING))
    try:
        yield
    finally:
        root.setLevel(saved)


def _migrate(out: Any) -> None:
    """In-process worlds are written to this database: bring its schema up to date first (what
    `make scenarios` and `make run` do), so a stale schema never surfaces as HTTP 500s per turn."""
    from django.core.management import call_command
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if pending:
        out.write(f"applying {len(pending)} pending migration(s) to {connection.settings_dict['NAME']}")
        call_command("migrate", interactive=False, verbosity=0)
