"""Failures, refusals and cancellations reach the browser: the websocket contract accepts them with or
without an execution id (before any execution existed there is none), and the consumer delivers them."""

from __future__ import annotations

import uuid

import pytest
from asgiref.sync import async_to_sync
from django.utils import timezone

from conversations.consumers import outgoing_is_valid
from conversations.services import conversation_create
from tenancy.services import access_token_issue

from .conftest import socket
from .test_consumer import aappend

NOT_STARTED = [
    ("EXECUTION_FAILED", {"code": "POLICY_DENIED", "reasons": ["ROLE_NOT_ALLOWED"]}),
    ("EXECUTION_FAILED", {"code": "PLAN_INVALID", "reasons": ["INPUT_INVALID"]}),
    ("EXECUTION_CANCELLED", {"confirmation_id": str(uuid.uuid4()), "plan_id": str(uuid.uuid4()),
                             "before_execution": True}),
    ("EXECUTION_CANCELLED", {"clarification_id": str(uuid.uuid4()), "before_execution": True}),
    ("EXECUTION_CANCELLED", {"confirmation_id": str(uuid.uuid4()), "review": "rejected"}),
]
SETTLED = [
    ("EXECUTION_FAILED", {"execution_id": str(uuid.uuid4()), "status": "failed",
                          "error": {"code": "COMPONENT_ALREADY_PRESENT", "detail": "já está na permissão"}}),
    ("EXECUTION_CANCELLED", {"execution_id": str(uuid.uuid4()), "status": "cancelled", "error": None}),
]


def envelope(type_: str, payload: dict) -> dict:
    return {"id": str(uuid.uuid4()), "conversation_id": str(uuid.uuid4()), "seq": 1, "type": type_,
            "operation_id": None, "timestamp": timezone.now().isoformat(), "actor": "agent", "payload": payload,
            "state_version": 1}


@pytest.mark.parametrize(("type_", "payload"), NOT_STARTED + SETTLED)
def test_the_contract_accepts_failed_refused_and_cancelled_events(type_, payload):
    assert outgoing_is_valid(envelope(type_, payload))


@pytest.mark.parametrize(("type_", "payload"), [
    ("EXECUTION_FAILED", {"execution_id": str(uuid.uuid4())}),  # an execution's settlement says its status
    ("EXECUTION_COMPLETED", {"status": "completed"}),  # a completion always belongs to an execution
    ("EXECUTION_FAILED", {"code": "POLICY_DENIED", "reasons": [], "api_key": "sk-1"}),  # secrets never pass
])
def test_the_contract_still_refuses_malformed_settlements(type_, payload):
    assert not outgoing_is_valid(envelope(type_, payload))


@pytest.mark.django_db(transaction=True)
def test_a_refusal_and_a_cancellation_without_an_execution_are_delivered_over_the_socket(operator, tenant):
    conversation = conversation_create(tenant=tenant, user=operator)
    token = access_token_issue(user=operator, tenant=tenant)

    async def session():
        communicator = socket(conversation.pk, token=token)
        assert (await communicator.connect())[0]
        for type_, payload in NOT_STARTED[:1] + NOT_STARTED[2:3] + SETTLED[:1]:
            await aappend(tenant, conversation.pk, type_, payload)
        received = [await communicator.receive_json_from(timeout=5) for _ in range(3)]
        assert await communicator.receive_nothing(timeout=0.2)
        await communicator.disconnect()
        return received

    received = async_to_sync(session)()
    assert [(e["seq"], e["type"]) for e in received] == [(1, "EXECUTION_FAILED"), (2, "EXECUTION_CANCELLED"),
                                                         (3, "EXECUTION_FAILED")]
    assert received[0]["payload"]["code"] == "POLICY_DENIED"
    assert received[1]["payload"]["before_execution"] is True
