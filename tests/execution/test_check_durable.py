"""The authorization record is durable before the external call (issue 16).

The recorded policy check (`policy_receiptcheck`) authorizes a step's effect. A process runs a step
up to its external call (tests/execution/authorize_then_call.py); there the database server crashes
(SIGKILL to every process of a throwaway cluster: what was only in its memory is gone, what it
committed durably is replayed) and the process is killed. After recovery the check is there.

The cluster's WAL writer waits 10 s between flushes, so a commit that did not wait for its own flush
(`synchronous_commit` off, as the engine once set around the check) is lost by the crash:
CRASH_TEST_RELAX=1 in the subprocess restores that relaxation and this test then fails.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.reliability.chaos import ROOT, Postgres

pytestmark = pytest.mark.skipif(not os.path.exists("/usr/lib/postgresql"), reason="needs PostgreSQL's binaries")


def _env(pg: Postgres) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DB_POOL", "PYTEST_XDIST_WORKER")}
    return {**env, "DATABASE_URL": pg.url, "DEBUG": "0"}


def _crash(pg: Postgres) -> None:
    """SIGKILL to the postmaster and every backend, the WAL writer included; back when all are gone."""
    postmaster = int((pg.dir / "data" / "postmaster.pid").read_text().split()[0])
    # Each of its processes is a session of its own (setsid): they are killed one by one, children first.
    doomed = [*_children(postmaster), postmaster]
    for pid in doomed:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:  # a backend that ended on its own between the listing and the kill
            continue
    pg.process.wait(timeout=20)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(_alive(pid) for pid in doomed):
        time.sleep(0.1)


def _children(parent: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    if int(stat.read().split(")")[-1].split()[1]) == parent:
                        found.append(int(entry))
            except (FileNotFoundError, ProcessLookupError):
                continue
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_the_recorded_check_survives_a_server_crash_at_the_external_call():
    pg = Postgres(fsync="on", synchronous_commit="on", wal_writer_delay="10000ms")
    step = None
    try:
        pg.start()
        migrate = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT,
                                 env=_env(pg), capture_output=True, text=True, timeout=300)
        assert migrate.returncode == 0, migrate.stderr[-3000:]
        step = subprocess.Popen([sys.executable, "-m", "tests.execution.authorize_then_call"], cwd=ROOT,
                                env=_env(pg), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        line = step.stdout.readline()  # blocks until the call is reached (or the process ends)
        assert line.startswith("AT-CALL "), f"{line!r}\n{step.stderr.read()[-3000:] if step.poll() else ''}"
        execution_id = line.split()[1]
        _crash(pg)
        os.killpg(step.pid, signal.SIGKILL)
        step.wait(timeout=20)
        pg.start()  # crash recovery from the write-ahead log
        rows = pg.query("SELECT step_id, ok FROM policy_receiptcheck WHERE execution_id = %s", [execution_id])
        assert rows == [("r0", True)], "the check that authorized the call was lost in the crash"
    finally:
        if step is not None and step.poll() is None:
            os.killpg(step.pid, signal.SIGKILL)
        pg.stop()
