"""Input hygiene for every JSON entry point: the REST parser, the websocket's frames, test control.

One rule set, applied to the whole decoded document before any view, serializer or service sees
it, so nothing downstream (PostgreSQL, which refuses NUL and lone surrogates with a 500; the JSON
renderer, which cannot encode a surrogate it would echo back; an int column; a log line) meets it:

- strings: no invalid Unicode (a lone UTF-16 surrogate, which `json` decodes from `"\\ud800"`), no
  control characters (C0, DEL, C1) except tab, newline and carriage return in values; at most
  `MAX_STRING_CHARS` characters (`MAX_KEY_CHARS` for object keys, which allow no control at all);
- numbers: integers and floats within ±(2^53 − 1), the range a JavaScript client (and a bigint
  column) holds exactly; no NaN or ±Infinity (DRF already refuses the literals; `1e400` is inf);
- nesting: at most `MAX_DEPTH` levels (and a body `json` cannot even recurse through is a 400).

Every refusal names the field path (`ui_context.page.title`, `components[0].key`) and what was
wrong. On REST it is a `ValidationError`, so tenancy.exceptions gives API.md's 400 body
`{"code": "invalid", "detail": …, "errors": {path: [message]}}`; the websocket consumer calls
`frame_parse` and answers with an error frame, then closes with `CLOSE_INVALID_INPUT`.

Hand-written on purpose: no kept dependency does this. jsonschema validates documents of a known
shape (and is used for that), but cannot say "any string at any depth, keys included, is valid
Unicode without controls" without a pattern per property; DRF's fields check one field each. The
walk is a loop (not recursion), so a deep document cannot overflow the stack here either.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.parsers import JSONParser

MAX_STRING_CHARS = 10_000
MAX_KEY_CHARS = 200
MAX_SAFE_INTEGER = 2**53 - 1
MAX_DEPTH = 32
MAX_PROBLEMS = 20  # reported; the walk stops there (a hostile body can hold millions)
CLOSE_INVALID_INPUT = 4400  # the websocket close code after an `invalid_input` error frame

_SURROGATE = re.compile(r"[\ud800-\udfff]")
_CONTROL_IN_TEXT = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_CONTROL_IN_KEY = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")

MESSAGES: dict[str, dict[str, str]] = {
    "invalid_unicode": {"pt-BR": "Unicode inválido (surrogate UTF-16 isolado).",
                        "en": "Invalid Unicode (a lone UTF-16 surrogate)."},
    "control_character": {"pt-BR": "Caractere de controle não permitido (NUL ou outro).",
                          "en": "Control character not allowed (NUL or another)."},
    "too_long": {"pt-BR": "Texto longo demais (máximo de {limit} caracteres).",
                 "en": "Text too long (at most {limit} characters)."},
    "number_out_of_range": {"pt-BR": "Número fora do intervalo permitido (±{limit}).",
                            "en": "Number out of the allowed range (±{limit})."},
    "too_deep": {"pt-BR": "Aninhamento profundo demais (máximo de {limit} níveis).",
                 "en": "Nested too deeply (at most {limit} levels)."},
    "not_json": {"pt-BR": "A mensagem não é JSON válido em UTF-8.",
                 "en": "The message is not valid JSON in UTF-8."},
}
FRAME_DETAIL = {"pt-BR": "Mensagem recusada: {errors}.", "en": "Message refused: {errors}."}


@dataclass(frozen=True)
class Problem:
    path: str
    code: str
    limit: int | None = None

    def message(self, language: str = "en") -> str:
        return MESSAGES[self.code][language].format(limit=self.limit)


def input_problems(document: Any) -> list[Problem]:
    """What in a decoded JSON document breaks the rules above, in document order, at most MAX_PROBLEMS."""
    problems: list[Problem] = []
    for path, problem in _walk(document):
        problems.append(Problem(path=path, code=problem[0], limit=problem[1]))
        if len(problems) >= MAX_PROBLEMS:
            break
    return problems


def _walk(document: Any) -> Iterator[tuple[str, tuple[str, int | None]]]:
    stack: list[tuple[Any, str, int]] = [(document, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, str):
            problem = _string_problem(value, key=False)
        elif isinstance(value, bool) or value is None:
            continue
        elif isinstance(value, int | float):
            problem = _number_problem(value)
        elif depth >= MAX_DEPTH and isinstance(value, dict | list):
            problem = ("too_deep", MAX_DEPTH)
        elif isinstance(value, dict):
            children = []
            for key, child in value.items():
                at = _join(path, key)
                key_problem = _string_problem(key, key=True) if isinstance(key, str) else None
                if key_problem is not None:
                    yield at, key_problem
                    continue
                children.append((child, at, depth + 1))
            stack.extend(reversed(children))
            continue
        elif isinstance(value, list):
            stack.extend(reversed([(child, f"{path}[{index}]", depth + 1) for index, child in enumerate(value)]))
            continue
        else:
            continue
        if problem is not None:
            yield path or "(root)", problem


def _string_problem(text: str, *, key: bool) -> tuple[str, int | None] | None:
    limit = MAX_KEY_CHARS if key else MAX_STRING_CHARS
    if len(text) > limit:
        return "too_long", limit
    if _SURROGATE.search(text):
        return "invalid_unicode", None
    if (_CONTROL_IN_KEY if key else _CONTROL_IN_TEXT).search(text):
        return "control_character", None
    return None


def _number_problem(number: int | float) -> tuple[str, int | None] | None:
    if isinstance(number, float) and not math.isfinite(number):
        return "number_out_of_range", MAX_SAFE_INTEGER
    if abs(number) > MAX_SAFE_INTEGER:
        return "number_out_of_range", MAX_SAFE_INTEGER
    return None


def _join(path: str, key: str) -> str:
    """`a.b`, or `a["odd key"]` with the key escaped to ASCII (and cut), so the error body is safe to render."""
    if _PLAIN_KEY.fullmatch(key):
        return f"{path}.{key}" if path else key
    shown = key if len(key) <= 40 else key[:40] + "…"
    return f"{path}[{json.dumps(shown, ensure_ascii=True)}]"


def problems_as_errors(problems: list[Problem], language: str = "en") -> dict[str, list[str]]:
    """{path: [message]} — the `errors` of API.md's 400 body and of the websocket's error frame."""
    errors: dict[str, list[str]] = {}
    for problem in problems:
        errors.setdefault(problem.path, []).append(problem.message(language))
    return errors


def input_refuse(document: Any) -> None:
    """Raise the REST 400 (a DRF ValidationError keyed by field path) when `document` breaks a rule."""
    problems = input_problems(document)
    if problems:
        raise ValidationError(problems_as_errors(problems), code="invalid_input")


class SafeJSONParser(JSONParser):
    """DRF's JSON parser (every API's, REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]) plus the rules above.

    Python's json module recurses per nesting level, so a body of a few thousand `[` raises
    RecursionError, which DRF's JSONParser does not catch (a 500): such a body is malformed input.
    """

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            document = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply.") from None
        input_refuse(document)
        return document


@dataclass(frozen=True)
class Frame:
    """A websocket frame: its decoded document, or the problems that refuse it (then `document` is None)."""

    document: Any
    problems: list[Problem]

    def error_message(self) -> dict[str, Any]:
        """The ErrorMessage (contracts/websocket.schema.json) the consumer sends before closing."""
        listed = "; ".join(f"{p.path}: {p.message('en')}" for p in self.problems)
        listed_pt = "; ".join(f"{p.path}: {p.message('pt-BR')}" for p in self.problems)
        return {"type": "error", "code": "invalid_input", "client_message_id": None,
                "detail": {"pt-BR": FRAME_DETAIL["pt-BR"].format(errors=listed_pt),
                           "en": FRAME_DETAIL["en"].format(errors=listed)},
                "errors": problems_as_errors(self.problems)}


def frame_parse(text_data: str | None = None, bytes_data: bytes | None = None) -> Frame:
    """Decode one websocket frame as JSON and apply the rules; never raises on what a client sends."""
    if text_data is None:  # a binary frame: the contract is JSON text
        return Frame(None, [Problem(path="(root)", code="not_json")])
    try:
        document = json.loads(text_data, parse_constant=_refuse_constant)
    except (ValueError, RecursionError):
        return Frame(None, [Problem(path="(root)", code="not_json")])
    problems = input_problems(document)
    return Frame(None if problems else document, problems)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
