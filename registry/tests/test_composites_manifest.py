"""`composites:` in the manifest: validated with the rest by manifest_read, and alone by composites_read
(the planner's cheap read), with the same errors."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest

from registry.manifest import ManifestInvalid, composites_read, manifest_read

from .conftest import MANIFEST_DIR
from .test_manifest import _files, _write


def _composite(files: dict[str, dict]) -> dict:
    """The first composite, unshared: its steps may be YAML aliases of other composites' steps."""
    composites = files["composites.yaml"]["composites"]
    composites[0] = copy.deepcopy(composites[0])
    return composites[0]


def test_the_shipped_composites_are_valid_and_read_alike_by_both_readers():
    full = manifest_read(MANIFEST_DIR).composites
    assert full and {n: {k: v for k, v in c.items() if k != "_file"} for n, c in full.items()} == composites_read(
        MANIFEST_DIR)


def _set(path: str, value) -> Callable[[dict], None]:
    def mutate(composite: dict) -> None:
        target = composite
        *parents, last = path.split("/")
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        target[last] = value
    return mutate


def _rename_to_a_capability(composite: dict) -> None:
    composite["name"] = composite["steps"][0]["capability"]


@pytest.mark.parametrize("mutate, field, words", [
    (_set("steps/0/capability", "ghost.capability"), "steps[0].capability", "unknown capability"),
    (_set("steps/0/depends_on", ["open"]), "steps[0].depends_on", "not an earlier step"),
    (_set("steps/1/input", {"x": "${steps.ghost.result.id}"}), "steps[1].input", "names no step"),
    (_set("steps/1/targets", ["other"]), "steps[1].targets", "not required"),
    (_set("steps/1/input", {"x": "${each}"}), "steps[1].input", "outside a repeat step"),
    (_rename_to_a_capability, "name", "share its name"),
    (_set("steps", []), "steps", "should be non-empty"),
])
def test_each_composite_mistake_names_file_composite_and_field(tmp_path, mutate, field, words):
    files = _files()
    composite = _composite(files)
    mutate(composite)
    directory = _write(tmp_path / "manifest", files)
    for read in (manifest_read, composites_read):
        with pytest.raises(ManifestInvalid) as caught:
            read(directory)
        (error,) = [e for e in caught.value.errors if e.file == "composites.yaml"]
        assert error.field == field and words in error.message, error
        assert error.capability in (composite["name"], "composites[0]")
