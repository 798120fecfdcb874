from __future__ import annotations

import copy
import functools
import io
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from django.core.management import CommandError, call_command

from registry.manifest import ManifestInvalid, manifest_read
from registry.models import Capability, CapabilityStatus, CapabilityVersion
from registry.services import manifest_load

from .conftest import MANIFEST_DIR, activate, version_of

REQUIRED = {
    "workPermit.read", "workPermit.search", "workPermit.create", "workPermit.update", "workPermit.updateValidity",
    "workPermit.delete", "workPermit.approve", "workPermit.cancel", "workPermit.components.list",
    "workPermit.components.add", "workPermit.components.update", "workPermit.components.remove",
    "workPermit.workers.add", "workPermit.workers.remove", "workPermit.count", "employee.search", "employee.list",
    "employee.count", "componentType.search", "navigation.workPermit.open", "navigation.workPermit.openTab",
    "knowledge.search",
}


@functools.cache
def _parsed() -> dict[str, dict]:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return {p.name: yaml.load(p.read_text(encoding="utf-8"), Loader=loader)  # noqa: S506 - a safe loader
            for p in sorted(MANIFEST_DIR.glob("*.yaml"))}


def _files() -> dict[str, dict]:
    return copy.deepcopy(_parsed())


def _capability(files: dict[str, dict], capability_id: str) -> dict:
    for data in files.values():
        for entry in data.get("capabilities", []):
            if entry["id"] == capability_id:
                return entry
    raise KeyError(capability_id)


def _write(directory: Path, files: dict[str, dict]) -> Path:
    directory.mkdir(exist_ok=True)
    for name, data in files.items():
        dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        (directory / name).write_text(yaml.dump(data, Dumper=dumper, allow_unicode=True, sort_keys=False),
                                      encoding="utf-8")
    return directory


def _errors_after(tmp_path: Path, mutate: Callable[[dict[str, dict]], None]) -> list:
    files = _files()
    mutate(files)
    with pytest.raises(ManifestInvalid) as caught:
        manifest_read(_write(tmp_path / "manifest", files))
    return caught.value.errors


def test_the_repository_manifest_is_valid_and_covers_the_sst_system():
    manifest = manifest_read(MANIFEST_DIR)
    assert REQUIRED <= set(manifest.capabilities)
    assert {"sst-api", "knowledge-api"} <= set(manifest.resources)


def test_manifest_risk_levels_follow_the_architecture():
    capabilities = manifest_read(MANIFEST_DIR).capabilities
    for capability_id, definition in capabilities.items():
        if definition["kind"] in ("read", "navigation"):
            assert definition["risk"] == "read", capability_id
    medium = {"workPermit.create", "workPermit.update", "workPermit.updateValidity", "workPermit.components.add",
              "workPermit.components.update", "workPermit.components.remove", "workPermit.workers.add",
              "workPermit.workers.remove",
              # The second domain (SCENARIOS.md): create, reschedule, assign and findings are medium.
              "inspection.create", "inspection.reschedule", "inspection.assignInspector",
              "inspection.findings.add", "inspection.findings.remove"}
    assert {c for c, d in capabilities.items() if d["risk"] == "medium"} == medium
    assert {c for c, d in capabilities.items() if d["risk"] == "high"} == {
        "workPermit.delete", "workPermit.cancel", "workPermit.approve", "inspection.complete", "inspection.cancel"}


def test_manifest_undo_and_verification_follow_the_design():
    capabilities = manifest_read(MANIFEST_DIR).capabilities
    add = capabilities["workPermit.components.add"]
    assert add["undo"]["capability"] == "workPermit.components.remove"
    assert add["undo"]["input"]["component_id"] == "${result.id}"
    assert add["undo"]["conditions"] == [{"path": "result.undoable", "op": "equals", "value": True}]
    assert add["verification"]["capability"] == "workPermit.read"
    assert capabilities["workPermit.updateValidity"]["undo"] is None
    assert capabilities["navigation.workPermit.open"]["call"] is None


def test_manifest_language_has_accented_unaccented_informal_and_english_verbs():
    language = manifest_read(MANIFEST_DIR).capabilities["workPermit.components.add"]["language"]
    assert {"adiciona", "coloca", "inclua"} <= set(language["verbs"]["pt-BR"])
    assert {"add", "include"} <= set(language["verbs"]["en"])
    phrasings = " ".join(language["phrasings"]["pt-BR"])
    assert "permissão" in phrasings and "permissao" in phrasings
    component = next(s for s in language["slots"] if s["name"] == "component")
    assert component["resolver"] == {"capability": "componentType.search", "by": "name", "query_field": "q",
                                     "value": "key", "label": "name"}


