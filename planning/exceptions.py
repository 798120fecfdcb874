from __future__ import annotations

from typing import Any


class PlanInvalid(Exception):
    """PLAN_INVALID: the plan failed validation; nothing was stored and nothing runs."""

    code = "PLAN_INVALID"

    def __init__(self, reasons: list[dict[str, Any]]) -> None:
        super().__init__(", ".join(r["code"] for r in reasons))
        self.reasons = reasons
