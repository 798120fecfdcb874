"""A read plan settled in the turn that started it (execution/inline.py): its outcome is the turn's reply.

services runs it when a turn ends; read_and_write runs it between a list or a count and the write asked after it
("quantas <entidades> agendadas? e passa a 62 pra daqui 40 dias"), so the answer comes before the proposal."""

from __future__ import annotations

from typing import Any

from execution.inline import run_reads_now

from .hooks import settled_apply
from .statemachine import Status
from .turns import Turn


def settle_reads_here(turn: Turn, running: dict[str, Any] | None) -> None:
    """The read plan the turn started runs now, in this transaction and under this lock (execution/inline.py),
    and its outcome is this turn's reply: no second lock of the conversation, nothing read back after the
    commit. A read that did not settle here (over its budget, or handed on) is answered as before.

    A question asked while an earlier operation still runs is answered, and the conversation goes on
    following that operation: its completion hook still finds it, and a write asked meanwhile is still
    refused as busy (no second write planned on the revision the first one is about to change)."""
    for execution in run_reads_now(turn.started_execution):
        if str(execution.pk) == turn.started_execution and settled_apply(turn.conversation, execution,
                                                                         turn.snapshot):
            turn.response = turn.conversation.last_response
            turn.read_settled = True
            if running is not None:
                turn.conversation.active_operation = running["operation"]
                turn.walk(Status.UNDERSTANDING, running["status"])
