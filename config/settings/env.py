"""Typed environment helpers.

Every setting read from the environment goes through one of these, so a malformed value fails at
start-up with ImproperlyConfigured naming the variable instead of surfacing later as a confusing
runtime error. Settings modules never touch os.environ directly.
"""

from __future__ import annotations

import os
from urllib.parse import urlparse

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def _raw(name: str) -> str | None:
    value = os.environ.get(name)
    return None if value is None else value.strip()


def env_str(name: str, default: str | None = None) -> str | None:
    value = _raw(name)
    return default if value in (None, "") else value


def env_bool(name: str, default: bool = False) -> bool:
    value = _raw(name)
    if value is None:
        return default
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {value!r}")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    value = _raw(name)
    if value in (None, ""):
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {value!r}") from None
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name} must be >= {minimum}, got {number}")
    return number


def env_list(name: str, default: list[str]) -> list[str]:
    value = _raw(name)
    if value in (None, ""):
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def env_url(name: str, *, schemes: tuple[str, ...]) -> str | None:
    """A URL whose scheme is one of `schemes` and that names a host; None when unset."""
    value = env_str(name)
    if value is None:
        return None
    parsed = urlparse(value)
    if parsed.scheme not in schemes:
        raise ImproperlyConfigured(f"{name} must use one of the schemes {', '.join(schemes)}, got {value!r}")
    if not parsed.hostname and parsed.scheme not in ("sqlite",):
        raise ImproperlyConfigured(f"{name} must name a host, got {value!r}")
    try:
        parsed.port  # noqa: B018 - a malformed port raises here
    except ValueError:
        raise ImproperlyConfigured(f"{name} has an invalid port: {value!r}") from None
    return value
