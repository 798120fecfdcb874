"""Small helpers for the SST API tests."""

from __future__ import annotations

from typing import Any

from rest_framework.test import APIClient

BASE = "/api/sst"


def call(client: APIClient, method: str, path: str, body: Any = None, **headers: str):
    """`headers` by HTTP name: call(c, "post", "/permits", {...}, **{"If-Match": "1"})."""
    meta = {"HTTP_" + name.upper().replace("-", "_"): value for name, value in headers.items()}
    send = getattr(client, method.lower())
    if method.lower() in ("get", "head"):
        return send(BASE + path, body or {}, **meta)
    return send(BASE + path, body, format="json", **meta)
