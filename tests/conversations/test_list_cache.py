"""Lists read to find names are reused across turns only while the tenant's data is unchanged
(conversations/list_cache.py, tenancy/data_epoch.py), and a found entity is not read twice in a turn."""

from __future__ import annotations

import pytest

from execution import tool_runtime
from sst import services as sst
from tenancy.data_epoch import data_changed, data_epoch

pytestmark = pytest.mark.django_db


@pytest.fixture
def calls(monkeypatch):
    """Every business API call the turns make, by capability (a spy on our own Tool Runtime)."""
    made: list[tuple[str, dict]] = []
    invoke = tool_runtime.ToolSession.invoke

    def spy(self, *, capability, input, **kwargs):  # noqa: A002
        made.append((capability.id, dict(input)))
        return invoke(self, capability=capability, input=input, **kwargs)

    monkeypatch.setattr(tool_runtime.ToolSession, "invoke", spy)
    return made


def _lists(made):
    return [c for c, i in made if not i]


def test_a_second_turn_reads_no_catalog_again(world, operator_client, start, talk, calls):
    conversation = start(operator_client)
    talk(operator_client, conversation, "abra a permissão 802")
    first = _lists(calls)
    calls.clear()
    reply = talk(operator_client, conversation, "abra a permissão 771 da Omega Serviços")

    assert first, "the first turn reads the catalogs it looks names up in"
    assert _lists(calls) == []
    assert reply["response"]["type"] == "navigation"


def test_a_row_saved_between_turns_is_seen_by_the_next_turn(world, operator_client, start, talk, calls):
    conversation = start(operator_client)
    talk(operator_client, conversation, "abra a permissão 802")
    sst.employee_create(tenant=world.tenant, company=world.delta, name="Zuleica Prado")  # a row signal
    calls.clear()
    reply = talk(operator_client, conversation, "adicione Zuleica Prado na permissão 802")

    assert _lists(calls), "the change moved the tenant's data epoch: the catalogs are read again"
    assert "Zuleica Prado" in reply["response"]["message"]


def test_a_write_through_the_business_api_moves_the_epoch_of_what_it_changed(world, operator_client):
    topics = {name: (name,) for name in ("permits", "component-types", "employees")}
    topics["this permit"], topics["another permit"] = (f"permits/{world.p802.pk}",), (f"permits/{world.p771.pk}",)
    before = {name: data_epoch(world.tenant.pk, t) for name, t in topics.items()}
    response = operator_client.post(f"/api/sst/permits/{world.p802.pk}/components", {"component": "noise"},
                                    format="json")

    assert response.status_code == 201, response.content
    moved = {name for name, t in topics.items() if data_epoch(world.tenant.pk, t) != before[name]}
    assert moved == {"permits", "this permit"}


def test_a_change_shown_inside_other_answers_moves_every_topic(world):
    topics = [("permits",), ("component-types",), (f"permits/{world.p802.pk}",)]
    before = [data_epoch(world.tenant.pk, t) for t in topics]
    sst.employee_create(tenant=world.tenant, company=world.delta, name="Yara Campos")  # named inside permits

    assert all(data_epoch(world.tenant.pk, t) != b for t, b in zip(topics, before, strict=True))


def test_another_permits_write_leaves_the_catalogs_kept(world, operator_client, start, talk, calls):
    conversation = start(operator_client)
    talk(operator_client, conversation, "abra a permissão 802")
    operator_client.post(f"/api/sst/permits/{world.p771.pk}/components", {"component": "noise"}, format="json")
    calls.clear()
    reply = talk(operator_client, conversation, "abra a permissão 802")

    assert reply["response"]["type"] == "navigation"
    assert _lists(calls) == [], "a write to permit 771 changes no catalog"


def test_a_lost_token_never_makes_an_old_entry_current(world):
    from django.core.cache import cache

    before = data_epoch(world.tenant.pk, ("permits",))
    cache.delete_many([f"tenancy:dataepoch:{world.tenant.pk}:*", f"tenancy:dataepoch:{world.tenant.pk}:permits"])

    assert data_epoch(world.tenant.pk, ("permits",)) != before


def test_each_user_has_its_own_lists(world, operator_client, supervisor_client, start, talk, calls):
    talk(operator_client, start(operator_client), "abra a permissão 802")
    calls.clear()
    talk(supervisor_client, start(supervisor_client), "abra a permissão 802")

    assert _lists(calls), "what the business API lets one user list is not served to another"


def test_no_reuse_when_turned_off(world, operator_client, start, talk, calls, settings):
    settings.AGENT_LIST_CACHE_SECONDS = 0
    conversation = start(operator_client)
    talk(operator_client, conversation, "abra a permissão 802")
    first = _lists(calls)
    calls.clear()
    talk(operator_client, conversation, "abra a permissão 802")

    assert _lists(calls) == first


