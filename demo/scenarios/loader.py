"""Finding and loading scenario files: YAML → schema check → reference check → `Scenario`.

A file that does not parse, breaks the schema, or names something its world lacks (an employee, a
component, a company, a permit or an inspection a selection points at) is an `InvalidScenario`: a
defect of the file, reported apart from failures of the product. So is a broken model-script
sidecar (`X.model.yaml`, model_script.py), which is never taken for a scenario of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from demo.seeding.world import component_lookup, name_problems, world_companies, world_problems
from sst.text import fold

from .kinds import KINDS, kinds_named
from .model_script import ModelScript, is_sidecar, script_load
from .schema import schema_errors

SUFFIXES = (".yaml", ".yml")
NEW = "new"  # `permit: new` — the one permit (or inspection) the scenario's turns created


@dataclass(frozen=True)
class Scenario:
    path: Path
    name: str
    data: Mapping[str, Any]
    model_script: ModelScript | None = None  # the `X.model.yaml` sidecar's replies, if any

    @property
    def turns(self) -> list[Mapping[str, Any]]:
        return list(self.data["turns"])


class InvalidScenario(Exception):
    def __init__(self, path: Path, problems: list[str], name: str | None = None) -> None:
        super().__init__(f"{path}: {'; '.join(problems)}")
        self.path, self.problems, self.name = path, problems, name


def scenario_files(paths: Iterable[str | Path]) -> list[Path]:
    """The files named, and the scenario files inside the folders named (sorted), in argument order."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found += sorted(p for p in path.rglob("*") if p.suffix in SUFFIXES and p.is_file()
                            and not is_sidecar(p))
        elif not is_sidecar(path):  # a shell glob names the sidecars too: they belong to their scenario
            found.append(path)
    return list(dict.fromkeys(found))


def scenario_load(path: Path) -> Scenario:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise InvalidScenario(path, [f"cannot read: {exc}"]) from None
    name = data.get("name") if isinstance(data, dict) and isinstance(data.get("name"), str) else None
    problems = schema_errors(data)
    if not problems:
        problems = reference_problems(data)
    script = None
    if not problems:
        script, problems = script_load(path, len(data["turns"]))
    if problems:
        raise InvalidScenario(path, problems, name)
    return Scenario(path=path, name=data["name"], data=data, model_script=script)


def reference_problems(data: Mapping[str, Any]) -> list[str]:
    """Names in the world's permits and inspections and in the turns that the world does not have."""
    world = data["world"]
    problems = world_problems(world)
    for index, turn in enumerate(data["turns"], start=1):
        problems += [f"turns[{index}].{p}" for p in _turn_problems(world, turn)]
    return problems


def _turn_problems(world: Mapping[str, Any], turn: Mapping[str, Any]) -> list[str]:
    problems: list[str] = []
    ui = turn.get("ui") or {}
    if "selection" in ui:
        selection = ui["selection"]
        target = (world.get("other_tenant") or {}) if selection.get("tenant") == "other" else world
        problems += _selection_problems(target, selection, "ui.selection")
    if "company" in ui.get("filters", {}):
        problems += _company_problems(world, ui["filters"]["company"], "ui.filters.company")
    fault = turn.get("fault")
    if isinstance(fault, dict):
        problems += _match_problems(world, fault.get("match") or {})
    expect = turn.get("expect") or {}
    if isinstance(expect.get("navigation"), dict):
        problems += _company_problems(world, expect["navigation"].get("company"), "expect.navigation.company")
        if len(kinds_named(expect["navigation"])) > 1:
            problems.append("expect.navigation: navigates to one permit or one inspection, not both")
    for number, fact in enumerate(expect.get("world", [])):
        problems += _fact_problems(world, fact, f"expect.world[{number}]")
    return problems


def _selection_problems(world: Mapping[str, Any], ref: Mapping[str, Any], at: str) -> list[str]:
    named = kinds_named(ref)
    if len(named) != 1:
        return [f"{at}: select one permit or one inspection"]
    kind = named[0]
    if ref[kind.key] == NEW:
        return []
    matching = [item for item in world.get(kind.plural, []) if item["number"] == ref[kind.key]
                and ref.get("company") in (None, item["company"])]
    if len(matching) == 1:
        return []
    company = f" of {ref['company']!r}" if ref.get("company") else ""
    if not matching:
        return [f"{at}: the world has no {kind.key} {ref[kind.key]!r}{company}"]
    return [f"{at}: {len(matching)} {kind.plural} numbered {ref[kind.key]!r}: name the company"]


def _company_problems(world: Mapping[str, Any], company: str | None, at: str) -> list[str]:
    if company is None or company in world_companies(world):
        return []
    return [f"{at}: unknown company {company!r}"]


def _match_problems(world: Mapping[str, Any], match: Mapping[str, str]) -> list[str]:
    problems = []
    if "component" in match and not any(fold(match["component"]) in key for key in component_lookup(world)):
        problems.append(f"fault.match.component: unknown component {match['component']!r}")
    employees = [fold(e["name"]) for e in world.get("employees", [])]
    if "employee" in match and not any(fold(match["employee"]) in name for name in employees):
        problems.append(f"fault.match.employee: unknown employee {match['employee']!r}")
    return problems


def _fact_problems(world: Mapping[str, Any], fact: Mapping[str, Any], at: str) -> list[str]:
    problems = _company_problems(world, fact.get("company"), f"{at}.company") + name_problems(world, fact, at)
    named = kinds_named(fact)
    counts = {kind.plural for kind in KINDS} | {"other_tenant_unchanged"}
    if len(named) > 1:
        problems.append(f"{at}: a fact is about one permit or one inspection, not both")
    elif not named and set(fact) - counts:
        problems.append(f"{at}: fields without `permit` or `inspection`")
    elif named:
        # A field of the other kind (an inspection's `findings` on a permit) could never hold.
        others = {f for k in KINDS if k is not named[0] for f in (*k.fields, *k.sets)}
        alien = sorted((others - {*named[0].fields, *named[0].sets}) & set(fact))
        problems += [f"{at}.{field}: not a field of {named[0].plural}" for field in alien]
    return problems