def _set(capability_id: str, **changes) -> Callable[[dict], None]:
    def mutate(files: dict[str, dict]) -> None:
        entry = _capability(files, capability_id)
        for dotted, value in changes.items():
            *parents, leaf = dotted.split("__")
            target = entry
            for parent in parents:
                target = target[parent]
            if value is _DELETE:
                del target[leaf]
            else:
                target[leaf] = value
    return mutate


_DELETE = object()


def _duplicate(files: dict[str, dict]) -> None:
    files["knowledge.yaml"]["capabilities"].append(dict(_capability(files, "workPermit.read")))


def _unknown_fallback(files: dict[str, dict]) -> None:
    files["resources.yaml"]["resources"][0]["fallbacks"] = ["nowhere-api"]


@pytest.mark.parametrize(("mutate", "capability_id", "field"), [
    pytest.param(_set("workPermit.read", risk=_DELETE), "workPermit.read", "risk", id="missing-field"),
    pytest.param(_set("workPermit.read", risk="medium-high"), "workPermit.read", "risk", id="bad-enum"),
    pytest.param(_set("workPermit.read", colour="blue"), "workPermit.read", "colour", id="unknown-property"),
    pytest.param(_set("workPermit.read", description=42), "workPermit.read", "description", id="wrong-type"),
    pytest.param(_duplicate, "workPermit.read", "id", id="duplicate-id"),
    pytest.param(_set("workPermit.read", call__resource="ghost-api"), "workPermit.read", "call.resource",
                 id="unknown-resource"),
    pytest.param(_set("workPermit.read", permissions=["sst.root"]), "workPermit.read", "permissions",
                 id="unknown-permission"),
    pytest.param(_set("workPermit.components.add", undo__capability="workPermit.components.vanish"),
                 "workPermit.components.add", "undo.capability", id="unknown-undo-capability"),
    pytest.param(_set("workPermit.create", verification__capability="workPermit.delete"),
                 "workPermit.create", "verification.capability", id="verification-not-a-read"),
    pytest.param(_set("workPermit.read", call__path="permits/{permit}"), "workPermit.read", "call.path",
                 id="path-placeholder-not-in-input"),
    pytest.param(_set("workPermit.read", call__method="POST"), "workPermit.read", "call.method",
                 id="read-with-post"),
    pytest.param(_set("workPermit.delete", risk="read"), "workPermit.delete", "risk", id="write-with-read-risk"),
    pytest.param(_set("navigation.workPermit.open", call={"resource": "sst-api", "method": "GET", "path": "x"}),
                 "navigation.workPermit.open", "call", id="navigation-calls-an-api"),
    pytest.param(_set("workPermit.read", input={"type": "objekt"}), "workPermit.read", "input",
                 id="invalid-input-schema"),
    pytest.param(_set("workPermit.read", adaptation__concurrency={"min": 5, "initial": 2, "max": 4}),
                 "workPermit.read", "adaptation.concurrency", id="concurrency-bounds"),
    pytest.param(_set("workPermit.create", adaptation__hedgeable=True), "workPermit.create",
                 "adaptation.hedgeable", id="hedged-write"),
    pytest.param(_set("workPermit.create", idempotency_key=False), "workPermit.create", "retry.max_attempts",
                 id="blind-retry-of-unsafe-write"),
    pytest.param(_set("workPermit.read", adaptation__fallback_resources=["knowledge-api"]), "workPermit.read",
                 "adaptation.fallback_resources", id="unregistered-fallback"),
    pytest.param(_set("workPermit.components.add",
                      undo__input={"permit_id": "${input.permit_id}", "component_id": "${steps.x.id}"}),
                 "workPermit.components.add", "undo.input.component_id", id="bad-reference-root"),
    pytest.param(lambda f: _capability(f, "workPermit.components.add")["language"]["slots"][1]["resolver"]
                 .update(capability="componentType.guess"),
                 "workPermit.components.add", "language.slots.component.resolver.capability",
                 id="unknown-slot-resolver"),
    pytest.param(_unknown_fallback, "resource:sst-api", "fallbacks", id="resource-unknown-fallback"),
    pytest.param(_set("workPermit.updateValidity", language__summary={"pt-BR": "alterar {days}", "en": "set {target}"}),
                 "workPermit.updateValidity", "language.summary.pt-BR", id="summary-unknown-placeholder"),
    pytest.param(lambda f: _capability(f, "workPermit.search")["language"]["slots"][2]["value_synonyms"]
                 .update(ARCHIVED={"pt-BR": ["arquivada"], "en": ["archived"]}),
                 "workPermit.search", "language.slots.status.value_synonyms", id="synonyms-of-an-unknown-value"),
    pytest.param(lambda f: _capability(f, "workPermit.recordDecision")["language"]["batch"]
                 .update(select="workPermit.delete"),
                 "workPermit.recordDecision", "language.batch.select", id="batch-selects-through-a-write"),
    pytest.param(lambda f: _capability(f, "workPermit.recordDecision")["language"]["batch"]["done"]
                 .update(en="{count} evaluated, {rejected} rejected"),
                 "workPermit.recordDecision", "language.batch.done.en", id="batch-done-unknown-placeholder"),
])
def test_each_kind_of_manifest_mistake_is_reported_with_file_capability_and_field(
        tmp_path, mutate, capability_id, field):
    errors = _errors_after(tmp_path, mutate)
    assert any(e.capability == capability_id and e.field == field and e.file.endswith(".yaml") for e in errors), \
        [str(e) for e in errors]


