"""Domain errors raised by sst services and selectors; the API layer maps them to HTTP answers.

Services stay free of DRF: they raise these, and `sst.api_base` turns them into 404 / 409 / 422
with a stable `code` and a localized `detail`.
"""

from __future__ import annotations


class SstError(Exception):
    code = "error"

    def __init__(self, code: str | None = None, **params: object) -> None:
        self.code = code or self.code
        self.params = params
        super().__init__(f"{self.code} {params}")


class ObjectNotFound(SstError):
    """Missing or another tenant's: the same answer, so nothing leaks."""

    code = "not_found"


class RevisionMismatch(SstError):
    code = "REVISION_MISMATCH"


class BusinessRuleError(SstError):
    """A well-formed request the rules refuse (422), e.g. PERMIT_APPROVED."""


class InvalidReference(SstError):
    """A body field names an object the tenant does not have (400 field error)."""

    code = "invalid"

    def __init__(self, field: str, value: object) -> None:
        super().__init__(field=field, value=value)
        self.field = field
