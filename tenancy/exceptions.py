"""DRF's error shape, plus a stable machine-readable `code` on every error answer."""

from __future__ import annotations

from rest_framework import exceptions
from rest_framework.views import exception_handler as drf_exception_handler


def exception_handler(exc, context):
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        data = response.data if isinstance(response.data, dict) else {"non_field_errors": response.data}
        response.data = {"code": "invalid", "detail": "Invalid input.", "errors": data}
    elif isinstance(response.data, dict) and "code" not in response.data:
        detail = response.data.get("detail", "")
        response.data = {"code": getattr(detail, "code", None) or exc.default_code, "detail": str(detail)}
    return response
