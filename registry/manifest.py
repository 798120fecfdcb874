"""Read and validate the capability manifest (`capabilities/*.yaml`).

Validation has two layers and reports *every* error, each with file, capability id and field:
1. JSON Schema (registry.manifest_schema), through `jsonschema`;
2. the cross-entry rules a schema cannot express: duplicate ids, unknown resources, capabilities,
   permissions, path placeholders not in the input schema, kind/risk/method coherence, invalid
   input/output schemas, adaptation bounds, retry of unsafe writes, slot resolvers, and the planner's
   composites (registry.composites).

An entry with schema errors is not checked further (its rule errors would only echo them).
`normalize()` gives the canonical definition whose RFC 8785 hash decides whether a load is a new version.
"""

from __future__ import annotations

import copy
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import rfc8785
import yaml

from .composites import COMPOSITES_FILE, composite_problems
from .manifest_schema import MANIFEST_FILE
from .roles import KNOWN_PERMISSIONS
from .verification import verification_problems

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_REFERENCE = re.compile(r"\$\{([^}]*)\}")
_REFERENCE_ROOTS = ("input", "result", "before")
_FILE_VALIDATOR = jsonschema.Draft202012Validator(MANIFEST_FILE)
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when built with it: ~10x faster


@dataclass(frozen=True)
class ManifestError:
    file: str
    capability: str | None
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.capability or '-'}: {self.field}: {self.message}"


class ManifestInvalid(Exception):
    def __init__(self, errors: list[ManifestError]) -> None:
        self.errors = errors
        super().__init__("\n".join(str(e) for e in errors))


@dataclass
class Manifest:
    resources: dict[str, dict[str, Any]] = field(default_factory=dict)
    capabilities: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> normalized definition
    sources: dict[str, str] = field(default_factory=dict)  # capability id -> file name
    composites: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> definition (with `_file`)


def normalize(entry: dict[str, Any]) -> dict[str, Any]:
    """The canonical definition: every optional key present with its default, `id` included."""
    defaults: dict[str, Any] = {
        "discoverable": True, "call": None, "navigation": None, "idempotent": entry.get("kind") != "write",
        "idempotency_key": False, "cancellable": False, "undo": None, "compensation": None,
        "verification": None, "retry": {"max_attempts": 1}, "adaptation": {},
    }
    definition = {**defaults, **entry}
    if not definition.get("preconditions"):  # absent and empty are the same definition (and hash)
        definition.pop("preconditions", None)
    if definition["call"] is not None:
        definition["call"] = {"query": [], "body": [], "if_match": None, **definition["call"]}
    return definition


def definition_hash(definition: dict[str, Any]) -> str:
    return hashlib.sha256(rfc8785.dumps(definition)).hexdigest()


_VALID: dict[str, Manifest] = {}  # content fingerprint -> validated manifest (this process)


def manifest_read(directory: Path) -> Manifest:
    """Parse and validate every `*.yaml` under `directory`; raise ManifestInvalid listing all errors.

    Validating ~60 JSON Schemas against the metaschema dominates a load (about 0.7 s), and the files
    rarely change: a validated manifest is kept per process under the hash of the files' names and
    bytes, and callers get a copy. An invalid manifest is never kept.
    """
    files = sorted(directory.glob("*.yaml"))
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    key = f"{directory.resolve()}:{digest.hexdigest()}"
    if key not in _VALID:
        _VALID[key] = _manifest_read(directory)
    return copy.deepcopy(_VALID[key])


def _manifest_read(directory: Path) -> Manifest:
    errors: list[ManifestError] = []
    manifest = Manifest()
    entries: list[tuple[str, dict[str, Any]]] = []
    files = sorted(directory.glob("*.yaml"))
    if not files:
        raise ManifestInvalid([ManifestError(str(directory), None, "-", "no *.yaml manifest files found")])
    for path in files:
        _read_file(path, manifest, entries, errors)
    for name, entry in entries:
        errors.extend(_check_capability(name, entry, manifest))
    errors.extend(_check_composites(manifest))
    for key, resource in manifest.resources.items():
        for fallback in resource.get("fallbacks", []):
            if fallback not in manifest.resources or fallback == key:
                errors.append(ManifestError(resource["_file"], f"resource:{key}", "fallbacks",
                                            f"unknown or self fallback resource {fallback!r}"))
    if errors:
        raise ManifestInvalid(errors)
    return manifest