def test_a_yaml_syntax_error_names_the_file(tmp_path):
    directory = _write(tmp_path / "manifest", _files())
    (directory / "broken.yaml").write_text("capabilities: [\n  - id: x\n", encoding="utf-8")
    with pytest.raises(ManifestInvalid) as caught:
        manifest_read(directory)
    assert [(e.file, e.field) for e in caught.value.errors] == [("broken.yaml", "(yaml)")]


def test_every_error_is_reported_not_only_the_first(tmp_path):
    def two_mistakes(files):
        _set("workPermit.read", risk="bogus")(files)
        _set("employee.search", permissions=["hr.everything"])(files)

    errors = _errors_after(tmp_path, two_mistakes)
    assert {(e.file, e.capability, e.field) for e in errors} >= {
        ("work_permits.yaml", "workPermit.read", "risk"), ("people.yaml", "employee.search", "permissions")}


def test_load_command_reports_errors_and_writes_nothing(tmp_path, db):
    files = _files()
    _set("workPermit.read", risk="bogus")(files)
    stderr = io.StringIO()
    with pytest.raises(CommandError):
        call_command("load_capabilities", "--dir", str(_write(tmp_path / "m", files)), stderr=stderr)
    assert "work_permits.yaml: workPermit.read: risk:" in stderr.getvalue()
    assert not Capability.objects.exists()


def test_load_command_loads_drafts_and_a_second_load_changes_nothing(db, author):
    out = io.StringIO()
    call_command("load_capabilities", "--author", author.username, stdout=out)
    assert CapabilityVersion.objects.filter(status=CapabilityStatus.DRAFT).count() == len(manifest_read(
        MANIFEST_DIR).capabilities)
    call_command("load_capabilities", stdout=(second := io.StringIO()))
    assert second.getvalue().startswith("0 new, 0 drafts updated")


def test_a_changed_definition_becomes_a_new_draft_and_the_active_version_stays(tmp_path, loaded, tech, biz):
    active = activate(version_of("workPermit.read"), tech, biz)
    files = _files()
    _set("workPermit.read", description="Read one work permit, now with a better description.")(files)
    report = manifest_load(directory=_write(tmp_path / "m", files), author=None)
    assert report.created == [("workPermit.read", 2)]
    active.refresh_from_db()
    assert (active.status, active.description) == (CapabilityStatus.ACTIVE, version_of("workPermit.read", 1)
                                                   .description)
    assert version_of("workPermit.read").status == CapabilityStatus.DRAFT


def test_a_changed_draft_is_updated_in_place(tmp_path, loaded):
    files = _files()
    _set("workPermit.read", description="Read one work permit (draft edited before submission).")(files)
    report = manifest_load(directory=_write(tmp_path / "m", files), author=None)
    assert report.updated_drafts == [("workPermit.read", 1)]
    assert CapabilityVersion.objects.filter(capability__key="workPermit.read").count() == 1
