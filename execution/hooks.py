"""Completion hooks: how a settled execution reaches the conversation without execution importing
conversations (ARCHITECTURE.md). conversations registers its hook in `AppConfig.ready`; each hook
is called after the settling transaction commits, with the settled Execution. A failing hook is
logged and does not stop the others (the execution's outcome is already committed).
"""

from __future__ import annotations

from collections.abc import Callable

import structlog

from .models import Execution

log = structlog.get_logger(__name__)

CompletionHook = Callable[[Execution], None]
_hooks: list[CompletionHook] = []


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