def _read_file(path: Path, manifest: Manifest, entries: list, errors: list[ManifestError]) -> None:
    name = path.name
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_YAML_LOADER) or {}  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        errors.append(ManifestError(name, None, "(yaml)", str(exc).replace("\n", " ")))
        return
    if not isinstance(data, dict):
        errors.append(ManifestError(name, None, "(file)", "a manifest file is a mapping with resources/capabilities"))
        return
    broken: set[tuple[str, int]] = set()
    for error in _FILE_VALIDATOR.iter_errors(data):
        errors.append(_schema_error(name, data, error))
        if len(error.absolute_path) >= 2:
            broken.add((error.absolute_path[0], error.absolute_path[1]))
    for index, resource in enumerate(data.get("resources") or []):
        if ("resources", index) in broken or not isinstance(resource, dict):
            continue
        if resource["key"] in manifest.resources:
            errors.append(ManifestError(name, f"resource:{resource['key']}", "key", "duplicate resource key"))
        manifest.resources[resource["key"]] = {**resource, "_file": name}
    for index, entry in enumerate(data.get("capabilities") or []):
        if ("capabilities", index) in broken or not isinstance(entry, dict):
            continue
        if entry["id"] in manifest.capabilities:
            errors.append(ManifestError(name, entry["id"], "id",
                                        f"duplicate capability id (also in {manifest.sources[entry['id']]})"))
            continue
        manifest.capabilities[entry["id"]] = normalize(entry)
        manifest.sources[entry["id"]] = name
        entries.append((name, entry))
    _read_composites(name, data, manifest, errors, broken)


def _read_composites(name: str, data: dict, manifest: Manifest, errors: list[ManifestError],
                     broken: set[tuple[str, int]]) -> None:
    for index, entry in enumerate(data.get("composites") or []):
        if ("composites", index) in broken or not isinstance(entry, dict):
            continue
        if entry["name"] in manifest.composites:
            errors.append(ManifestError(name, entry["name"], "name", "duplicate composite name"))
            continue
        manifest.composites[entry["name"]] = {**entry, "_file": name}


def composites_read(directory: Path) -> dict[str, dict[str, Any]]:
    """Only the composites under `directory`, checked against the capability ids its files declare: what the
    planner reads, without the second of validating every capability's schemas."""
    errors: list[ManifestError] = []
    manifest = Manifest()
    for path in sorted(directory.glob("*.yaml")):
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_YAML_LOADER) or {}  # noqa: S506 - a safe loader
        if isinstance(data, dict):
            manifest.capabilities.update((c["id"], c) for c in data.get("capabilities") or ()
                                         if isinstance(c, dict) and "id" in c)
            invalid = list(COMPOSITES_FILE.iter_errors(data))
            errors += [_schema_error(path.name, data, error) for error in invalid]
            broken = {tuple(e.absolute_path)[:2] for e in invalid if len(e.absolute_path) >= 2}
            _read_composites(path.name, data, manifest, errors, broken)
    errors += _check_composites(manifest)
    if errors:
        raise ManifestInvalid(errors)
    return {name: {k: v for k, v in entry.items() if k != "_file"} for name, entry in manifest.composites.items()}


def _check_composites(manifest: Manifest) -> list[ManifestError]:
    capability_ids = set(manifest.capabilities)
    return [ManifestError(entry["_file"], name, f, m) for name, entry in manifest.composites.items()
            for f, m in composite_problems(entry, capability_ids)]


def _schema_error(name: str, data: dict, error: jsonschema.ValidationError) -> ManifestError:
    path = list(error.absolute_path)
    owner = None
    if len(path) >= 2 and isinstance(data.get(path[0]), list):
        item = data[path[0]][path[1]] if path[1] < len(data[path[0]]) else None
        if isinstance(item, dict):
            owner = item.get("id") or item.get("name") or (f"resource:{item['key']}" if item.get("key") else None)
        owner = owner or f"{path[0]}[{path[1]}]"
        path = path[2:]
    field_name = ".".join(str(p) for p in path)
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = [r for r in error.validator_value if r not in error.instance]
        field_name = ".".join(filter(None, [field_name, ",".join(missing)]))
    elif error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set(error.schema.get("properties", {}))
        extra = [k for k in error.instance if k not in allowed]
        field_name = ".".join(filter(None, [field_name, ",".join(extra)]))
    return ManifestError(name, owner, field_name or "-", error.message)


def _check_capability(name: str, entry: dict[str, Any], manifest: Manifest) -> list[ManifestError]:
    cid = entry["id"]
    found: list[tuple[str, str]] = []
    found += _check_permissions(entry)
    found += _check_schemas(entry)
    found += _check_kind(entry)
    found += _check_call(entry, manifest)
    found += _check_references(entry, manifest)
    found += _check_adaptation(entry, manifest)
    found += _check_retry(entry)
    found += _check_slots(entry, manifest)
    found += _check_preconditions(entry, manifest)
    return [ManifestError(name, cid, f, m) for f, m in found]


def _input_fields(entry: dict) -> set[str]:
    return set((entry.get("input") or {}).get("properties", {}))


