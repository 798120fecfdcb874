"""`make bench`: run every bench/*.py script, then rewrite bench/RESULTS.md from their JSON lines.

Each script follows ../shared/design/BENCH.md (one JSON object as its last stdout line, also
written to bench/results/<name>.json). This runner only orchestrates and tabulates: it adds the
date, the machine's core count and the versions of PostgreSQL, Redis and the main packages, so a
table can be compared with another run's.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
PACKAGES = ["Django", "djangorestframework", "channels", "celery", "psycopg", "redis"]
COLUMNS = ["p50_ms", "p95_ms", "p99_ms", "ratio"]


def _run(script: Path) -> dict:
    started = time.monotonic()
    # Its own process group: a script that times out is stopped with the servers and clients it started.
    proc = subprocess.Popen([sys.executable, str(script)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"name": script.stem, "error": "timed out after 600 s"}
    lines = [line for line in stdout.strip().splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = (stderr or stdout).strip().splitlines()[-5:]
        return {"name": script.stem, "error": " | ".join(tail) or f"exit {proc.returncode}"}
    result = json.loads(lines[-1])
    result["_seconds"] = round(time.monotonic() - started, 1)
    return result


def _server_versions() -> dict[str, str]:
    import psycopg
    import redis

    found = {}
    try:
        with psycopg.connect(os.environ["DATABASE_URL"].rsplit("/", 1)[0] + "/postgres") as conn:
            found["PostgreSQL"] = conn.execute("SHOW server_version").fetchone()[0]
    except Exception as exc:  # noqa: BLE001 - reported, not fatal
        found["PostgreSQL"] = f"unavailable ({exc.__class__.__name__})"
    try:
        found["Redis"] = redis.Redis.from_url(os.environ["REDIS_URL"]).info()["redis_version"]
    except Exception as exc:  # noqa: BLE001
        found["Redis"] = f"unavailable ({exc.__class__.__name__})"
    return found


def _extras(result: dict) -> str:
    skip = {"name", "n", "baseline", "_seconds", *COLUMNS}
    return "; ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in result.items() if k not in skip)


def _table(results: list[dict]) -> list[str]:
    rows = ["| bench | n | p50 ms | p95 ms | p99 ms | ratio | baseline p50 / p95 ms | other keys | s |",
            "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        if "error" in r:
            rows.append(f"| {r['name']} | error: {r['error'][:200]} | | | | | | | |")
            continue
        base = r.get("baseline") or {}
        base_cell = f"{base.get('p50_ms', '')} / {base.get('p95_ms', '')}" if base else ""
        cells = [str(r.get(c, "")) for c in COLUMNS]
        rows.append(f"| {r['name']} | {r.get('n', '')} | {' | '.join(cells)} | {base_cell} | {_extras(r)} | "
                    f"{r.get('_seconds', '')} |")
    return rows


def main() -> int:
    scripts = sorted(p for p in BENCH.glob("*.py") if not p.name.startswith("_"))
    results = []
    for script in scripts:
        print(f"running {script.name} ...", flush=True)
        results.append(_run(script))
    env = {**_server_versions(), **{p: version(p) for p in PACKAGES}}
    lines = ["# Benchmark results", "",
             f"One run of `make bench` on {datetime.now(UTC):%Y-%m-%d %H:%M UTC}, nproc={os.cpu_count()}; "
             + ", ".join(f"{k} {v}" for k, v in env.items()) + ".", "",
             "Each script measures against its baseline in the same run (scripts/bench_all.py); "
             "ratios are ours ÷ baseline, lower is better.", "", *_table(results), ""]
    (BENCH / "RESULTS.md").write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    return 1 if any("error" in r for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
