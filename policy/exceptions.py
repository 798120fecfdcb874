"""The one error type of policy services: a stable machine-readable code and a message."""

from __future__ import annotations


class PolicyError(Exception):
    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
        self.detail = detail
