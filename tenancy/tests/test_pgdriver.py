"""tenancy.pgdriver: the long statements a turn writes keep psycopg's client-side conversion cached."""

from __future__ import annotations

import pytest
from django.conf import settings  # noqa: F401 - read by the skipif condition
from django.db import connection
from psycopg import _queries

from tenancy.pgdriver import CACHED_LENGTH, conversion_cache_info

pytestmark = [pytest.mark.django_db,
              pytest.mark.skipif("'postgresql' not in settings.DATABASES['default']['ENGINE']",
                                 reason="psycopg")]


def test_the_limits_psycopg_reads_are_raised_at_startup():
    # Fails if a psycopg upgrade renames what tenancy.pgdriver sets (then the cache silently stops).
    assert _queries.MAX_CACHED_STATEMENT_LENGTH >= CACHED_LENGTH
    assert _queries.MAX_CACHED_STATEMENT_PARAMS >= 1000


def test_a_long_statement_with_many_parameters_is_converted_once():
    values = list(range(300))
    sql = "SELECT " + ", ".join(["%s::int"] * len(values)) + " /* " + "x" * 6000 + " */"
    assert len(sql) > 4096  # beyond psycopg's own limits: 4,096 bytes, 50 parameters
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        before = conversion_cache_info()
        cursor.execute(sql, values)
        assert cursor.fetchone()[299] == 299
    after = conversion_cache_info()
    assert after.hits == before.hits + 1 and after.misses == before.misses