def _check_preconditions(entry: dict, manifest: Manifest) -> list[tuple[str, str]]:
    """A precondition names an entity some capability reads, and only a write has any."""
    rules = entry.get("preconditions") or []
    if rules and entry["kind"] != "write":
        return [("preconditions", "only write capabilities have preconditions")]
    entities = {c["language"].get("entity") for c in manifest.capabilities.values()}
    return [(f"preconditions[{index}].target", f"unknown entity type {rule['target']!r}")
            for index, rule in enumerate(rules) if rule["target"] not in entities]


def _check_permissions(entry: dict) -> list[tuple[str, str]]:
    unknown = sorted(set(entry["permissions"]) - KNOWN_PERMISSIONS)
    return [("permissions", f"unknown permission(s) {', '.join(unknown)}")] if unknown else []


def _check_schemas(entry: dict) -> list[tuple[str, str]]:
    found = []
    for key in ("input", "output"):
        try:
            jsonschema.Draft202012Validator.check_schema(entry[key])
        except jsonschema.SchemaError as exc:
            found.append((key, f"not a valid JSON Schema: {exc.message}"))
    return found


def _check_kind(entry: dict) -> list[tuple[str, str]]:
    kind, risk, call, navigation = entry["kind"], entry["risk"], entry.get("call"), entry.get("navigation")
    found = []
    if kind == "navigation":
        if call is not None:
            found.append(("call", "a navigation capability calls no API"))
        if navigation is None:
            found.append(("navigation", "a navigation capability needs a navigation block"))
    else:
        if call is None:
            found.append(("call", f"a {kind} capability needs a call (resource, method, path)"))
        if navigation is not None:
            found.append(("navigation", f"only navigation capabilities have a navigation block, not {kind}"))
    if kind in ("read", "navigation") and risk != "read":
        found.append(("risk", f"a {kind} capability has risk 'read', not {risk!r}"))
    if kind == "write" and risk == "read":
        found.append(("risk", "a write capability cannot have risk 'read'"))
    if call is not None and kind == "read" and call["method"] != "GET":
        found.append(("call.method", "a read capability uses GET"))
    if call is not None and kind == "write" and call["method"] == "GET":
        found.append(("call.method", "a write capability cannot use GET"))
    return found


def _check_call(entry: dict, manifest: Manifest) -> list[tuple[str, str]]:
    fields, found = _input_fields(entry), []
    required = set((entry.get("input") or {}).get("required", []))
    call, navigation = entry.get("call"), entry.get("navigation")
    if call is not None:
        if call["resource"] not in manifest.resources:
            found.append(("call.resource", f"unknown resource {call['resource']!r}"))
        for placeholder in _PLACEHOLDER.findall(call["path"]):
            if placeholder not in fields or placeholder not in required:
                found.append(("call.path", f"placeholder {{{placeholder}}} is not a required input property"))
        for key in ("query", "body"):
            for name in call.get(key, []):
                if name not in fields:
                    found.append((f"call.{key}", f"{name!r} is not an input property"))
        if call.get("if_match") and call["if_match"] not in fields:
            found.append(("call.if_match", f"{call['if_match']!r} is not an input property"))
    if navigation is not None:
        for placeholder in _PLACEHOLDER.findall(navigation["route"]):
            if placeholder not in fields:
                found.append(("navigation.route", f"placeholder {{{placeholder}}} is not an input property"))
        if navigation.get("tab") and navigation["tab"] not in fields:
            found.append(("navigation.tab", f"{navigation['tab']!r} is not an input property"))
    return found


def _check_references(entry: dict, manifest: Manifest) -> list[tuple[str, str]]:
    found = []
    expected_kind = {"undo": "write", "compensation": "write", "verification": "read"}
    for block, kind in expected_kind.items():
        spec = entry.get(block)
        if spec is None:
            continue
        if block == "verification":
            found += verification_problems(entry, spec)
        if "capability" not in spec:
            continue  # a verification re-reading through the entity's registered reader
        target = manifest.capabilities.get(spec["capability"])
        if target is None:
            found.append((f"{block}.capability", f"unknown capability {spec['capability']!r}"))
        elif target["kind"] != kind:
            found.append((f"{block}.capability", f"{spec['capability']!r} is {target['kind']}, expected {kind}"))
        elif spec["capability"] == entry["id"] and block != "verification":
            found.append((f"{block}.capability", "a capability cannot compensate itself"))
        for key, value in spec.get("input", {}).items():
            found += [(f"{block}.input.{key}", m) for m in _bad_references(value)]
        for index, assertion in enumerate(spec.get("assertions", []) + spec.get("conditions", [])):
            found += [(f"{block}.assertions[{index}].value", m) for m in _bad_references(assertion.get("value"))]
    if entry["kind"] != "write" and (entry.get("undo") or entry.get("compensation")):
        found.append(("undo", "only write capabilities have undo or compensation"))
    return found


