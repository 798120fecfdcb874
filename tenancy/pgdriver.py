"""psycopg's query conversion cache, sized for the statements this project writes.

psycopg converts every statement's `%s` placeholders to `$n` on the client and caches the result
(`psycopg._queries._query2pg`, an LRU of 128) only for statements shorter than 4,096 bytes with at
most 50 parameters: ORMs generate long `INSERT … VALUES (…), (…)` texts of ever-changing length that
would only churn the cache. Ours are different. A turn writes with one statement built from a
fixed template per model (`tenancy.db.write_in_one_statement`): ~10 KB and 100+ parameters, a few
dozen distinct texts in all. Converting one afresh — a regex scan of the whole text — cost ~0.4 ms
of every confirm turn, as much as executing it. Raising the limits and giving the cache its own,
larger, bound keeps the conversion cached; memory stays bounded by the LRU's size.

psycopg has no public setting for this; the two limits are module constants read at each call, so
setting them is how it is done (see https://github.com/psycopg/psycopg/discussions/628). Checked by
tests/tenancy/test_pgdriver.py, which fails if a psycopg upgrade renames them.
"""

from __future__ import annotations

from functools import lru_cache

CACHED_LENGTH = 64 * 1024
CACHED_PARAMS = 2_000
CACHE_SIZE = 512


def conversion_cache_tune() -> None:
    from psycopg import _queries

    if getattr(_queries, "_sst_tuned", False):
        return
    _queries.MAX_CACHED_STATEMENT_LENGTH = max(_queries.MAX_CACHED_STATEMENT_LENGTH, CACHED_LENGTH)
    _queries.MAX_CACHED_STATEMENT_PARAMS = max(_queries.MAX_CACHED_STATEMENT_PARAMS, CACHED_PARAMS)
    _queries._query2pg = lru_cache(maxsize=CACHE_SIZE)(_queries._query2pg_nocache)
    _queries._sst_tuned = True


def conversion_cache_info() -> object:
    from psycopg import _queries

    return _queries._query2pg.cache_info()
