"""Capability resolution on the hot path: the in-process snapshot vs the same lookup through the ORM.

Loads the manifest and activates it through the approval services (demo.seeding.registry) inside
one transaction that is rolled back at the end, so the database in DATABASE_URL is left as it was.
Then, in the same run, it times:

- `p50_ms`/`p95_ms`: `snapshot.get(id, tenant=...)` on a snapshot already taken — what a turn or a
  step does for every capability it resolves;
- `baseline`: `capability_get_active(capability_id=...)`, the same answer straight from the ORM;
- `version_check`: `registry_snapshot()` when nothing changed — the one primary-key read each unit
  of work pays to know its snapshot is current (the price of "never served after suspension");
- `rebuild`: building a snapshot after a change (paid once per process per registry change).

    DATABASE_URL=postgres://… REDIS_URL=redis://… .venv/bin/python bench/registry_lookup.py
"""

from __future__ import annotations

import io

from _common import django_setup, emit, ratio, summarize, time_calls

django_setup()

from django.db import transaction  # noqa: E402

from demo.seeding.registry import seed  # noqa: E402
from registry.selectors import (  # noqa: E402
    capability_get_active,
    registry_snapshot,
    snapshot_build,
    snapshot_clear,
)

NAME = "registry_lookup"
N_SNAPSHOT = 50_000
N_DB = 2_000
WARMUP = 200


class _Rollback(Exception):
    pass


def measure() -> dict:
    seed(stdout=io.StringIO())
    snapshot_clear()
    snapshot = registry_snapshot()
    ids = sorted(snapshot.capabilities)
    tenant = "00000000-0000-0000-0000-000000000000"

    def from_snapshot(i: int) -> None:
        assert snapshot.get(ids[i % len(ids)], tenant=tenant) is not None

    def from_orm(i: int) -> None:
        assert capability_get_active(capability_id=ids[i % len(ids)]) is not None

    ours = summarize(time_calls(from_snapshot, n=N_SNAPSHOT, warmup=WARMUP))
    baseline = summarize(time_calls(from_orm, n=N_DB, warmup=WARMUP))
    version_check = summarize(time_calls(lambda i: registry_snapshot(), n=N_DB, warmup=WARMUP))
    rebuild = summarize(time_calls(lambda i: snapshot_build(snapshot.version), n=200, warmup=10))
    return {**ours, "baseline": baseline, "ratio": ratio(ours, baseline), "version_check": version_check,
            "version_check_p50_ms": version_check["p50_ms"], "rebuild_p50_ms": rebuild["p50_ms"],
            "capabilities": len(ids), "target_p50_ms": 0.1, "meets_target": ours["p50_ms"] < 0.1}


def main() -> None:
    result: dict = {}
    try:
        with transaction.atomic():
            result = measure()
            raise _Rollback
    except _Rollback:
        pass
    snapshot_clear()
    emit(NAME, result)


if __name__ == "__main__":
    main()
