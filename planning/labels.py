"""Human labels of plan steps (pt-BR, en), shown in progress events and the timeline.

A capability's label is registry data: `language.progress` in its manifest entry. Without one, a
generic label is built from the capability (its kind in Portuguese, its description in English).
A template may give a step a label of its own; the one step role the planner itself adds
(`verify`) is labelled here.
"""

from __future__ import annotations

from typing import Any

from registry.selectors import CapabilitySpec, registry_snapshot

ROLES: dict[str, tuple[str, str]] = {
    "verify": ("Validando resultado…", "Verifying result…"),
}
FALLBACK = ("Executando etapa…", "Running step…")
_BY_KIND = {"read": "Consultando dados…", "write": "Executando operação…", "navigation": "Abrindo tela…"}
_MAX_DESCRIPTION = 60


def _generic(spec: CapabilitySpec) -> tuple[str, str]:
    """From the capability itself: "Consultando dados…" / "Read one record with its fields…"."""
    first = (spec.description or "").split(". ")[0].strip().rstrip(".")
    if len(first) > _MAX_DESCRIPTION:
        first = first[:_MAX_DESCRIPTION].rsplit(" ", 1)[0]
    return _BY_KIND.get(spec.kind, FALLBACK[0]), f"{first}…" if first else FALLBACK[1]


def step_label(capability: CapabilitySpec | str | None, step_id: str = "") -> dict[str, str]:
    """The label of a step running `capability` (a spec, or an id looked up in the current registry)."""
    spec: Any = capability
    if isinstance(capability, str):
        spec = registry_snapshot().get(capability) if capability else None
    if step_id in ROLES:
        pt, en = ROLES[step_id]
    elif spec is None:
        pt, en = FALLBACK
    else:
        progress = (spec.language or {}).get("progress") or {}
        generic = _generic(spec)
        pt, en = progress.get("pt-BR") or generic[0], progress.get("en") or generic[1]
    return {"pt-BR": pt, "en": en}
