"""A search that finds a few entities (the permit a message names by number) is reused across turns while
neither the names of its collection nor any entity it found changed (conversations.reads.Reader.found).
Each test would fail if the entry were used after the change it names, or not used when nothing changed."""

from __future__ import annotations

import pytest

from execution import tool_runtime
from sst import services as sst

pytestmark = pytest.mark.django_db


class Calls(list):
    """(capability id, input) of each call made; `after`: see the fixture."""

    def __init__(self) -> None:
        super().__init__()
        self.after: dict = {}


@pytest.fixture
def calls(monkeypatch):
    """Every business API call the turns make, by capability (a spy on our own Tool Runtime); `after`
    runs once after the next call whose input has the given key and value."""
    made = Calls()
    after = made.after
    invoke = tool_runtime.ToolSession.invoke

    def spy(self, *, capability, input, **kwargs):  # noqa: A002
        made.append((capability.id, dict(input)))
        result = invoke(self, capability=capability, input=input, **kwargs)
        if "when" in after and after["when"] in input.items():
            after.pop("when")
            after.pop("then")()
        return result

    monkeypatch.setattr(tool_runtime.ToolSession, "invoke", spy)
    return made


def _searches(made, number):
    return [c for c, given in made if number in {str(v) for v in given.values()}]


def _ask_twice(client, start, talk):
    conversation = start(client)
    talk(client, conversation, "abra a permissão 802")
    talk(client, conversation, "abra a permissão 802")
    return conversation


def test_a_permit_named_again_is_not_searched_again(world, operator_client, start, talk, calls):
    conversation = _ask_twice(operator_client, start, talk)
    assert _searches(calls, "802"), "the first turns search for permit 802"
    calls.clear()
    reply = talk(operator_client, conversation, "qual a validade da permissão 802?")

    assert "20" in reply["response"]["message"]
    assert _searches(calls, "802") == []


def test_a_write_to_the_found_permit_is_seen_by_the_next_turn(world, operator_client, start, talk, calls):
    conversation = _ask_twice(operator_client, start, talk)
    written = operator_client.post(f"/api/sst/permits/{world.p802.pk}/validity", {"validity_days": 33}, format="json")
    assert written.status_code == 200, written.content
    calls.clear()
    reply = talk(operator_client, conversation, "qual a validade da permissão 802?")

    assert "33" in reply["response"]["message"]
    assert _searches(calls, "802")


def test_a_write_to_another_permit_leaves_the_search_kept(world, operator_client, start, talk, calls):
    conversation = _ask_twice(operator_client, start, talk)
    written = operator_client.post(f"/api/sst/permits/{world.p771.pk}/validity", {"validity_days": 33}, format="json")
    assert written.status_code == 200, written.content
    calls.clear()
    talk(operator_client, conversation, "qual a validade da permissão 802?")

    assert _searches(calls, "802") == []


def test_a_permit_made_with_the_number_is_found_by_the_next_turn(world, operator_client, start, talk, calls):
    conversation = _ask_twice(operator_client, start, talk)
    sst.permit_create(tenant=world.tenant, company=world.omega, number="802", validity_days=9)
    reply = talk(operator_client, conversation, "qual a validade da permissão 802?")

    assert reply["response"]["type"] == "clarification", reply["response"]


def test_a_change_while_the_search_is_read_is_never_served_as_current(world, operator_client, start, talk, calls):
    """The epoch that guards an entry is read before the read it guards: a change landing while the search
    is answered leaves the entry stale, so the next turn searches again and sees the change."""
    conversation = start(operator_client)
    talk(operator_client, conversation, "abra a permissão 802")
    calls.after.update(when=("number", "802"), then=lambda: sst.permit_validity_update(
        tenant=world.tenant, permit_id=world.p802.pk, validity_days=41))
    talk(operator_client, conversation, "abra a permissão 802")
    assert "when" not in calls.after, "the change ran right after the search"
    reply = talk(operator_client, conversation, "qual a validade da permissão 802?")

    assert "41" in reply["response"]["message"], reply["response"]


def test_each_user_searches_for_itself(world, operator_client, supervisor_client, start, talk, calls):
    _ask_twice(operator_client, start, talk)
    calls.clear()
    talk(supervisor_client, start(supervisor_client), "abra a permissão 802")

    assert _searches(calls, "802"), "what the business API lets one user find is not served to another"


def test_a_search_kept_by_one_process_serves_the_next_turn_in_another(world, operator_client, start, talk, calls):
    """Served, a user's next turn often lands on another worker process: the entries live in Django's cache
    (Redis), not in the process's own lists (cleared here as a fresh process has them)."""
    from conversations.list_cache import lists

    conversation = _ask_twice(operator_client, start, talk)
    lists.clear()
    calls.clear()
    talk(operator_client, conversation, "qual a validade da permissão 802?")

    assert _searches(calls, "802") == []
