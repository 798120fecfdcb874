"""The conversation status machine (PRD-010 §6) as an explicit transition table.

A turn walks several statuses inside one transaction (UNDERSTANDING → PLANNING →
CONFIRMATION_REQUIRED); every hop is checked against the table and an illegal one raises, so a
bug can never leave a conversation in a state the design does not know. EXPIRED is never a
conversation status: it belongs to a pending clarification or confirmation.
"""

from __future__ import annotations

from django.db import models


class Status(models.TextChoices):
    IDLE = "IDLE"
    UNDERSTANDING = "UNDERSTANDING"
    CLARIFICATION_REQUIRED = "CLARIFICATION_REQUIRED"
    PLANNING = "PLANNING"
    CONFIRMATION_REQUIRED = "CONFIRMATION_REQUIRED"
    EXECUTING = "EXECUTING"
    CANCELLING = "CANCELLING"
    PARTIAL_SUCCESS = "PARTIAL_SUCCESS"
    SUCCESS = "SUCCESS"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"
    CORRECTING = "CORRECTING"
    RESUMING = "RESUMING"
    CLOSED = "CLOSED"


S = Status
# Outcomes a turn may settle in; each accepts the next request.
RESTING = frozenset({S.IDLE, S.CLARIFICATION_REQUIRED, S.CONFIRMATION_REQUIRED, S.EXECUTING, S.CANCELLING,
                     S.PARTIAL_SUCCESS, S.SUCCESS, S.FAILED, S.CANCELLED})
TERMINAL_OUTCOMES = frozenset({S.PARTIAL_SUCCESS, S.SUCCESS, S.FAILED, S.CANCELLED})
SETTLING = frozenset({S.UNDERSTANDING, S.PLANNING, S.EXECUTING, S.CANCELLING, S.RESUMING, S.CORRECTING})

_ENTRY = {S.UNDERSTANDING, S.RESUMING, S.CLOSED}
TRANSITIONS: dict[str, frozenset[str]] = {
    S.IDLE: frozenset(_ENTRY),
    # Understanding ends in a reply (back to a resting status) or moves the work forward.
    S.UNDERSTANDING: frozenset({S.IDLE, S.CLARIFICATION_REQUIRED, S.PLANNING, S.CORRECTING, S.CONFIRMATION_REQUIRED,
                                S.EXECUTING, S.CANCELLING, S.CANCELLED, S.FAILED, S.SUCCESS, S.PARTIAL_SUCCESS,
                                S.RESUMING}),
    S.CLARIFICATION_REQUIRED: frozenset({*_ENTRY, S.IDLE, S.CANCELLED}),
    S.PLANNING: frozenset({S.CONFIRMATION_REQUIRED, S.EXECUTING, S.FAILED, S.CLARIFICATION_REQUIRED, S.SUCCESS,
                           S.IDLE}),
    # Confirming by button goes straight to EXECUTING; expiry (sweep) leaves nothing pending.
    S.CONFIRMATION_REQUIRED: frozenset({*_ENTRY, S.EXECUTING, S.CANCELLED, S.PLANNING, S.IDLE}),
    S.EXECUTING: frozenset({S.UNDERSTANDING, S.SUCCESS, S.PARTIAL_SUCCESS, S.FAILED, S.CANCELLING, S.CANCELLED}),
    S.CANCELLING: frozenset({S.UNDERSTANDING, S.CANCELLED, S.SUCCESS, S.PARTIAL_SUCCESS, S.FAILED}),
    S.PARTIAL_SUCCESS: frozenset(_ENTRY),
    S.SUCCESS: frozenset(_ENTRY),
    S.FAILED: frozenset(_ENTRY),
    S.CANCELLED: frozenset(_ENTRY),
    S.CORRECTING: frozenset({S.PLANNING, S.CLARIFICATION_REQUIRED, S.IDLE, S.FAILED, S.SUCCESS,
                             S.CONFIRMATION_REQUIRED, S.PARTIAL_SUCCESS, S.CANCELLED, S.EXECUTING}),
    S.RESUMING: frozenset({S.PLANNING, S.EXECUTING, S.CONFIRMATION_REQUIRED, S.CLARIFICATION_REQUIRED, S.FAILED,
                           S.IDLE, S.SUCCESS, S.PARTIAL_SUCCESS, S.CANCELLED, S.UNDERSTANDING}),
    S.CLOSED: frozenset(),
}


class IllegalTransition(RuntimeError):
    def __init__(self, current: str, new: str) -> None:
        super().__init__(f"illegal conversation transition {current} → {new}")
        self.current, self.new = current, new


def check_transition(current: str, new: str) -> str:
    """`new` if the table allows current → new (staying put is always allowed), else raise."""
    if current == new or new in TRANSITIONS.get(current, frozenset()):
        return new
    raise IllegalTransition(current, new)
