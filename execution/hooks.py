"""Completion hooks: how a settled execution reaches the conversation without execution importing
conversations (ARCHITECTURE.md). conversations registers its hook in `AppConfig.ready`; each hook
is called after the settling transaction commits, with the settled Execution. A failing hook is
logged and does not stop the others (the execution's outcome is already committed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import structlog
from django.db import transaction

from .models import Execution

log = structlog.get_logger(__name__)

CompletionHook = Callable[[Execution], None]
_hooks: list[CompletionHook] = []
# Executions that settle while a caller runs them in its own transaction and applies their outcome
# itself (execution/inline.py: a turn's reads): their hooks would only lock and redo what it does.
_to_caller: ContextVar[list[Any] | None] = ContextVar("execution_outcome_to_caller", default=None)


@contextmanager
def outcome_to_caller() -> Iterator[list[Any]]:
    """Inside: an execution that settles is listed (as settled) instead of having its hooks run at commit."""
    settled: list[Any] = []
    token = _to_caller.set(settled)
    try:
        yield settled
    finally:
        _to_caller.reset(token)


def hooks_after_commit(execution: Execution) -> None:
    """What settling does last: the hooks once the transaction commits, or the settled execution to the caller."""
    settled = _to_caller.get()
    if settled is not None:
        settled.append(execution)
        return
    execution_id = execution.pk
    transaction.on_commit(lambda: run_completion_hooks(execution_id))


def register_completion_hook(fn: CompletionHook) -> CompletionHook:
    """Register `fn(execution)`; registering the same function twice keeps one. Usable as a decorator."""
    if fn not in _hooks:
        _hooks.append(fn)
    return fn


def unregister_completion_hook(fn: CompletionHook) -> None:
    if fn in _hooks:
        _hooks.remove(fn)


def run_completion_hooks(execution_id: object) -> None:
    execution = Execution.objects.all_tenants().select_related("plan").filter(pk=execution_id).first()
    if execution is None:
        return
    for hook in list(_hooks):
        try:
            hook(execution)
        except Exception:  # noqa: BLE001 - one broken hook must not hide the outcome from the others
            log.exception("completion_hook_failed", hook=getattr(hook, "__name__", repr(hook)),
                          execution=str(execution_id))
