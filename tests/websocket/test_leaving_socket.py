"""A socket that goes away while an event is on its way costs the other sockets of its process nothing.

daphne cancels the application of a closed socket, and cancels it again when it has not finished
after application_close_timeout (on Python 3.11 asyncio.wait_for can swallow the first cancel), so
a consumer's channel-layer receive can end at any moment, also while an event for its group is
arriving. With the list-based RedisChannelLayer one receive per process took the events of all the
process's consumers off Redis; cancelled with the reply unread, redis-py dropped it and the event
never reached the others (bench/ws_fanout.py waited 60 s for it at 500 sockets). Here the leaving
receiver joins first, so with that layer it is the process's receiver, and the event reaches this
process's Redis connection while the loop is held (as on a busy server) before it is cancelled.
"""

from __future__ import annotations

import asyncio
import threading

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connections

from conversations.services import conversation_create
from events import publisher
from events.selectors import group_name
from tenancy.services import access_token_issue

from .conftest import socket
from .test_consumer import append, progress

pytestmark = pytest.mark.django_db(transaction=True)


def append_while_the_loop_is_held(tenant, conversation_id) -> None:
    """Commit and publish from another thread and wait until Redis has sent the event on, without
    letting this thread's event loop read it yet."""

    def commit() -> None:
        append(tenant, conversation_id, payload=progress(1))
        connections.close_all()

    writer = threading.Thread(target=commit)
    writer.start()
    writer.join()
    publisher.flush(5)


def test_the_sockets_that_stay_receive_the_event_a_cancelled_receive_was_waiting_for(operator, tenant):
    conversation = conversation_create(tenant=tenant, user=operator)
    token = access_token_issue(user=operator, tenant=tenant)

    async def session():
        layer = get_channel_layer()
        leaving = await layer.new_channel()  # what a consumer does before its sockets' messages
        await layer.group_add(group_name(tenant_id=tenant.pk, conversation_id=conversation.pk), leaving)
        receive = asyncio.ensure_future(layer.receive(leaving))
        await asyncio.sleep(0.2)  # waiting on Redis before the other consumers start
        staying = [socket(conversation.pk, token=token) for _ in range(2)]
        for each in staying:
            assert (await each.connect())[0]
        assert await staying[-1].receive_nothing(timeout=0.2)  # every consumer idle, waiting for events
        append_while_the_loop_is_held(tenant, conversation.pk)
        receive.cancel()  # daphne ending the application of the socket that closed
        received = [(await each.receive_json_from(timeout=5))["seq"] for each in staying]
        for each in staying:
            await each.disconnect()
        await asyncio.gather(receive, return_exceptions=True)
        return received

    assert async_to_sync(session)() == [1, 1]
