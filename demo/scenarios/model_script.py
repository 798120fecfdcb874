"""Model scripts: the LLM replies a scenario expects, in a sidecar file beside it.

The scenario format (scenario.schema.json, shared) cannot script the model, so a scenario `X.yaml`
may have `X.model.yaml` next to it: a YAML list of entries

    - turn: 0            # index of the turn in `turns`, 0-based (as in `turns[0]` of schema errors)
      reply:             # the JSON document the model answers, written as a YAML mapping
        steps:
          - {id: s1, capability: workPermit.components.add, slots: {permit: "4410", component: jateamento}}
          - {id: s2, capability: workPermit.approve, slots: {permit: "4410"}, depends_on: [s1]}

Each turn appears at most once. Played in-process, the runner starts a fake OpenAI-compatible
server on a loopback socket for that scenario, points LLM_BASE_URL / LLM_API_KEY / LLM_MODEL /
LLM_TIMEOUT_SECONDS at it, and answers every model call made during turn i with turn i's reply
(`{}` — "nothing fits" — during a turn without one); the settings are restored after. The product
counts the calls it made (`llm_calls`), so those expectations count real calls. With `--live` the
runner cannot script the server's model: such a scenario is reported SKIP, neither passed nor
failed. A sidecar that breaks this format, or names a turn the scenario does not have, makes the
scenario an invalid file.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from django.test import override_settings

from .model_server import FakeLLMServer

SIDECAR_SUFFIX = ".model.yaml"
NOTHING_FITS = "{}"

SIDECAR_SCHEMA = {
    "type": "array",
    "minItems": 1,
    "items": {
        "type": "object",
        "required": ["turn", "reply"],
        "additionalProperties": False,
        "properties": {"turn": {"type": "integer", "minimum": 0}, "reply": {"type": "object"}},
    },
}


@dataclass(frozen=True)
class ModelScript:
    path: Path
    replies: Mapping[int, Mapping[str, Any]]  # turn index (0-based) → the model's JSON answer


def sidecar_path(scenario: Path) -> Path:
    return scenario.with_name(scenario.name.rsplit(".", 1)[0] + SIDECAR_SUFFIX)


def is_sidecar(path: Path) -> bool:
    return path.name.endswith(SIDECAR_SUFFIX)


def script_load(scenario: Path, turns: int) -> tuple[ModelScript | None, list[str]]:
    """The scenario's model script (None when it has no sidecar) and the sidecar's problems, each naming it."""
    path = sidecar_path(scenario)
    if not path.is_file():
        return None, []
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        return None, [f"{path.name}: cannot read: {exc}"]
    errors = sorted(jsonschema.Draft202012Validator(SIDECAR_SCHEMA).iter_errors(data),
                    key=lambda e: list(map(str, e.absolute_path)))
    problems = [f"{path.name}: {_where(error.absolute_path)}: {error.message}" for error in errors]
    if problems:
        return None, problems
    seen: dict[int, Mapping[str, Any]] = {}
    for index, entry in enumerate(data):
        if entry["turn"] >= turns:
            problems.append(f"{path.name}: entry [{index}]: turn {entry['turn']} — the scenario has {turns} "
                            f"turn(s), numbered from 0")
        elif entry["turn"] in seen:
            problems.append(f"{path.name}: entry [{index}]: turn {entry['turn']} is scripted twice")
        seen[entry["turn"]] = entry["reply"]
    return (None, problems) if problems else (ModelScript(path, seen), [])


def _where(parts: Any) -> str:
    parts = list(parts)
    if not parts:
        return "(the file)"
    return f"entry [{parts[0]}]" + "".join(f".{p}" for p in parts[1:])


@dataclass
class ScriptedModel:
    """The running fake and the turn being played, so each call gets the reply for its turn."""

    script: ModelScript
    server: FakeLLMServer
    turn: int | None = None
    calls: list[int | None] = field(default_factory=list)  # the turn of every call received
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def turn_started(self, index: int) -> None:
        self.turn = index

    def reply(self, body: dict[str, Any]) -> str:
        with self._lock:  # the server answers on its own threads
            self.calls.append(self.turn)
            answer = self.script.replies.get(self.turn) if self.turn is not None else None
        return NOTHING_FITS if answer is None else json.dumps(answer, ensure_ascii=False)


@contextmanager
def scripted_model(script: ModelScript) -> Iterator[ScriptedModel]:
    """A scripted fake model on a loopback socket, the LLM settings pointing at it until the block ends."""
    server = FakeLLMServer()
    model = ScriptedModel(script=script, server=server)
    server.responder = model.reply
    server.start()
    try:
        with override_settings(LLM_BASE_URL=server.url, LLM_API_KEY="scenario-key", LLM_MODEL="scripted-model",
                               LLM_TIMEOUT_SECONDS=5):
            yield model
    finally:
        server.stop()
