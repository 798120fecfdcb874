"""The judge, key by key, on observations built by hand (no database, no API)."""

from __future__ import annotations

from demo.scenarios.judge import Baseline, ExecutionSeen, NavigationSeen, Observation, judge

ALFA, BETA = "Alfa Construções", "Beta Montagens"
PERMITS = (
    {"id": 1, "number": "123", "company": ALFA, "status": "DRAFT", "validity_days": 30, "responsible": "João Silva",
     "components": ["Trabalho em Altura", "Trabalho a Quente"], "workers": ["Maria Souza"]},
    {"id": 2, "number": "123", "company": BETA, "status": "APPROVED", "validity_days": 15, "responsible": None,
     "components": [], "workers": []},
    {"id": 3, "number": "456", "company": ALFA, "status": "DRAFT", "validity_days": 60, "responsible": None,
     "components": [], "workers": []},
)
BASE = Baseline(permit_ids=frozenset({1, 2, 3}), other_digest="d1")


def seen(**changes) -> Observation:
    values = {"status": "SUCCESS", "type": "execution", "texts": ("Adicionei o componente “Trabalho em Altura”.",),
              "permits": PERMITS, "other_digest": "d1", "llm_calls": 0}
    values.update(changes)
    return Observation(**values)


def to_permit(entity_id: str, label: str, tab: str | None = None) -> NavigationSeen:
    return NavigationSeen(entity_id=entity_id, label=label, tab=tab, entity_type="workPermit")


def failing_key(expect: dict, observation: Observation, baseline: Baseline = BASE) -> str | None:
    mismatch = judge(expect, observation, baseline)
    return None if mismatch is None else mismatch.key


def test_status_and_type_must_equal():
    assert failing_key({"status": "SUCCESS", "type": "execution"}, seen()) is None
    assert failing_key({"status": "FAILED"}, seen()) == "status"
    assert failing_key({"type": "answer"}, seen()) == "type"


def test_says_ignores_case_and_accents_and_not_says_fails_on_any_match():
    assert failing_key({"says": ["trabalho em ALTURA", "componente"]}, seen()) is None
    assert failing_key({"says": ["adicionei o componente \"trabalho"]}, seen()) == "says"
    assert failing_key({"says": ["Trabalho a Quente"]}, seen()) == "says"
    assert failing_key({"not_says": ["Gama"]}, seen()) is None
    assert failing_key({"not_says": ["ALTURÁ"]}, seen()) == "not_says"


def test_the_first_failing_key_is_reported_in_file_order_with_what_was_observed():
    mismatch = judge({"type": "execution", "says": ["NR-35"], "status": "FAILED"}, seen(), BASE)
    assert mismatch.key == "says" and "NR-35" in str(mismatch) and "Trabalho em Altura" in str(mismatch)


def test_candidates_count_the_options_offered():
    assert failing_key({"candidates": 2}, seen(candidates=2)) is None
    assert failing_key({"candidates": 2}, seen(candidates=3)) == "candidates"


def test_llm_calls_must_equal_and_missing_metrics_fail():
    assert failing_key({"llm_calls": 0}, seen()) is None
    assert failing_key({"llm_calls": 0}, seen(llm_calls=1)) == "llm_calls"
    assert failing_key({"llm_calls": 0}, seen(llm_calls=None)) == "llm_calls"


def test_events_must_appear_in_order_with_others_between():
    events = ("MESSAGE_RECEIVED", "CONFIRMATION_RECEIVED", "EXECUTION_STARTED", "EXECUTION_COMPLETED")
    assert failing_key({"events": ["CONFIRMATION_RECEIVED", "EXECUTION_COMPLETED"]}, seen(events=events)) is None
    assert failing_key({"events": ["EXECUTION_COMPLETED", "CONFIRMATION_RECEIVED"]}, seen(events=events)) == "events"
    assert failing_key({"events": ["UNDO_REQUESTED"]}, seen(events=events)) == "events"


def test_execution_status_and_failed_count():
    partial = ExecutionSeen(status="partially_completed", failed=1, wrote=True)
    assert failing_key({"execution": {"status": "partially_completed", "failed": 1}}, seen(execution=partial)) is None
    assert failing_key({"execution": {"status": "partially_completed", "failed": 0}},
                       seen(execution=partial)) == "execution"
    assert failing_key({"execution": {"status": "completed"}}, seen(execution=partial)) == "execution"
    assert failing_key({"execution": {"status": "completed"}}, seen(execution=None)) == "execution"


def test_execution_none_allows_reads_but_not_writes():
    assert failing_key({"execution": "none"}, seen(execution=None)) is None
    read = ExecutionSeen(status="completed", failed=0, wrote=False)
    assert failing_key({"execution": "none"}, seen(execution=read)) is None
    write = ExecutionSeen(status="failed", failed=1, wrote=True)
    assert failing_key({"execution": "none"}, seen(execution=write)) == "execution"


