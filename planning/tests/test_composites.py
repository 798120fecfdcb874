"""The composite interpreter (planning.templates) on definitions written here, with placeholder entities:
what a manifest author can rely on, independent of the shipped composites."""

from __future__ import annotations

import pytest

from planning.intents import StructuredIntent, TargetRef
from planning.templates import TEMPLATES, TemplateError, composite_draft
from registry.selectors import composite_definitions

THING = TargetRef(type="thing", id=7, revision=3)

CHAIN = {
    "name": "thing.copyWithChanges",
    "requires": [{"target": "source"}, {"any_slot": ["owner", "size"]}],
    "steps": [
        {"id": "read", "capability": "thing.read", "input": {"thing_id": "${intent.targets.source.id}"},
         "targets": ["source"]},
        {"id": "lookup", "when": "owner", "capability": "person.read", "input": {"person_id": "${intent.slots.owner}"}},
        {"id": "create", "capability": "thing.create", "input": {"size": "${steps.read.result.size}"},
         "depends_on": ["read", "lookup"]},
        {"id": "set_owner", "when": "owner", "capability": "thing.update",
         "input": {"thing_id": "${steps.create.result.id}", "owner": "${steps.lookup.result.id}",
                   "expected_revision": "${steps.create.result.revision}"},
         "depends_on": ["create", "lookup"]},
        {"id": "set_size", "when": "size", "capability": "thing.resize",
         "input": {"thing_id": "${steps.create.result.id}", "size": "${intent.slots.size}",
                   "expected_revision": {"first_of": ["${steps.set_owner.result.revision}",
                                                      "${steps.create.result.revision}"]}},
         "depends_on": ["set_owner"]},
        {"id": "verify", "capability": "thing.read", "input": {"thing_id": "${steps.create.result.id}"},
         "depends_on": ["set_size"],
         "postconditions": [{"when": "owner", "path": "owner.id", "op": "equals", "value": "${steps.lookup.result.id}"},
                            {"when": "size", "path": "size", "op": "equals", "value": "${intent.slots.size}"}]},
    ],
}


def _draft(definition, **intent):
    return composite_draft(definition, StructuredIntent(name=definition["name"], **intent))


def _by_id(draft):
    return {s["id"]: s for s in draft.steps}


def test_a_step_without_its_slot_is_left_out_and_passes_its_dependencies_on():
    steps = _by_id(_draft(CHAIN, targets={"source": THING}, slots={"size": 4}))
    assert list(steps) == ["read", "create", "set_size", "verify"]
    assert steps["create"]["depends_on"] == ["read"]
    assert steps["set_size"]["depends_on"] == ["create"]
    assert steps["set_size"]["input"] == {"thing_id": "${steps.create.result.id}", "size": 4,
                                          "expected_revision": "${steps.create.result.revision}"}
    assert steps["verify"]["postconditions"] == [{"path": "size", "op": "equals", "value": 4}]


def test_with_every_slot_the_chain_runs_through_each_optional_step():
    steps = _by_id(_draft(CHAIN, targets={"source": THING}, slots={"owner": 9, "size": 4}))
    assert list(steps) == ["read", "lookup", "create", "set_owner", "set_size", "verify"]
    assert steps["create"]["depends_on"] == ["read", "lookup"]
    assert steps["set_size"]["input"]["expected_revision"] == "${steps.set_owner.result.revision}"
    assert steps["verify"]["depends_on"] == ["set_size"]
    assert len(steps["verify"]["postconditions"]) == 2
    assert steps["read"]["targets"] == [{"type": "thing", "id": 7, "revision": 3}]


def test_a_missing_optional_last_step_hands_verification_to_the_one_before():
    steps = _by_id(_draft(CHAIN, targets={"source": THING}, slots={"owner": 9}))
    assert steps["verify"]["depends_on"] == ["set_owner"]


@pytest.mark.parametrize("intent, code, detail", [
    ({"slots": {"owner": 9}}, "TARGET_MISSING", {"role": "source"}),
    ({"targets": {"source": THING}, "slots": {"owner": None, "size": ""}}, "SLOT_MISSING", {"slot": "owner|size"}),
])
def test_requirements_are_checked_in_order_before_any_step(intent, code, detail):
    with pytest.raises(TemplateError) as caught:
        _draft(CHAIN, **intent)
    assert (caught.value.code, caught.value.detail) == (code, detail)


MANY = {"name": "thing.parts.addMany", "requires": [{"target": "thing"}, {"slot": "parts"}], "allow_partial": "several",
        "steps": [{"id": "add${each.number}", "repeat": "parts", "capability": "thing.parts.add",
                   "input": {"thing_id": "${intent.targets.thing.id}", "part": "${each}"}, "targets": ["thing"]}]}


def test_a_repeat_step_is_emitted_once_per_value_and_several_steps_may_partially_succeed():
    draft = _draft(MANY, targets={"thing": THING}, slots={"parts": ["a", "b"]})
    assert [(s["id"], s["input"]["part"]) for s in draft.steps] == [("add1", "a"), ("add2", "b")]
    assert draft.allow_partial is True
    single = _draft(MANY, targets={"thing": THING}, slots={"parts": "a"})
    assert [s["id"] for s in single.steps] == ["add1"] and single.allow_partial is False


def test_a_value_that_resolves_to_nothing_drops_its_key_and_first_of_falls_back():
    definition = {"name": "thing.make", "steps": [{"id": "make", "capability": "thing.create", "input": {
        "size": "${intent.slots.size}", "tags": "${intent.slots.tags}",
        "expected_revision": {"first_of": ["${intent.targets.thing.revision}", "${steps.make.result.revision}"]}}}]}
    (step,) = _draft(definition, slots={"size": 2, "tags": []}).steps
    assert step["input"] == {"size": 2, "expected_revision": "${steps.make.result.revision}"}


BATCH = {"name": "thing.checkBatch", "requires": [{"slot": "ids"}], "batch": {"slot": "ids", "type": "thing"},
         "allow_partial": True,
         "steps": [{"id": "check", "capability": "thing.check", "input": {"thing_id": "${item.id}"}}]}


def test_a_batch_pins_the_sorted_unique_ids_as_every_steps_targets():
    draft = _draft(BATCH, slots={"ids": [3, 1, 3]})
    (step,) = draft.steps
    assert step["for_each"] == "${targets}" and step["targets"] == [{"type": "thing", "id": 1},
                                                                    {"type": "thing", "id": 3}]
    assert (draft.allow_partial, draft.meta) == (True, {"batch": 2})


@pytest.mark.parametrize("ids", [["1"], [True], 5])
def test_a_batch_scope_that_is_not_a_list_of_ids_is_refused(ids):
    with pytest.raises(TemplateError) as caught:
        _draft(BATCH, slots={"ids": ids})
    assert caught.value.code == "SLOT_INVALID"


def test_the_shipped_composites_are_the_planners_templates():
    names = set(composite_definitions())
    assert names and all(name in TEMPLATES for name in names)
    assert "no.suchComposite" not in TEMPLATES
