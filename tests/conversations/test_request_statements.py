"""Statements per served turn request (issue #18, point 2), counted on PostgreSQL through the REST API.

A warm conversation (its first turn made the Tool Runtime's session) answers each fast-path turn
without authenticating anything against the database again — the request's token and every tool
call's token come from the cache (tenancy/token_cache.py) — and a question runs its read in the
request (execution/inline.py) without a broker message. The ceilings are today's counts: a change
that adds a statement to a turn fails here and must say why.
"""

from __future__ import annotations

import re

import pytest
from django.conf import settings  # noqa: F401 - read by the skipif condition
from django.db import connection

from execution import publish

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.skipif("'postgresql' not in settings.DATABASES['default']['ENGINE']",
                                 reason="counted on PostgreSQL")]

# (message, reply type, at most this many statements)
TURNS = [
    # 35 before the token cache, 16 before the name lists were kept across turns (list_cache.py) and a
    # searched entity stopped being read again; the retried-turn check is one statement, not three.
    ("abra a permissão 802", "navigation", 8),
    ("qual a validade da permissão 802?", "answer", 5),  # 31, then 14, then 6 (no other type searched for 802)
    # The count's whole read execution runs in the request, in the turn's own transaction: plan, decision,
    # receipt, step claim and check, the call, its timeline and events, the settle — and its outcome is the
    # turn's reply (no completion hook locking the conversation again, nothing read back after the commit).
    # 51, then 46 with the outcome applied by the hook after the commit; 4 of these read the two entity
    # lists its name lookup needs, kept for later turns (list_cache.py)
    # then 27 — and 23 now that it no longer reads the entity in focus (none of its fields is asked) — and 20
    # now that no word of it could name a permit by its company or person (attributes.could_be_said_of_it):
    # the list of permits is not read to look for one — and 18 now that settling keeps the review flag in its
    # UPDATE, moves the plan in one conditional UPDATE and the runtime row in another (no reads before them)
    ("quantos funcionários existem?", "answer", 18),
    # 25, then 14 (the plan's policy facts are the turn's reads), then the plan and its steps in one
    # statement riding on the turn's next write (planning.services.plan_from_steps): 8 — 11 since the
    # count before it no longer lists the permits, and this turn's "para" may say whose permit it is:
    # the list is read here, where it is needed (the same 31 statements over the two turns)
    ("mude a validade para 33 dias", "confirmation", 11),
]
AUTH_TABLES = ("tenancy_accesstoken", "tenancy_membership", "auth_user")


@pytest.fixture
def sent(monkeypatch):
    from config.celery import app

    queue: list[tuple] = []
    monkeypatch.setattr(publish, "send_soon", lambda task, args, countdown=None: queue.append(args))
    app.conf.task_always_eager = False  # as served; the conftest's _eager fixture restores it
    return queue


def _counted(client, conversation: str, text: str) -> tuple[dict, list[str]]:
    seen: list[str] = []

    def record(execute, sql, params, many, context):
        seen.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        body = client.post(f"/agent/conversations/{conversation}/messages", {"text": text}, format="json").json()
    return body, seen


def test_fast_path_turns_stay_within_their_statements(world, operator_client, start, sent):
    conversation = start(operator_client)
    _counted(operator_client, conversation, "abra a permissão 771 da Delta")  # warms the session
    for text, reply, ceiling in TURNS:
        body, seen = _counted(operator_client, conversation, text)
        assert body["response"]["type"] == reply, (text, body["response"])
        auth = [sql for sql in seen if (m := re.search(r'FROM "(\w+)"', sql)) and m.group(1) in AUTH_TABLES]
        assert auth == [], (text, auth)
        assert len(seen) <= ceiling, (text, len(seen), seen)
    assert sent == []  # no read went through the broker; the write only waits for "sim"
