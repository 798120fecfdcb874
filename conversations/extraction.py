"""What the intent engine extracts: a slot's value (SlotValue), one capability's slots from one message
(Extraction) and what the conversation knows for references (Situation). Plain data, below every reader."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass
class SlotValue:
    value: Any
    label: str
    entity: dict[str, Any] | None = None
    source: str = "text"  # text | ui | context | result | focus | topic
    # "add a week", "5 less": the amount said as a change of the target's current value (relative_values.py
    # counts it again from the item the plan is for — the one a clarification or a correction settled)
    delta: int | None = None

    def to_dict(self) -> dict[str, Any]:
        said = {"value": self.value, "label": self.label, "entity": self.entity, "source": self.source}
        return {**said, "delta": self.delta} if self.delta is not None else said

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SlotValue:
        delta = data.get("delta")
        return cls(value=data.get("value"), label=str(data.get("label", "")), entity=data.get("entity"),
                   source=str(data.get("source", "text")), delta=delta if isinstance(delta, int) else None)


@dataclass
class Extraction:
    values: dict[str, list[SlotValue]] = field(default_factory=dict)
    ambiguous: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    not_found: dict[str, str] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    used: set[int] = field(default_factory=set)
    # slot → {"said", "problem": negative | fraction | range, "minimum", "maximum"}: never used as is
    invalid: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def from_text(self) -> set[str]:
        return {name for name, values in self.values.items() if values and values[0].source == "text"}

    @property
    def complete(self) -> bool:
        return not (self.ambiguous or self.not_found or self.missing or self.invalid)


@dataclass
class Situation:
    """What the conversation knows, for references (§11 priority) and hints."""

    selection: dict[str, Any] | None = None  # validated UI selection
    selection_fresh: bool = False  # the selection is newer than the active entity
    active: dict[str, Any] | None = None
    created: list[dict[str, Any]] = field(default_factory=list)  # last result's created entities
    recent: list[dict[str, Any]] = field(default_factory=list)
    filter_company: dict[str, Any] | None = None
    listed: list[dict[str, Any]] = field(default_factory=list)  # the last list answered, in its order (ordinals.py)
