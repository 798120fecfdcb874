"""A real Celery worker process on the test database, for the `worker`-marked tests.

One worker per session (prefork, two processes) listening on the execution queue, started with
the test database's name and the suite's REDIS_URL; `restart()` kills the whole process group
with SIGKILL (parent and pool children, like a machine dying) and starts a fresh one. The short
visibility timeout makes Redis hand a dead worker's unacknowledged task to the next one quickly.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
VISIBILITY_TIMEOUT_S = 2


class WorkerProcess:
    def __init__(self) -> None:
        self.process: subprocess.Popen | None = None
        self.log = Path(tempfile.gettempdir()) / "sst-agent-test-worker.log"

    def env(self) -> dict[str, str]:
        db = connection.settings_dict
        credentials = f"{db['USER']}:{db['PASSWORD']}" if db.get("PASSWORD") else db["USER"]
        url = f"postgres://{credentials}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
        # AGENT_TEST_CONTROL: the worker reads the shared test clock as the servers and tests that move it
        # do (tenancy/clock.py); receipts and TTLs stamped on a moved clock are checked on the same one.
        return {**os.environ, "DATABASE_URL": url, "REDIS_URL": os.environ["REDIS_URL"], "SST_FAULT_INJECTION": "1",
                "AGENT_TEST_CONTROL": "1",
                "EXECUTION_VISIBILITY_TIMEOUT_SECONDS": str(VISIBILITY_TIMEOUT_S), "PYTHONUNBUFFERED": "1"}

    def start(self) -> None:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        out = self.log.open("ab")
        self.process = subprocess.Popen(
            [str(Path(sys.executable).parent / "celery"), "-A", "config", "worker", "-P", "prefork", "-c", "2",
             "--loglevel=INFO", "-Q", "execution,execution_high", "-O", "fair", "--without-gossip", "--without-mingle",
             "--without-heartbeat",
             "-n", f"test-{time.monotonic_ns()}@%h"],
            cwd=ROOT, env=self.env(), stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        self.wait_ready()

    def wait_ready(self, timeout_s: float = 30) -> None:
        from execution.tasks import ping_task

        result = ping_task.apply_async((7,))
        assert result.get(timeout=timeout_s) == 7

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        self.process = None

    def restart(self) -> None:
        self.kill()
        self.start()

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        self.process = None


_shared: WorkerProcess | None = None


def shared_worker() -> WorkerProcess:
    """The session's one worker process. Another test module may import the session fixture (each
    import is a fixture of its own); two live workers would take each other's messages, and a test
    that stops "the" worker so that nobody consumes would still see its queue drained."""
    global _shared
    if _shared is None:
        _shared = WorkerProcess()
    return _shared


def purge_queues() -> None:
    from config.celery import app

    with app.connection_for_write() as conn:
        for queue in ("execution", "execution_high"):
            conn.default_channel.queue_purge(queue)
    assert settings.CELERY_BROKER_URL.startswith("redis")
