"""The rest of PRD-010 §51 / PRD-006 §40 on /metrics, each driven by the behaviour it counts: reference
resolution, ambiguity, abandoned pending questions, planning latency and rejections, cache hits."""

from __future__ import annotations

import pytest

from conversations.tasks import expire_pending_task
from planning.exceptions import PlanInvalid
from planning.services import plan_from_steps
from registry.selectors import snapshot_clear
from tests.conversations.conftest import selection

from .test_instrumentation import _scrape, _total

executes = pytest.mark.django_db(transaction=True)


class Delta:
    """Counter deltas between two scrapes of /metrics."""

    def __init__(self, settings) -> None:
        self.settings = settings
        self.before = _scrape(settings)

    def __call__(self, name: str, **labels: str) -> float:
        after = _scrape(self.settings)
        return _total(after, name, **labels) - _total(self.before, name, **labels)


def test_a_permit_named_in_the_text_is_a_resolved_reference_with_its_latency(settings, world, operator_client,
                                                                             start, talk):
    delta = Delta(settings)
    conversation = start(operator_client)
    talk(operator_client, conversation, "abra a permissao 802")
    assert delta("sst_agent_references_total", outcome="resolved", source="text") == 1
    assert delta("sst_agent_reference_resolution_seconds_count", outcome="resolved") == 1
    assert delta("sst_agent_references_total", outcome="ambiguous") == 0


def test_a_reference_taken_from_the_conversation_context_counts_as_context(settings, world, operator_client, start,
                                                                           talk):
    conversation = start(operator_client)
    talk(operator_client, conversation, "abra a permissao 802")
    delta = Delta(settings)
    turn = talk(operator_client, conversation, "agora vá para os componentes")
    assert turn["response"]["type"] == "navigation"
    assert delta("sst_agent_references_total", outcome="resolved", source="context") == 1
    assert delta("sst_agent_references_total", outcome="resolved", source="text") == 0


def test_two_permits_with_one_number_are_an_ambiguity_with_candidates(settings, world, operator_client, start, talk):
    delta = Delta(settings)
    conversation = start(operator_client)
    turn = talk(operator_client, conversation, "abra a permissao 771")
    assert turn["response"]["type"] == "clarification" and len(turn["response"]["clarification"]["candidates"]) == 2
    assert delta("sst_agent_clarifications_total", reason="ambiguous", candidates="true") == 1
    assert delta("sst_agent_references_total", outcome="ambiguous", source="none") == 1
    # Asking the same question again (an unusable answer) is not a second clarification.
    talk(operator_client, conversation, "hmm")
    assert delta("sst_agent_clarifications_total") == 1


def test_an_unknown_permit_number_is_a_reference_not_found(settings, world, operator_client, start, talk):
    delta = Delta(settings)
    conversation = start(operator_client)
    turn = talk(operator_client, conversation, "abra a permissao 999")
    assert turn["response"]["error"]["code"] == "NOT_FOUND"
    assert delta("sst_agent_references_total", outcome="not_found") == 1



def test_a_confirmation_nobody_answers_is_counted_abandoned_by_the_sweep(settings, world, operator_client, start,
                                                                         talk, moved_clock):
    conversation = start(operator_client)
    talk(operator_client, conversation, "altera a validade para 29 dias", ui=selection(world.p802))
    delta = Delta(settings)
    assert expire_pending_task() == 0  # still within its TTL: nothing abandoned
    assert delta("sst_agent_abandoned_pending_total") == 0
    moved_clock.advance(301)
    assert expire_pending_task() == 1
    assert expire_pending_task() == 0  # a second sweep finds nothing left and counts nothing
    assert delta("sst_agent_abandoned_pending_total", how="expired") == 1


@executes
def test_planning_latency_and_plans_generated_by_planner(settings, world, operator_client, start, talk):
    delta = Delta(settings)
    conversation = start(operator_client)
    asked = talk(operator_client, conversation, "altera a validade para 29 dias", ui=selection(world.p802))
    assert asked["response"]["type"] == "confirmation"
    assert delta("sst_agent_plans_total", planner="deterministic") == 1
    assert delta("sst_agent_planning_seconds_count", outcome="created") == 1
    assert delta("sst_agent_plans_rejected_total") == 0


@executes
def test_a_policy_deny_is_a_rejected_plan(settings, world, viewer_client, start, talk):
    delta = Delta(settings)
    conversation = start(viewer_client)
    turn = talk(viewer_client, conversation, "delete permit 802")
    assert turn["response"]["error"]["code"] == "POLICY_DENIED"
    assert delta("sst_agent_plans_rejected_total", reason="policy_deny") == 1
    assert delta("sst_agent_plans_total") == 1  # planned, then refused by policy


def test_an_invalid_plan_is_rejected_and_timed(settings, world, operator):
    delta = Delta(settings)
    with pytest.raises(PlanInvalid):
        plan_from_steps(tenant=world.tenant, actor=operator, template="probe",
                        steps=[{"id": "s1", "capability": "workPermit.doesNotExist", "input": {}}])
    assert delta("sst_agent_plans_rejected_total", reason="plan_invalid") == 1
    assert delta("sst_agent_planning_seconds_count", outcome="invalid") == 1
    assert delta("sst_agent_plans_total") == 0


def test_the_registry_snapshot_is_rebuilt_once_then_reused(settings, world, operator_client, start, talk):
    conversation = start(operator_client)
    snapshot_clear()
    delta = Delta(settings)
    talk(operator_client, conversation, "abra a permissao 802")
    talk(operator_client, conversation, "abra a permissao 771")
    assert delta("sst_agent_registry_snapshot_cache_total", result="miss") == 1
    assert delta("sst_agent_registry_snapshot_cache_total", result="hit") >= 1


def test_the_knowledge_index_is_built_once_then_reused(settings, world, viewer_client):
    from knowledge.index import INDEX_CACHE
    from knowledge.services import knowledge_package_create

    knowledge_package_create(tenant=world.tenant, documents=[
        {"title": "Trabalho em Altura", "body": "Toda atividade acima de 2 metros, regida pela NR-35."}])
    INDEX_CACHE.clear()
    delta = Delta(settings)
    for _ in range(3):
        assert viewer_client.get("/api/knowledge/search", {"q": "trabalho em altura"}).status_code == 200
    assert delta("sst_agent_knowledge_index_cache_total", result="miss") == 1
    assert delta("sst_agent_knowledge_index_cache_total", result="hit") == 2

