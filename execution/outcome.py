"""What one step attempt produces and holds: the StepOutcome a step's work returns to the engine,
the Claim of a step this worker holds, and the shape of a step's error.

Shared by the engine's modules (claim, perform, verify, record, advance) and the batch controller,
so it imports only the models and the Tool Runtime's result type.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tenancy import clock

from .models import StepRun
from .tool_runtime import ToolResult


@dataclass
class StepOutcome:
    status: str  # completed | failed | skipped | unknown | retry
    result: Any = None
    error: dict[str, Any] | None = None
    input: Any = None
    calls: int = 0
    call_ms: float = 0.0
    entries: list[tuple[str, dict[str, Any], Any]] = field(default_factory=list)

    def note(self, type_: str, **data: Any) -> None:
        self.entries.append((type_, data, clock.now()))

    def count(self, result: ToolResult) -> ToolResult:
        self.calls += 1
        self.call_ms += result.latency_ms
        return result


@dataclass(frozen=True)
class Claim:
    """A step this worker holds, and the registry version read by the statement that claimed it
    (None: `perform` reads it)."""

    run: StepRun
    registry_version: int | None = None


def step_error(code: str, *, error_class: str | None = None, status: int | None = None,
               **extra: Any) -> dict[str, Any]:
    return {"code": code, "class": error_class, "status": status, **extra}
