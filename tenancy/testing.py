"""Test helpers shared across apps."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, transaction

from .db import APP_ROLE


@contextmanager
def as_app_role() -> Iterator[None]:
    """Run SQL inside one transaction as the production application role (not a maintainer)."""
    with transaction.atomic(), connection.cursor() as cursor:
        # Deferred FK checks pending from the test's own inserts would make TRUNCATE fail for another reason.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(f"SET LOCAL ROLE {APP_ROLE}")
        yield
