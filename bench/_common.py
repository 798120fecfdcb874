"""The BENCH.md convention in one place: timing, percentiles from every sample, one JSON line.

    from _common import django_setup, summarize, time_calls, emit
    django_setup()
    samples = time_calls(fn, n=1000, warmup=100)     # milliseconds, one per call
    emit("my_bench", {**summarize(samples), "baseline": summarize(other), "ratio": ...})

Percentiles use the nearest-rank method on all samples (no averaging of averages); `emit` prints
exactly one JSON line (last on stdout) and writes the same object to bench/results/<name>.json.
"""

from __future__ import annotations

import io
import json
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"


def django_setup() -> None:
    """Make the project importable and configure Django (settings from the environment, as the tests)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def percentile(sorted_samples: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of already sorted samples."""
    if not sorted_samples:
        raise ValueError("no samples")
    rank = max(1, math.ceil(q / 100 * len(sorted_samples)))
    return sorted_samples[rank - 1]


def summarize(samples_ms: Sequence[float], digits: int = 5) -> dict[str, Any]:
    ordered = sorted(samples_ms)
    return {"n": len(ordered), **{f"p{q}_ms": round(percentile(ordered, q), digits) for q in (50, 95, 99)}}


def time_calls(fn: Callable[[int], Any], *, n: int, warmup: int = 0) -> list[float]:
    """Call fn(i) `warmup` times untimed, then `n` times timed; one sample (ms) per call."""
    for i in range(warmup):
        fn(i)
    clock = time.perf_counter_ns
    samples = []
    for i in range(n):
        start = clock()
        fn(i)
        samples.append((clock() - start) / 1e6)
    return samples


def ratio(ours: dict[str, Any], baseline: dict[str, Any], key: str = "p50_ms") -> float | None:
    return round(ours[key] / baseline[key], 5) if baseline.get(key) else None


def emit(name: str, result: dict[str, Any]) -> dict[str, Any]:
    """Write bench/results/<name>.json and print the same object as the last stdout line."""
    payload = {"name": name, **result}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps(payload, sort_keys=True), flush=True)
    return payload


def throwaway_database(suffix: str, needs: str) -> tuple[str, str]:
    """(admin URL, URL of `<DATABASE_URL's name>_<suffix>`): a database a bench creates and drops itself."""
    from urllib.parse import urlparse, urlunparse

    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres") or not os.environ.get("REDIS_URL", "").startswith("redis"):
        sys.exit(f"this bench needs DATABASE_URL=postgres://… and REDIS_URL=redis://… ({needs})")
    parsed = urlparse(url)
    name = f"{parsed.path.strip('/')}_{suffix}"
    return urlunparse(parsed._replace(path="/postgres")), urlunparse(parsed._replace(path=f"/{name}"))


def recreate_database(admin_url: str, name: str, *, create: bool) -> None:
    """Drop `name` (forcing out connections) and, with `create`, make it anew."""
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if create:
            conn.execute(f'CREATE DATABASE "{name}"')


def run_on_throwaway_database(suffix: str, needs: str, measure: Callable[[], dict[str, Any]], *,
                              worker: bool = False) -> dict[str, Any]:
    """Create `<db>_<suffix>`, point Django at it, migrate, optionally start a real Celery worker,
    run `measure()`, and drop the database again whatever happens."""
    from contextlib import ExitStack
    from urllib.parse import urlparse

    admin_url, bench_url = throwaway_database(suffix, needs)
    name = urlparse(bench_url).path.strip("/")
    recreate_database(admin_url, name, create=True)
    os.environ["DATABASE_URL"] = bench_url
    django_setup()
    from django.core.management import call_command
    from django.db import connections

    try:
        call_command("migrate", verbosity=0, stdout=io.StringIO())
        with ExitStack() as stack:
            if worker:
                from tests.execution.worker import WorkerProcess, purge_queues

                purge_queues()
                stack.callback(purge_queues)
                process = WorkerProcess()
                stack.callback(process.stop)
                process.start()
            return measure()
    finally:
        connections.close_all()
        recreate_database(admin_url, name, create=False)


def background_settle() -> float:
    """Wait until what this process handed to its background threads has been done — event
    publication (events.publisher), step messages (execution.publish) and log lines
    (config.logqueue) — and return the milliseconds waited. Called before a timed call, so it does
    not share the CPU with the leftovers of an untimed one."""
    import logging

    from events import publisher
    from execution import publish

    start = time.perf_counter_ns()
    publisher.flush(5)
    publish.flush(5)
    for handler in logging.getLogger().handlers:
        getattr(handler, "drain", lambda: None)()
    return (time.perf_counter_ns() - start) / 1e6


def enqueued_after(call_ms: float) -> float:
    """`call_ms` plus the wait until the step messages the call handed over are in the broker."""
    from execution import publish

    start = time.perf_counter_ns()
    publish.flush(None)
    return call_ms + (time.perf_counter_ns() - start) / 1e6


def free_port() -> int:
    """A free TCP port on 127.0.0.1 for a server a bench starts (the OS picks it)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
