"""The LLM planner against a fake chat-completions server on loopback: used only when no template
fits, and what it answers is validated like any plan."""

from __future__ import annotations

import json

import pytest

from planning.exceptions import PlanInvalid
from planning.intents import StructuredIntent, TargetRef
from planning.selectors import plan_steps
from planning.services import plan_from_intent
from tests.fakes.llm_server import fake_llm  # noqa: F401 - fixture

PERMIT = TargetRef(type="workPermit", id=12, revision=4)


def test_a_template_intent_never_calls_the_llm(registry, tenant, operator, fake_llm):  # noqa: F811
    plan_from_intent(tenant=tenant, actor=operator,
                     intent=StructuredIntent(name="workPermit.open", targets={"permit": PERMIT}))
    assert fake_llm.requests == []


def test_an_intent_without_a_template_is_planned_by_the_llm_and_validated(registry, tenant, operator,
                                                                         fake_llm):  # noqa: F811
    fake_llm.content = json.dumps({"steps": [
        {"id": "read", "capability": "workPermit.read", "input": {"permit_id": 12}},
        {"id": "open", "capability": "navigation.workPermit.openTab", "depends_on": ["read"],
         "input": {"permit_id": "${steps.read.result.id}", "tab": "components"},
         "decision": "ALLOW", "tenant": "other"}]})
    intent = StructuredIntent(name="showHazardsOfThisPermit", text="me mostra os riscos dessa PT",
                              targets={"permit": PERMIT})
    plan = plan_from_intent(tenant=tenant, actor=operator, intent=intent)
    request = fake_llm.requests[-1]
    assert (request["path"], request["auth"], request["body"]["model"]) == (
        "/v1/chat/completions", "Bearer test-key", "fake-model")
    offered = {c["id"] for c in fake_llm.last_user_message["capabilities"]}
    assert "workPermit.delete" not in offered  # operators cannot discover it
    assert plan.planner == "llm"
    assert [s.capability_id for s in plan_steps(plan=plan)] == ["workPermit.read", "navigation.workPermit.openTab"]


@pytest.mark.parametrize("answer, code", [
    ({"steps": [{"id": "x", "capability": "workPermit.delete", "input": {"permit_id": 1, "tenant_id": "t2"}}]},
     "FORBIDDEN_OPERATION"),
    ({"steps": [{"id": "a", "capability": "workPermit.read", "input": {"permit_id": 1}, "depends_on": ["a"]}]},
     "DEPENDENCY_CYCLE"),
    ({"steps": [{"id": "a", "capability": "sql.execute", "input": {"q": "DROP TABLE"}}]}, "CAPABILITY_UNAVAILABLE"),
    ("not json at all", "LLM_PLAN_UNUSABLE"),
])
def test_whatever_the_llm_answers_goes_through_validation(registry, tenant, operator, fake_llm,  # noqa: F811
                                                          answer, code):
    fake_llm.content = answer if isinstance(answer, str) else json.dumps(answer)
    with pytest.raises(PlanInvalid) as caught:
        plan_from_intent(tenant=tenant, actor=operator, intent=StructuredIntent(name="somethingNew"))
    assert code in [r["code"] for r in caught.value.reasons]