def _bad_references(value: Any) -> list[str]:
    if not isinstance(value, str):
        return []
    return [f"reference ${{{ref}}} must start with one of {', '.join(_REFERENCE_ROOTS)}"
            for ref in _REFERENCE.findall(value) if ref.split(".")[0] not in _REFERENCE_ROOTS]


def _check_adaptation(entry: dict, manifest: Manifest) -> list[tuple[str, str]]:
    adaptation, found = entry.get("adaptation") or {}, []
    concurrency = adaptation.get("concurrency")
    if concurrency and not concurrency["min"] <= concurrency["initial"] <= concurrency["max"]:
        found.append(("adaptation.concurrency", "needs min <= initial <= max"))
    timeout = adaptation.get("timeout_ms")
    if timeout and timeout["initial"] > timeout["max"]:
        found.append(("adaptation.timeout_ms", "needs initial <= max"))
    if adaptation.get("hedgeable") and entry["kind"] != "read":
        found.append(("adaptation.hedgeable", "only reads may be hedged (never dangerous writes)"))
    fallbacks = adaptation.get("fallback_resources", [])
    call = entry.get("call")
    registered = set(manifest.resources.get(call["resource"], {}).get("fallbacks", [])) if call else set()
    for fallback in fallbacks:
        if fallback not in registered:
            found.append(("adaptation.fallback_resources",
                          f"{fallback!r} is not a registered fallback of the capability's resource"))
    return found


def _check_retry(entry: dict) -> list[tuple[str, str]]:
    retry = entry.get("retry") or {"max_attempts": 1}
    unsafe = entry["kind"] == "write" and not entry.get("idempotent", False) and not entry.get("idempotency_key")
    if unsafe and retry["max_attempts"] > 1:
        return [("retry.max_attempts", "a non-idempotent write without Idempotency-Key is never retried blindly")]
    return []


def _check_slots(entry: dict, manifest: Manifest) -> list[tuple[str, str]]:
    fields, found = _input_fields(entry), []
    for slot in entry["language"].get("slots", []):
        prefix = f"language.slots.{slot['name']}"
        if slot.get("field", slot["name"]) not in fields:
            found.append((f"{prefix}.field", f"{slot.get('field', slot['name'])!r} is not an input property"))
        resolver = slot.get("resolver")
        if resolver:
            target = manifest.capabilities.get(resolver["capability"])
            if target is None:
                found.append((f"{prefix}.resolver.capability", f"unknown capability {resolver['capability']!r}"))
            elif target["kind"] != "read":
                found.append((f"{prefix}.resolver.capability", "a slot resolver must be a read capability"))
        if slot.get("parse") == "enum" and not slot.get("values"):
            found.append((f"{prefix}.values", "an enum slot lists its values"))
        unknown_values = sorted(set(slot.get("value_synonyms") or {}) - set(slot.get("values") or ()))
        if unknown_values:
            found.append((f"{prefix}.value_synonyms", f"not among the slot's values: {', '.join(unknown_values)}"))
    return found + _check_summary(entry) + _check_batch(entry, manifest)


_BATCH_PLACEHOLDERS = {"summary": {"count", "scope"}, "empty": {"scope"}, "done": {"count", "scope", "failed"}}


def _check_batch(entry: dict, manifest: Manifest) -> list[tuple[str, str]]:
    """A batch selects through a registered read and words itself with its own placeholders only."""
    batch = entry["language"].get("batch")
    if not batch:
        return []
    found = []
    select = manifest.capabilities.get(batch["select"])
    if select is None or select["kind"] != "read":
        found.append(("language.batch.select", f"{batch['select']!r} is not a registered read capability"))
    tally = set((batch.get("tally") or {}).get("values") or {})
    for kind, known in _BATCH_PLACEHOLDERS.items():
        for language, template in batch[kind].items():
            unknown = sorted(set(_SUMMARY_PLACEHOLDER.findall(template)) - known - (tally if kind == "done" else set()))
            if unknown:
                found.append((f"language.batch.{kind}.{language}", f"unknown placeholder(s) {', '.join(unknown)}"))
    return found


_SUMMARY_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


def _check_summary(entry: dict) -> list[tuple[str, str]]:
    known = {"target"} | {slot["name"] for slot in entry["language"].get("slots", [])}
    found = []
    for kind in ("summary", "done"):
        for language, template in (entry["language"].get(kind) or {}).items():
            unknown = sorted(set(_SUMMARY_PLACEHOLDER.findall(template)) - known)
            if unknown:
                found.append((f"language.{kind}.{language}", f"unknown placeholder(s) {', '.join(unknown)}"))
    return found
