"""What the conversation runtime hands the planner: a structured intent with resolved values.

Values in `slots` are already resolved ids/keys/numbers (the runtime asks for clarification before
planning, never the planner). `targets` name the existing entities the plan acts on by role (the
name of the capability's language slot), with the revision read at planning when the runtime has
one: that revision is what the plan's first write to the target sends as `If-Match`.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class TargetRef:
    type: str  # an entity type of the registry (a slot's `type`)
    id: int | str
    revision: int | None = None
    label: str | None = None

    @property
    def key(self) -> str:
        return f"{self.type}:{self.id}"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type, "id": self.id}
        if self.revision is not None:
            data["revision"] = self.revision
        if self.label is not None:
            data["label"] = self.label
        return data


@dataclass(frozen=True)
class StructuredIntent:
    """`name` is a capability id (single-step plan) or the name of a composite of the manifest
    (`composites:` in capabilities/*.yaml, built by planning.templates)."""

    name: str
    slots: Mapping[str, Any] = field(default_factory=dict)
    targets: Mapping[str, TargetRef] = field(default_factory=dict)
    language: str = "pt-BR"
    text: str = ""
    id: uuid.UUID = field(default_factory=uuid.uuid4)

    def to_dict(self) -> dict[str, Any]:
        return {"id": str(self.id), "name": self.name, "slots": dict(self.slots), "language": self.language,
                "targets": {role: t.to_dict() for role, t in self.targets.items()}, "text": self.text}
