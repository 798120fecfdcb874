"""`manage.py run_scenarios`: files that must fail fail for their own reason, a valid file passes, exit codes."""

from __future__ import annotations

import io
import json
import logging
import re
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.core.management import call_command

from demo.scenarios.loader import InvalidScenario, scenario_files, scenario_load
from demo.scenarios.schema import SCHEMA_PATH
from demo.testcontrol.services import WORLD_SLUG_PREFIX
from tenancy.models import Tenant

FIXTURES = Path(settings.BASE_DIR) / "tests" / "scenarios"
SHARED = Path(settings.BASE_DIR).parent / "shared"

# file → (verdict, turn, the start of the reason): each must fail for its own reason.
MUST_FAIL = {
    "wrong_world_fact.yaml": ("FAIL", 2, "world: expected {'permit': '77', 'validity_days': 13}"),
    "wrong_status.yaml": ("FAIL", 1, "status: expected 'CLOSED'"),
    "missing_event.yaml": ("FAIL", 1, "events: expected ['EXECUTION_COMPENSATED']"),
    "text_not_said.yaml": ("FAIL", 1, "says: expected 'hipopótamo azul'"),
    "wrong_navigation.yaml": ("FAIL", 1, "navigation: expected {'permit': '77'}, observed None"),
    "wrong_candidates.yaml": ("FAIL", 1, "candidates: expected 3, observed 0"),
    "wrong_llm_calls.yaml": ("FAIL", 1, "llm_calls: expected 7"),
    "breaks_schema.yaml": ("INVALID", None, "turns[0]"),
    "unknown_employee.yaml": ("INVALID", None, "world.permits[0].responsible: unknown employee 'Fulano de Tal'"),
}


def run(*paths: Path | str) -> tuple[int, list[str]]:
    out = io.StringIO()
    with pytest.raises(SystemExit) as exit_info:
        call_command("run_scenarios", *map(str, paths), stdout=out)
        raise SystemExit(0)
    return exit_info.value.code, out.getvalue().splitlines()


def test_the_schema_copy_equals_the_shared_design_schema():
    shared = SHARED / "design" / "scenario.schema.json"
    if not shared.exists():
        pytest.skip("../shared/design is not beside this checkout")
    assert json.loads(SCHEMA_PATH.read_text()) == json.loads(shared.read_text())


def test_every_shared_scenario_is_a_valid_file():
    folder = SHARED / "scenarios"
    if not folder.exists():
        pytest.skip("../shared/scenarios is not beside this checkout")
    files = scenario_files([folder])
    assert len(files) >= 20
    for path in files:
        scenario_load(path)  # raises InvalidScenario


def test_every_must_fail_file_fails_for_its_own_reason(db, clean_clock):
    code, lines = run(FIXTURES / "must_fail")
    assert code == 1
    assert lines[-1] == f"0 passed, {len(MUST_FAIL)} failed"
    for name, (verdict, turn, reason) in MUST_FAIL.items():
        line = next(line for line in lines if f"/{name})" in line)
        assert line.startswith(f"{verdict} "), line
        after = line.split("): ", 1)[1] if turn is None else line.split(f") turn {turn}: ", 1)[1]
        assert reason in after, line


def test_a_scenario_exercising_every_directive_passes_and_leaves_no_world_behind(db, clean_clock):
    code, lines = run(FIXTURES / "pass" / "world_and_directives.yaml")
    assert lines == ["PASS harness-world-and-directives", "1 passed, 0 failed"]
    assert code == 0
    assert not Tenant.objects.filter(slug__startswith=WORLD_SLUG_PREFIX).exists()


def test_no_info_log_line_is_written_between_the_verdicts(db, clean_clock):
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logging.getLogger().addHandler(handler)
    try:
        code, lines = run(FIXTURES / "pass" / "world_and_directives.yaml")
    finally:
        logging.getLogger().removeHandler(handler)
    assert code == 0 and lines[-1] == "1 passed, 0 failed"
    assert [r.getMessage() for r in records if r.levelno < logging.WARNING] == []


def test_a_missing_file_is_reported_invalid_and_counted_failed(db, tmp_path):
    code, lines = run(tmp_path / "nope.yaml", FIXTURES / "pass")
    assert code == 1
    assert lines[0].startswith("INVALID nope") and "cannot read" in lines[0]
    assert lines[-1] == "1 passed, 1 failed"


def test_a_file_naming_a_component_its_world_lacks_in_an_expectation_is_invalid(tmp_path):
    data = yaml.safe_load((FIXTURES / "pass" / "world_and_directives.yaml").read_text())
    data["turns"][0]["expect"]["world"].append({"permit": "78", "components": ["Espaço Confinado"]})
    data["turns"][1]["ui"]["selection"] = {"permit": "404"}
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True))
    with pytest.raises(InvalidScenario) as error:
        scenario_load(path)
    text = " | ".join(error.value.problems)
    assert "unknown component 'Espaço Confinado'" in text and "no permit '404'" in text


def test_the_final_line_is_exactly_n_passed_m_failed(db, clean_clock):
    _, lines = run(FIXTURES / "pass", FIXTURES / "must_fail" / "wrong_status.yaml")
    assert re.fullmatch(r"\d+ passed, \d+ failed", lines[-1]) and lines[-1] == "1 passed, 1 failed"


