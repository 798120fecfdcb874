"""Throwaway services for the chaos tests: a PostgreSQL cluster, a Redis, daphne, a Celery worker and beat.

Never the machine's shared services: the cluster is `initdb`'d into a temp dir (as the postgres
user when run as root: initdb refuses root) and served on a free port; Redis runs as a plain
subprocess on another free port with no persistence. Only processes started here are ever
stopped or killed, each by its own pid / process group.
"""

from __future__ import annotations

import glob
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import psycopg

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _as_postgres(argv: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


def _stop(process: subprocess.Popen | None, sig: int = signal.SIGTERM) -> None:
    if process is None or process.poll() is not None:
        return
    os.killpg(process.pid, sig)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


class Postgres:
    # Fast and not durable by default: the chaos tests crash processes, not the disk.
    SERVER = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off", "max_connections": "200"}

    def __init__(self, **server: str) -> None:
        self.server = {**self.SERVER, **server}
        self.dir = Path(tempfile.mkdtemp(prefix="sst-chaos-pg-"))
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        pg_bin = sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1]
        self.initdb, self.postgres = f"{pg_bin}/initdb", f"{pg_bin}/postgres"

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/chaos"

    def start(self) -> None:
        data = self.dir / "data"
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
        if not data.exists():
            subprocess.run(_as_postgres([self.initdb, "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync"]),
                           check=True, capture_output=True)
        self.process = subprocess.Popen(
            _as_postgres([self.postgres, "-D", str(data), "-p", str(self.port), "-k", str(self.dir),
                          "-c", "listen_addresses=127.0.0.1",
                          *[arg for key, value in self.server.items() for arg in ("-c", f"{key}={value}")]]),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with psycopg.connect(f"postgres://postgres@127.0.0.1:{self.port}/postgres", autocommit=True) as conn:
                    if not conn.execute("SELECT 1 FROM pg_database WHERE datname = 'chaos'").fetchone():
                        conn.execute("CREATE DATABASE chaos")
                    return
            except psycopg.OperationalError:
                time.sleep(0.2)
        raise RuntimeError("throwaway PostgreSQL did not start")

    def query(self, sql: str, params: Any = None) -> list[tuple]:
        with psycopg.connect(self.url, autocommit=True) as conn:
            cursor = conn.execute(sql, params)
            return cursor.fetchall() if cursor.description else []

    def stop(self) -> None:
        _stop(self.process, signal.SIGINT)  # fast shutdown
        shutil.rmtree(self.dir, ignore_errors=True)


class Redis:
    def __init__(self) -> None:
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                         "--appendonly", "no", "--daemonize", "no"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 15
        import redis

        while time.monotonic() < deadline:
            try:
                if redis.Redis.from_url(self.url).ping():
                    return
            except redis.ConnectionError:
                time.sleep(0.1)
        raise RuntimeError("throwaway Redis did not start")

    def restart(self, down_seconds: float = 1.0) -> None:
        _stop(self.process, signal.SIGKILL)
        time.sleep(down_seconds)
        self.start()

    def stop(self) -> None:
        _stop(self.process, signal.SIGKILL)


class Stack:
    """daphne, a Celery worker and beat on the throwaway PostgreSQL and Redis."""

    def __init__(self) -> None:
        self.pg, self.redis = Postgres(), Redis()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.token = secrets.token_urlsafe(16)
        self.log = Path(tempfile.gettempdir()) / f"sst-chaos-{os.getpid()}.log"
        self.web: subprocess.Popen | None = None
        self.worker: subprocess.Popen | None = None
        self.beat: subprocess.Popen | None = None
        self.beat_dir = Path(tempfile.mkdtemp(prefix="sst-chaos-beat-"))

    def env(self) -> dict[str, str]:
        return {**os.environ, "DATABASE_URL": self.pg.url, "REDIS_URL": self.redis.url, "AGENT_TEST_CONTROL": "1",
                "AGENT_TEST_CONTROL_TOKEN": self.token, "SST_FAULT_INJECTION": "1", "DEBUG": "0",
                "AGENT_RATE_USER_PER_MINUTE": "100000", "AGENT_RATE_TENANT_PER_MINUTE": "100000",
                "EXECUTION_VISIBILITY_TIMEOUT_SECONDS": "2", "ALLOWED_HOSTS": "127.0.0.1,localhost",
                "PYTHONUNBUFFERED": "1", "DJANGO_SETTINGS_MODULE": "config.settings"}

    def _spawn(self, argv: list[str]) -> subprocess.Popen:
        return subprocess.Popen(argv, cwd=ROOT, env=self.env(), stdout=self.log.open("ab"), stderr=subprocess.STDOUT,
                                start_new_session=True)

    def start(self) -> None:
        self.pg.start()
        self.redis.start()
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=self.env(),
                       check=True, capture_output=True)
        self.web = self._spawn([str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(self.port),
                                "config.asgi:application"])
        self.start_worker()
        self.beat = self._spawn([str(BIN / "celery"), "-A", "config", "beat", "--loglevel=WARNING",
                                 f"--schedule={self.beat_dir / 'schedule'}"])
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/login/", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.2)
        raise RuntimeError(f"daphne did not answer; see {self.log}")

    def start_worker(self) -> None:
        self.worker = self._spawn([str(BIN / "celery"), "-A", "config", "worker", "-P", "prefork", "-c", "2", "-O",
                                   "fair", "-Q", "execution,execution_high,default", "--loglevel=INFO",
                                   "--without-gossip", "--without-mingle", "--without-heartbeat",
                                   "-n", f"chaos-{time.monotonic_ns()}@%h"])

    def kill_worker(self) -> None:
        _stop(self.worker, signal.SIGKILL)

    def stop(self) -> None:
        for process in (self.beat, self.worker, self.web):
            _stop(process)
        self.redis.stop()
        self.pg.stop()
        shutil.rmtree(self.beat_dir, ignore_errors=True)

    # --- the API, as a client sees it ---------------------------------------------------------------

    def world(self, world: dict[str, Any]) -> dict[str, Any]:
        response = httpx.post(f"{self.url}/api/_test/worlds", json=world, timeout=60,
                              headers={"X-Test-Control-Token": self.token})
        response.raise_for_status()
        return response.json()

    def fault(self, **rule: Any) -> None:
        httpx.post(f"{self.url}/api/_test/faults", json=rule, timeout=30,
                   headers={"X-Test-Control-Token": self.token}).raise_for_status()

    def facts(self, tenant: str) -> dict[str, Any]:
        return httpx.get(f"{self.url}/api/_test/worlds/{tenant}/facts", timeout=30,
                         headers={"X-Test-Control-Token": self.token}).json()

    def client(self, token: str) -> httpx.Client:
        return httpx.Client(base_url=self.url, headers={"Authorization": f"Token {token}"}, timeout=60)
