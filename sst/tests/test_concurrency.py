"""Races on real PostgreSQL connections: numbering, revisions and idempotency keys hold under threads."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection, connections

from conftest import client_for
from sst import inspection_services, services
from sst.clock import today
from sst.models import IdempotencyRecord, Inspection, WorkPermit

from .helpers import call

THREADS = 6

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL"),
]


def race(work: Callable[[], Any], n: int = THREADS) -> list[Any]:
    """Run `work` in n threads released together; their results (or exceptions) in a list."""
    barrier, results, lock = threading.Barrier(n), [], threading.Lock()

    def run() -> None:
        try:
            barrier.wait()
            outcome = work()
        except Exception as exc:  # noqa: BLE001 - the test inspects it
            outcome = exc
        finally:
            connections.close_all()
        with lock:
            results.append(outcome)

    threads = [threading.Thread(target=run) for _ in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return results


def widen(monkeypatch, name: str, module: Any = services) -> None:
    """Make the critical section slow (sleep after `<module>.<name>`), so a missing lock shows."""
    import time

    original = getattr(module, name)

    def slow(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        time.sleep(0.05)
        return result

    monkeypatch.setattr(module, name, slow)


def test_concurrent_creations_get_distinct_next_numbers(world, monkeypatch):
    widen(monkeypatch, "next_number")
    results = race(lambda: services.permit_create(tenant=world.tenant, company=world.alfa, validity_days=5).number)
    assert sorted(results, key=int) == [str(n) for n in range(124, 124 + THREADS)]


def test_two_writes_on_the_same_revision_cannot_both_succeed(world, operator, monkeypatch):
    widen(monkeypatch, "_require_editable")
    clients = [client_for(operator, world.tenant) for _ in range(THREADS)]
    counter = iter(range(THREADS))
    path = f"/permits/{world.permit.pk}/validity"

    def write() -> int:
        days = 40 + next(counter)
        return call(clients[days - 40], "post", path, {"validity_days": days}, **{"If-Match": "1"}).status_code

    assert sorted(race(write)) == [200] + [409] * (THREADS - 1)
    assert WorkPermit.objects.for_tenant(world.tenant).get(pk=world.permit.pk).revision == 2


def test_concurrent_requests_with_one_key_execute_once(world, operator):
    clients = iter([client_for(operator, world.tenant) for _ in range(THREADS)])
    body = {"company": world.alfa.pk, "validity_days": 5}

    def create() -> int:
        return call(next(clients), "post", "/permits", body, **{"Idempotency-Key": "same"}).status_code

    statuses = race(create)
    assert set(statuses) <= {201, 409} and 201 in statuses
    assert WorkPermit.objects.for_tenant(world.tenant).count() == 2
    assert IdempotencyRecord.objects.for_tenant(world.tenant).count() == 1


def test_concurrent_inspection_creations_get_distinct_next_numbers(world, monkeypatch):
    widen(monkeypatch, "next_number", inspection_services)
    results = race(lambda: inspection_services.inspection_create(tenant=world.tenant, company=world.alfa, site="x",
                                                                 scheduled_for=today()).number)
    assert sorted(results, key=int) == [str(n) for n in range(46, 46 + THREADS)]


def test_two_reschedules_on_the_same_inspection_revision_cannot_both_succeed(world, operator, monkeypatch):
    widen(monkeypatch, "_require_scheduled", inspection_services)
    clients = iter([client_for(operator, world.tenant) for _ in range(THREADS)])
    path = f"/inspections/{world.inspection.pk}/reschedule"

    def write() -> int:
        return call(next(clients), "post", path, {"scheduled_for": today().isoformat()},
                    **{"If-Match": "2"}).status_code

    assert sorted(race(write)) == [200] + [409] * (THREADS - 1)
    assert Inspection.objects.for_tenant(world.tenant).get(pk=world.inspection.pk).revision == 3