def test_live_mode_plays_through_http_and_the_test_control_api(live_server, settings, clean_clock):
    settings.AGENT_TEST_CONTROL = True
    settings.AGENT_TEST_CONTROL_TOKEN = "live-token"  # noqa: S105
    settings.SST_FAULT_INJECTION = True
    code, lines = run(FIXTURES / "pass", FIXTURES / "must_fail" / "wrong_world_fact.yaml", "--live", live_server.url,
                      "--token", "live-token")
    assert lines[0] == "PASS harness-world-and-directives"
    assert lines[1].startswith("FAIL must-fail-wrong-world-fact") and " turn 2: world:" in lines[1]
    assert (lines[-1], code) == ("1 passed, 1 failed", 1)
    assert not Tenant.objects.filter(slug__startswith=WORLD_SLUG_PREFIX).exists()


def test_live_mode_against_a_server_without_test_control_fails_every_scenario(live_server, settings):
    settings.AGENT_TEST_CONTROL = False
    code, lines = run(FIXTURES / "pass", "--live", live_server.url, "--token", "whatever")
    assert code == 1 and "HTTP 404" in lines[0] and lines[-1] == "0 passed, 1 failed"


def _shared_scenarios() -> list[Path]:
    # The second domain's folder joins the played set now that the agent handles inspections.
    folder = SHARED / "scenarios"
    files = sorted(folder.glob("*.yaml")) + sorted((folder / "inspections").glob("*.yaml"))
    if not files:
        pytest.skip("../shared/scenarios is not beside this checkout")
    return files


@pytest.mark.django_db(transaction=True)
def test_the_shared_scenarios_play_green_through_the_real_conversation_api(clean_clock):
    files = _shared_scenarios()
    code, lines = run(*files)
    assert (lines[-1], code) == (f"{len(files)} passed, 0 failed", 0), "\n".join(lines)


@pytest.mark.django_db(transaction=True)
def test_the_shared_scenarios_play_green_with_an_llm_configured(clean_clock, fake_llm):
    # Every shared turn is on the deterministic path: configuring an LLM must change nothing and
    # every `llm_calls` expectation must still hold, counted from real calls to the fake server.
    fake_llm.content = "{}"
    files = _shared_scenarios()
    code, lines = run(*files)
    assert (lines[-1], code) == (f"{len(files)} passed, 0 failed", 0), "\n".join(lines)


@pytest.mark.django_db(transaction=True)
def test_the_shared_scenarios_play_green_live_against_daphne_and_a_real_worker(clean_clock):
    # The acceptance's own setting: over HTTP to the ASGI server, executions run by a Celery worker
    # process on the suite's Redis (not eagerly), the clock moved through test control.
    from tests.browser.servers import AsgiServer
    from tests.execution.worker import WorkerProcess

    files = _shared_scenarios()
    worker, server = WorkerProcess(), AsgiServer()
    worker.start()
    try:
        worker.wait_ready()
        server.start(AGENT_TEST_CONTROL="1", AGENT_TEST_CONTROL_TOKEN="live-token")
        code, lines = run(*files, "--live", server.url, "--token", "live-token")
    finally:
        server.stop()
        worker.kill()
    assert (lines[-1], code) == (f"{len(files)} passed, 0 failed", 0), "\n".join(lines)


MODEL_SCRIPT = FIXTURES / "model_script"


@pytest.mark.django_db(transaction=True)  # the confirmed execution starts on commit
def test_a_wrong_model_reply_makes_the_scenario_fail_on_the_world(clean_clock):
    code, lines = run(MODEL_SCRIPT / "wrong_reply.yaml")
    assert code == 1 and lines[-1] == "0 passed, 1 failed", lines
    assert lines[0].startswith("FAIL must-fail-wrong-model-reply"), lines
    assert ") turn 2: world: expected {'permit': '8801', 'status': 'CANCELLED'}" in lines[0], lines
    assert "'status': 'APPROVED'" in lines[0]


def test_a_malformed_sidecar_is_an_invalid_file_naming_the_entry(tmp_path):
    (tmp_path / "s.yaml").write_text((MODEL_SCRIPT / "wrong_reply.yaml").read_text())
    (tmp_path / "s.model.yaml").write_text("- {turn: 0, reply: {steps: []}}\n- {turn: -1, replies: {}}\n"
                                           "- {turn: 5, reply: {}}\n")
    with pytest.raises(InvalidScenario) as error:
        scenario_load(tmp_path / "s.yaml")
    text = " | ".join(error.value.problems)
    assert "s.model.yaml: entry [1]" in text and "'reply' is a required property" in text, text
    assert "-1 is less than the minimum of 0" in text, text
    (tmp_path / "s.model.yaml").write_text("- {turn: 5, reply: {}}\n")
    with pytest.raises(InvalidScenario) as error:
        scenario_load(tmp_path / "s.yaml")
    assert error.value.problems == ["s.model.yaml: entry [0]: turn 5 — the scenario has 2 turn(s), numbered from 0"]
    assert scenario_files([tmp_path, tmp_path / "s.model.yaml"]) == [tmp_path / "s.yaml"]


def test_live_mode_skips_a_scenario_with_a_model_script(live_server, settings, clean_clock):
    settings.AGENT_TEST_CONTROL = True
    settings.AGENT_TEST_CONTROL_TOKEN = "live-token"  # noqa: S105
    settings.SST_FAULT_INJECTION = True
    code, lines = run(MODEL_SCRIPT, FIXTURES / "pass", "--live", live_server.url, "--token", "live-token")
    assert lines[0].startswith("SKIP must-fail-wrong-model-reply") and "cannot be scripted" in lines[0], lines
    assert (lines[-1], code) == ("1 passed, 0 failed", 0)
