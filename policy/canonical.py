"""Canonical JSON and the input hash a receipt is bound to.

A receipt pins each step's input by `canonical_input_hash`: SHA-256 of the RFC 8785 (JCS) form of
the input after every string (keys included) is normalised to Unicode NFC. So key order, NFC/NFD
spellings and number forms (`1`, `1.0`, `1e0`) give the same hash, and any change of value gives
another one. JCS itself comes from the `rfc8785` library; what is written here is only what JCS
does not say:

- Duplicate keys. `json.loads` keeps the last of two equal keys, so `{"id": 1, "id": 2}` would
  hash like `{"id": 2}` while another parser downstream may read `1`. A raw body is parsed with an
  `object_pairs_hook` that refuses duplicates, and a key that becomes a duplicate only after NFC
  (an NFC and an NFD spelling of the same word in one object) is refused too.
- Values JSON cannot carry exactly: NaN/Infinity, integers outside ±(2**53-1) (JCS's domain) and
  non-string keys raise. Identifiers that large must travel as strings.

Every failure raises `CanonicalizationError`; callers turn it into a DENY (fail closed).
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Mapping
from typing import Any

import rfc8785


class CanonicalizationError(ValueError):
    """The value has no single canonical form (duplicate keys, NaN, out-of-domain number...)."""


def _refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise CanonicalizationError(f"duplicate key {key!r}")
        result[key] = value
    return result


def _refuse_constant(name: str) -> Any:
    raise CanonicalizationError(f"{name} is not JSON")


def parse_json_strict(raw: bytes | str) -> Any:
    """Parse JSON refusing duplicate keys and NaN/Infinity."""
    try:
        return json.loads(raw, object_pairs_hook=_refuse_duplicates, parse_constant=_refuse_constant)
    except CanonicalizationError:
        raise
    except (ValueError, UnicodeDecodeError) as exc:
        raise CanonicalizationError(f"invalid JSON: {exc}") from exc


def _normalise(value: Any) -> Any:
    if isinstance(value, str):
        return unicodedata.normalize("NFC", value)
    if isinstance(value, Mapping):
        result: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise CanonicalizationError(f"non-string key {key!r}")
            nkey = unicodedata.normalize("NFC", key)
            if nkey in result:
                raise CanonicalizationError(f"duplicate key {nkey!r} after NFC normalisation")
            result[nkey] = _normalise(item)
        return result
    if isinstance(value, list | tuple):
        return [_normalise(item) for item in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    raise CanonicalizationError(f"{type(value).__name__} is not a JSON value")


def canonical_json(value: Any) -> bytes:
    """The RFC 8785 bytes of `value` after NFC normalisation of every string."""
    try:
        return rfc8785.dumps(_normalise(value))
    except rfc8785.CanonicalizationError as exc:
        raise CanonicalizationError(str(exc)) from exc


def canonical_hash(value: Any) -> str:
    return hashlib.sha256(canonical_json(value)).hexdigest()


def canonical_input_hash(raw: bytes | str | Mapping[str, Any]) -> str:
    """Hash of a step input given as a raw JSON body (bytes/str) or an already-parsed mapping."""
    value = parse_json_strict(raw) if isinstance(raw, bytes | str) else raw
    if not isinstance(value, Mapping):
        raise CanonicalizationError("a step input is a JSON object")
    return canonical_hash(value)
