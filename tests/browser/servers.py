"""An ASGI server (daphne) in a subprocess on the test database, for browser tests that need
websockets: pytest-django's live_server is WSGI only. Same environment as the Celery worker
fixture (tests/execution/worker.py): the test database's name, the suite's REDIS_URL, faults on.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from tests.execution.worker import ROOT, WorkerProcess


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class AsgiServer:
    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None
        self.log = Path(tempfile.gettempdir()) / "sst-agent-test-daphne.log"

    def start(self, timeout_s: float = 30, **extra_env: str) -> None:
        env = {**WorkerProcess().env(), "ALLOWED_HOSTS": "127.0.0.1,localhost", **extra_env}
        self.process = subprocess.Popen(
            [str(Path(sys.executable).parent / "daphne"), "-b", "127.0.0.1", "-p", str(self.port),
             "config.asgi:application"],
            cwd=ROOT, env=env, stdout=self.log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"daphne exited; see {self.log}")
            try:
                if httpx.get(f"{self.url}/login/", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"daphne did not answer in {timeout_s}s; see {self.log}")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        self.process = None
