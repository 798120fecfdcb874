"""The scenario format's JSON Schema (a copy of ../shared/design/scenario.schema.json, checked equal by a test).

One schema serves the runner (whole files) and the test-control API (a `world` body), so the
two can never disagree on what a world is.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

SCHEMA_PATH = Path(__file__).with_name("scenario.schema.json")


@cache
def scenario_schema() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@cache
def _validator(definition: str | None) -> jsonschema.protocols.Validator:
    schema = scenario_schema()
    if definition is not None:
        schema = {"$ref": f"#/$defs/{definition}", "$defs": schema["$defs"]}
    return jsonschema.Draft202012Validator(schema)


def schema_errors(document: Any, *, definition: str | None = None) -> list[str]:
    """Every schema violation as `path: message` (empty when valid); `definition` checks one $defs entry."""
    errors = sorted(_validator(definition).iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
    return [f"{_path(error.absolute_path)}: {error.message}" for error in errors]


def _path(parts: Any) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text.lstrip(".") or "(root)"
