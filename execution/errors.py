"""How the Tool Runtime classifies a call's result (ARCHITECTURE.md invariants 8 and 9).

Retried only: timeouts, 429, 502, 503, 504 and transient network errors. Never: 400, 401, 403,
404, 409, validation and business-rule errors. An outcome is UNKNOWN when the request may have
reached the API and no answer came back (a timeout or a dropped connection after sending): a
non-idempotent write in that state is verified by reading, never retried blindly.
"""

from __future__ import annotations

from enum import StrEnum


class Outcome(StrEnum):
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    UNKNOWN = "unknown"


class ErrorClass(StrEnum):
    TIMEOUT = "TIMEOUT"
    RATE_LIMIT = "RATE_LIMIT"
    TEMPORARY_UNAVAILABLE = "TEMPORARY_UNAVAILABLE"
    NETWORK = "NETWORK"
    SERVER_ERROR = "SERVER_ERROR"
    VALIDATION = "VALIDATION"
    UNAUTHORIZED = "UNAUTHORIZED"
    FORBIDDEN = "FORBIDDEN"
    NOT_FOUND = "NOT_FOUND"
    CONFLICT = "CONFLICT"
    BUSINESS_RULE = "BUSINESS_RULE"
    CLIENT_ERROR = "CLIENT_ERROR"


RETRYABLE = frozenset(
    {ErrorClass.TIMEOUT, ErrorClass.RATE_LIMIT, ErrorClass.TEMPORARY_UNAVAILABLE, ErrorClass.NETWORK}
)

_BY_STATUS = {
    400: ErrorClass.VALIDATION,
    401: ErrorClass.UNAUTHORIZED,
    403: ErrorClass.FORBIDDEN,
    404: ErrorClass.NOT_FOUND,
    409: ErrorClass.CONFLICT,
    412: ErrorClass.CONFLICT,
    422: ErrorClass.BUSINESS_RULE,
    429: ErrorClass.RATE_LIMIT,
    502: ErrorClass.TEMPORARY_UNAVAILABLE,
    503: ErrorClass.TEMPORARY_UNAVAILABLE,
    504: ErrorClass.TEMPORARY_UNAVAILABLE,
}


def classify_status(status: int) -> ErrorClass | None:
    """None for a success; otherwise the class of an HTTP error status."""
    if status < 400:
        return None
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    return ErrorClass.SERVER_ERROR if status >= 500 else ErrorClass.CLIENT_ERROR