def test_a_field_question_reads_only_what_it_must(world, operator_client, start, talk, calls):
    """"… da permissão 802": the entity found by its search is not read again in the turn, and the number is
    that entity's — no other type is searched for it (question.py)."""
    conversation = start(operator_client)
    talk(operator_client, conversation, "abra a permissão 802")
    calls.clear()
    reply = talk(operator_client, conversation, "qual a validade da permissão 802?")

    assert "20" in reply["response"]["message"]
    assert [c for c, i in calls if i == {"permit_id": world.p802.pk}] == []
    searched = {capability for capability, given in calls if given}
    assert len(searched) == 1, searched


def test_the_epoch_moves_now_and_again_at_commit(world, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        before = data_epoch(world.tenant.pk)
        data_changed(world.tenant.pk)
        moved = data_epoch(world.tenant.pk)
    assert before != moved != data_epoch(world.tenant.pk)


def test_what_one_turn_does_with_a_kept_list_never_reaches_the_next(world, operator):
    from conversations.grammar import grammar_for
    from conversations.turns import reader_for
    from registry.selectors import registry_snapshot

    snapshot = registry_snapshot()
    grammar = grammar_for(snapshot)
    capability = next(c for c in grammar.capabilities.values() for s in c.slots
                      if (s.resolver or {}).get("capability") and s.parse != "reference"
                      and not (snapshot.get(str(s.resolver["capability"])).input_schema.get("required")))
    slot = next(s for s in capability.slots if (s.resolver or {}).get("capability") and s.parse != "reference")

    def reader():
        return reader_for(user=operator, tenant=world.tenant, snapshot=snapshot, grammar=grammar)

    first = reader().catalog(slot)
    kept = reader().catalog(slot)  # from the process's cache
    kept.append({"id": -1, "name": "changed by a turn"})
    kept[0]["name"] = "changed too"

    assert reader().catalog(slot) == first


def _children_reads(made, permit_id):
    return [c for c, i in made if i == {"permit_id": permit_id} and c.endswith(".list")]


def test_a_write_to_the_permits_own_fields_leaves_its_lists_of_children_kept(world, operator_client, start, talk,
                                                                              calls):
    """Under load a permit's validity changes all the time: its components and workers, which a turn about it
    lists to find the names said, are their own topics (tenancy.data_epoch.register_parts)."""
    conversation = start(operator_client)
    talk(operator_client, conversation, "abra a permissão 802")
    assert _children_reads(calls, world.p802.pk), "the first turn lists the permit's children"
    response = operator_client.post(f"/api/sst/permits/{world.p802.pk}/validity", {"validity_days": 33}, format="json")
    assert response.status_code == 200, response.content
    calls.clear()
    reply = talk(operator_client, conversation, "qual a validade da permissão 802?")

    assert "33" in reply["response"]["message"]
    assert _children_reads(calls, world.p802.pk) == []


def test_a_child_added_is_seen_by_the_next_turn(world, operator_client, start, talk, calls):
    conversation = start(operator_client)
    talk(operator_client, conversation, "abra a permissão 802")
    response = operator_client.post(f"/api/sst/permits/{world.p802.pk}/components", {"component": "noise"},
                                    format="json")
    assert response.status_code == 201, response.content
    calls.clear()
    talk(operator_client, conversation, "abra a permissão 802")

    assert _children_reads(calls, world.p802.pk), "the component added moved its list's topic"



def _permit_lists(made):
    return [c for c, i in made if not i and c.startswith("workPermit.")]


def test_a_plain_value_written_leaves_the_names_kept_and_a_state_does_not(world, operator_client, supervisor_client,
                                                                          start, talk, calls):
    """Under load permits' validities change all the time: a turn looking for a permit by its company's name does
    not re-read every permit for that (tenancy.data_epoch.PLAIN); an approval changes what a list of names says."""
    conversation = start(operator_client)
    talk(operator_client, conversation, "qual a validade da permissão da Omega?")
    assert _permit_lists(calls), "the first turn lists the permits to find the Omega one"
    written = operator_client.post(f"/api/sst/permits/{world.p802.pk}/validity", {"validity_days": 44}, format="json")
    assert written.status_code == 200, written.content
    calls.clear()
    reply = talk(operator_client, conversation, "qual a validade da permissão da Omega?")
    assert _permit_lists(calls) == [] and "20" in reply["response"]["message"], reply["response"]

    approved = supervisor_client.post(f"/api/sst/permits/{world.p802.pk}/approve", {}, format="json")
    assert approved.status_code == 200, approved.content
    calls.clear()
    talk(operator_client, conversation, "qual a validade da permissão da Omega?")
    assert _permit_lists(calls), "a state changed: the permits are listed again"