def test_navigation_matches_the_target_permit_company_and_tab():
    to_beta = seen(navigation=to_permit("2", "123", "components"))
    assert failing_key({"navigation": {"permit": "123", "company": BETA, "tab": "components"}}, to_beta) is None
    assert failing_key({"navigation": {"permit": "123"}}, to_beta) is None
    assert failing_key({"navigation": {"permit": "123", "company": ALFA}}, to_beta) == "navigation"
    assert failing_key({"navigation": {"permit": "456"}}, to_beta) == "navigation"
    assert failing_key({"navigation": {"permit": "123", "tab": None}}, to_beta) == "navigation"
    assert failing_key({"navigation": "none"}, to_beta) == "navigation"
    assert failing_key({"navigation": "none"}, seen()) is None
    assert failing_key({"navigation": {"permit": "123"}}, seen()) == "navigation"


def test_navigation_to_an_entity_outside_the_tenant_never_matches():
    elsewhere = seen(navigation=to_permit("999", "123"))
    assert failing_key({"navigation": {"permit": "123"}}, elsewhere) == "navigation"


def test_new_is_the_one_permit_the_turns_created():
    created = {"id": 9, "number": "124", "company": ALFA, "status": "DRAFT", "validity_days": 30,
               "responsible": "João Silva", "components": ["Trabalho em Altura"], "workers": []}
    after = seen(permits=(*PERMITS, created), navigation=to_permit("9", "124"))
    assert failing_key({"world": [{"permit": "new", "responsible": "João Silva", "validity_days": 30}]}, after) is None
    assert failing_key({"navigation": {"permit": "new"}}, after) is None
    assert failing_key({"world": [{"permit": "new", "validity_days": 31}]}, after) == "world"
    assert failing_key({"world": [{"permit": "new", "exists": True}]}, seen()) == "world"
    to_old = seen(permits=(*PERMITS, created), navigation=to_permit("1", "123"))
    assert failing_key({"navigation": {"permit": "new"}}, to_old) == "navigation"


def test_world_facts_compare_fields_and_exact_sets():
    assert failing_key({"world": [{"permit": "123", "company": ALFA, "validity_days": 30, "status": "DRAFT",
                                   "responsible": "João Silva", "workers": ["Maria Souza"],
                                   "components": ["Trabalho a Quente", "Trabalho em Altura"]}]}, seen()) is None
    assert failing_key({"world": [{"permit": "123", "company": ALFA, "components": ["Trabalho em Altura"]}]},
                       seen()) == "world"
    assert failing_key({"world": [{"permit": "456", "validity_days": 30}]}, seen()) == "world"
    assert failing_key({"world": [{"permit": "123", "company": BETA, "status": "DRAFT"}]}, seen()) == "world"


def test_a_permit_fact_without_company_must_name_exactly_one_permit():
    mismatch = judge({"world": [{"permit": "123", "validity_days": 30}]}, seen(), BASE)
    assert mismatch is not None and "2 permits match" in str(mismatch)


def test_exists_count_and_other_tenant_facts():
    assert failing_key({"world": [{"permit": "999", "exists": False}, {"permit": "456", "exists": True}]},
                       seen()) is None
    assert failing_key({"world": [{"permit": "456", "exists": False}]}, seen()) == "world"
    assert failing_key({"world": [{"permits": 3}]}, seen()) is None
    assert failing_key({"world": [{"permits": 2}]}, seen()) == "world"
    assert failing_key({"world": [{"other_tenant_unchanged": True}]}, seen()) is None
    assert failing_key({"world": [{"other_tenant_unchanged": True}]}, seen(other_digest="d2")) == "world"


INSPECTIONS = (
    {"id": 1, "number": "45", "company": ALFA, "site": "Galpão 3", "status": "SCHEDULED", "scheduled_for": "2030-01-08",
     "scheduled_in_days": 7, "inspector": "Paula Reis", "findings": ["Extintor vencido", "Piso molhado"]},
    {"id": 2, "number": "46", "company": ALFA, "site": "", "status": "DONE", "scheduled_for": "2029-12-30",
     "scheduled_in_days": -2, "inspector": None, "findings": []},
    {"id": 3, "number": "45", "company": BETA, "site": "Pátio", "status": "CANCELLED", "scheduled_for": "2030-01-08",
     "scheduled_in_days": 7, "inspector": None, "findings": []},
)
INSPECTED = Baseline(permit_ids=frozenset({1, 2, 3}), inspection_ids=frozenset({1, 2, 3}), other_digest="d1")


