"""`run_scenarios` on inspection worlds: a file that must pass passes, each must-fail file fails for its own reason,
in-process and `--live`; the loader reports inspection references the world lacks."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from demo.scenarios.loader import InvalidScenario, scenario_load
from demo.testcontrol.services import WORLD_SLUG_PREFIX
from tenancy.models import Tenant

from .test_run_scenarios import SHARED, run

FIXTURES = Path(__file__).parent / "scenarios"
PASS = FIXTURES / "pass" / "inspections.yaml"

# file → (verdict, turn, the start of the reason)
MUST_FAIL = {
    "wrong_inspection_fact.yaml": ("FAIL", 1, "world: expected {'inspection': '8', 'findings': ['Fiação exposta', "
                                              "'Piso molhado']}, observed {'findings': ['Fiação exposta'], "
                                              "'inspection': '8'}"),
    "wrong_inspection_status.yaml": ("FAIL", 1, "world: expected {'inspection': '8', 'status': 'SCHEDULED'}, "
                                                "observed {'status': 'DONE', 'inspection': '8'}"),
    "wrong_inspection_navigation.yaml": ("FAIL", 1, "navigation: expected {'inspection': '8'}, observed None"),
    "unknown_inspector.yaml": ("INVALID", None, "world.inspections[0].inspector: unknown employee 'Fulano de Tal'"),
}


def assert_outcomes(lines: list[str]) -> None:
    for name, (verdict, turn, reason) in MUST_FAIL.items():
        line = next(line for line in lines if f"/{name})" in line)
        assert line.startswith(f"{verdict} "), line
        after = line.split("): ", 1)[1] if turn is None else line.split(f") turn {turn}: ", 1)[1]
        assert after.startswith(reason) if turn else reason in after, line


def test_an_inspection_world_passes_and_every_must_fail_file_fails_for_its_own_reason(db, clean_clock):
    code, lines = run(PASS, FIXTURES / "must_fail")
    assert lines[0] == "PASS harness-inspections", lines
    assert_outcomes(lines)
    assert (lines[-1], code) == (f"1 passed, {len(MUST_FAIL)} failed", 1)
    assert not Tenant.objects.filter(slug__startswith=WORLD_SLUG_PREFIX).exists()


def test_live_mode_plays_inspection_worlds_through_http(live_server, settings, clean_clock):
    settings.AGENT_TEST_CONTROL = True
    settings.AGENT_TEST_CONTROL_TOKEN = "live-token"  # noqa: S105
    settings.SST_FAULT_INJECTION = True
    code, lines = run(PASS, FIXTURES / "must_fail", "--live", live_server.url, "--token", "live-token")
    assert lines[0] == "PASS harness-inspections", lines
    assert_outcomes(lines)
    assert (lines[-1], code) == (f"1 passed, {len(MUST_FAIL)} failed", 1)


def test_the_shared_inspection_scenarios_are_valid_files():
    folder = SHARED / "scenarios" / "inspections"
    if not folder.exists():
        pytest.skip("../shared/scenarios/inspections is not beside this checkout")
    for path in sorted(folder.glob("*.yaml")):
        assert scenario_load(path).data["world"]["inspections"]


@pytest.mark.parametrize(("change", "problem"), [
    (lambda d: d["turns"][0]["ui"].update(selection={"inspection": "404"}),
     "turns[1].ui.selection: the world has no inspection '404'"),
    (lambda d: d["turns"][0]["ui"].update(selection={"inspection": "8"}),
     "turns[1].ui.selection: 2 inspections numbered '8': name the company"),
    (lambda d: d["turns"][0]["ui"].update(selection={"inspection": "8", "permit": "8"}),
     "turns[1].ui.selection: select one permit or one inspection"),
    (lambda d: d["turns"][1]["ui"].update(selection={"inspection": "9", "tenant": "other"}),
     "turns[2].ui.selection: the world has no inspection '9'"),
    (lambda d: d["turns"][0]["expect"]["world"].append({"inspection": "8", "inspector": "Ninguém"}),
     "turns[1].expect.world[7].inspector: unknown employee 'Ninguém'"),
    (lambda d: d["turns"][0]["expect"]["world"].append({"inspection": "8", "components": []}),
     "turns[1].expect.world[7].components: not a field of inspections"),
    (lambda d: d["turns"][0]["expect"]["world"].append({"permit": "8", "findings": []}),
     "turns[1].expect.world[7].findings: not a field of permits"),
    (lambda d: d["turns"][0]["expect"]["world"].append({"site": "Galpão 1"}),
     "turns[1].expect.world[7]: fields without `permit` or `inspection`"),
    (lambda d: d["turns"][0]["expect"].update(navigation={"inspection": "8", "permit": "8"}),
     "turns[1].expect.navigation: navigates to one permit or one inspection, not both"),
])
def test_inspection_references_the_world_lacks_make_the_file_invalid(change, problem, tmp_path):
    data = yaml.safe_load(PASS.read_text())
    change(data)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True))
    with pytest.raises(InvalidScenario) as error:
        scenario_load(path)
    assert problem in error.value.problems
