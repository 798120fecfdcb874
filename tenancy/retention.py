"""Retention of message text (LGPD): the marker, the maintainer check and the batch helper.

The rows that copy what a user typed belong to several apps (events, planning, conversations); each
redacts its own through `redact_in_batches` and the conversation runtime runs them together
(conversations/retention.py). What stays is everything but the words: ids, decisions, receipts and
audit rows are never touched.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from django.db import connection
from django.db.models import Model, QuerySet

from .db import MAINTAINER_ROLE

# The one value a redacted text takes. The event log's trigger accepts exactly this string
# (events/migrations/0005_message_text_redaction.py): a maintainer may redact the text, never rewrite it.
REDACTED = "[redacted]"


class MaintainerWindowUnavailable(RuntimeError):
    """This process's database login may not act as the maintainer role, so it cannot redact."""


class Batch(NamedTuple):
    changed: int
    after: Any  # the last primary key read: where the next batch starts; None once nothing is left


def maintainer_window_check() -> None:
    """Raise MaintainerWindowUnavailable unless `tenancy.db.purge_window` can be opened here.

    PostgreSQL: the login (session_user) must be a member of the maintainer role — the development
    login (the cluster owner) or a maintainer job's; the production runtime login is not (README)."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT session_user, pg_has_role(session_user, %s, 'MEMBER')", [MAINTAINER_ROLE])
        login, member = cursor.fetchone()
    if not member:
        raise MaintainerWindowUnavailable(
            f"the database login {login!r} is not a member of {MAINTAINER_ROLE}: message texts can only be "
            f"redacted by a maintainer login (README: retention of message text)")


def redacted_key(value: Any, key: str = "text") -> Any:
    """`value` with every string under `key`, at any depth, replaced by REDACTED (a copy; JSON only)."""
    if isinstance(value, dict):
        return {k: (REDACTED if k == key and isinstance(v, str) and v else redacted_key(v, key))
                for k, v in value.items()}
    if isinstance(value, list):
        return [redacted_key(item, key) for item in value]
    return value


def redact_in_batches(rows: QuerySet, *, fields: Sequence[str], rewrite: Callable[[Model], bool],
                      after: Any = None, limit: int = 500) -> Batch:
    """Read up to `limit` rows of `rows` (a tenant-scoped queryset of the candidates) after the
    primary key `after`, let `rewrite` change each in memory (True when it did), and write the
    changed ones in one UPDATE that repeats `rows`' conditions — a row changed meanwhile so that it
    no longer qualifies (a turn touched the conversation, another run redacted it) is left alone.

    Keyset paging by primary key: a row `rewrite` leaves as it is is not read again in this run."""
    page = rows.filter(pk__gt=after) if after is not None else rows
    batch = list(page.order_by("pk").only("pk", *fields)[:limit])
    changed = [row for row in batch if rewrite(row)]
    written = rows.bulk_update(changed, list(fields)) if changed else 0
    return Batch(changed=written, after=batch[-1].pk if len(batch) == limit else None)
