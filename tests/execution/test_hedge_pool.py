"""Hedged reads run on kept threads (execution/hedge_pool.py): a thread, its database connection and its
tool session serve one hedged read after another, instead of a new connection and token for each."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from execution import hedge_pool

pytestmark = pytest.mark.django_db(transaction=True)


def _backend_pid() -> tuple[str, int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()" if connection.vendor == "postgresql" else "SELECT 1")
        return threading.current_thread().name, cursor.fetchone()[0]


def test_reads_one_after_another_reuse_a_kept_thread_and_its_connection():
    hedge_pool.close_connections()
    first = hedge_pool.submit(_backend_pid).result(timeout=30)
    second = hedge_pool.submit(_backend_pid).result(timeout=30)

    assert first[0].startswith("hedge")
    assert first == second, "the same thread answered, on the same database session"


def test_closing_ends_every_threads_connection_and_the_next_read_starts_anew():
    hedge_pool.submit(_backend_pid).result(timeout=30)
    before = hedge_pool.submit(_backend_pid).result(timeout=30)
    hedge_pool.close_connections()
    after = hedge_pool.submit(_backend_pid).result(timeout=30)

    if connection.vendor == "postgresql":
        assert after[1] != before[1], "a new database session after the close"
    hedge_pool.close_connections()  # leave none open for the test database's drop