def inspected(**changes) -> Observation:
    return seen(**{"inspections": INSPECTIONS, **changes})


def failing_inspection_key(expect: dict, observation: Observation | None = None) -> str | None:
    return failing_key(expect, observation or inspected(), INSPECTED)


def test_inspection_facts_compare_status_date_inspector_site_and_the_exact_set_of_findings():
    assert failing_inspection_key({"world": [
        {"inspection": "45", "company": ALFA, "status": "SCHEDULED", "scheduled_in_days": 7, "inspector": "Paula Reis",
         "site": "Galpão 3", "findings": ["Piso molhado", "Extintor vencido"]},
        {"inspection": "46", "status": "DONE", "scheduled_in_days": -2, "findings": [], "site": ""},
        {"inspection": "47", "exists": False}, {"inspections": 3}, {"permits": 3}]}) is None
    for wrong in [{"scheduled_in_days": 10}, {"status": "DONE"}, {"inspector": "Ana Costa"}, {"site": "Galpão 4"},
                  {"findings": ["Extintor vencido"]}, {"findings": ["Extintor vencido", "Piso molhado", "x"]}]:
        assert failing_inspection_key({"world": [{"inspection": "45", "company": ALFA, **wrong}]}) == "world", wrong


def test_an_inspection_fact_reports_what_was_observed_and_needs_one_match():
    mismatch = judge({"world": [{"inspection": "45", "company": ALFA, "scheduled_in_days": 10}]}, inspected(),
                     INSPECTED)
    assert mismatch.observed == {"inspection": "45", "company": ALFA, "scheduled_in_days": 7}
    ambiguous = judge({"world": [{"inspection": "45", "status": "SCHEDULED"}]}, inspected(), INSPECTED)
    assert "2 inspections match '45'" in str(ambiguous)
    assert failing_inspection_key({"world": [{"inspection": "46", "exists": False}]}) == "world"
    assert failing_inspection_key({"world": [{"inspections": 2}]}) == "world"


def test_inspection_counts_and_permit_counts_are_apart():
    only_permits = seen()
    assert failing_inspection_key({"world": [{"inspections": 0}, {"permits": 3}]}, only_permits) is None
    assert failing_inspection_key({"world": [{"inspections": 3}]}, only_permits) == "world"


def test_new_is_the_one_inspection_the_turns_created():
    created = {"id": 9, "number": "47", "company": ALFA, "site": "Pátio", "status": "SCHEDULED",
               "scheduled_for": "2030-01-03", "scheduled_in_days": 2, "inspector": None, "findings": []}
    after = inspected(inspections=(*INSPECTIONS, created),
                      navigation=NavigationSeen(entity_id="9", label="47", tab=None, entity_type="inspection"))
    assert failing_inspection_key({"world": [{"inspection": "new", "site": "Pátio", "scheduled_in_days": 2}],
                                   "navigation": {"inspection": "new"}}, after) is None
    assert failing_inspection_key({"world": [{"inspection": "new"}]}) == "world"


def to_inspection(entity_id: str, label: str) -> NavigationSeen:
    return NavigationSeen(entity_id=entity_id, label=label, tab=None, entity_type="inspection")


def test_navigation_to_an_inspection_is_judged_by_its_number_and_company():
    assert failing_inspection_key({"navigation": {"inspection": "45"}}, inspected(navigation=to_inspection("3", "45")))\
        is None
    assert failing_inspection_key({"navigation": {"inspection": "45", "company": ALFA}},
                                  inspected(navigation=to_inspection("3", "45"))) == "navigation"
    assert failing_inspection_key({"navigation": {"inspection": "46"}},
                                  inspected(navigation=to_inspection("1", "45"))) == "navigation"
    assert failing_inspection_key({"navigation": {"inspection": "45"}},
                                  inspected(navigation=to_inspection("99", "45"))) == "navigation"


def test_ids_of_permits_and_inspections_never_stand_for_each_other():
    # Permit 1 and inspection 1 share an id: the entity type decides which one was opened.
    to_permit_1 = inspected(navigation=to_permit("1", "123"))
    assert failing_inspection_key({"navigation": {"inspection": "45"}}, to_permit_1) == "navigation"
    assert failing_inspection_key({"navigation": {"permit": "123", "company": ALFA}}, to_permit_1) is None
    assert failing_inspection_key({"navigation": {"permit": "45"}}, inspected(navigation=to_inspection("1", "45")))\
        == "navigation"
    untyped = inspected(navigation=NavigationSeen(entity_id="1", label="45", tab=None))
    mismatch = judge({"navigation": {"inspection": "45"}}, untyped, INSPECTED)
    assert mismatch is not None and mismatch.observed["found"] == "not a permit or an inspection"
