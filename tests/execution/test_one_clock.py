"""One clock (issue 19 point 4): what an execution writes for a TTL, lease, deadline or window to be
compared with is read on `tenancy.clock`, the clock the conversation reads too. With the test clock
moved, an operation finished "now" is still inside its undo window, and its steps' times and its
runtime's deadline are measured from the moved now."""

from __future__ import annotations

from datetime import timedelta

import pytest

from execution.models import Execution, StepRun
from execution.runtime_state import runtime_ensure
from sst.models import WorkPermit
from tests.conversations import conftest as conversation

# The conversation's fixtures, by their names: eager Celery, its SST world, `talk`, the movable clock.
_eager, moved_clock, start, talk, world = (conversation._eager, conversation.moved_clock, conversation.start,
                                           conversation.talk, conversation.world)

executes = pytest.mark.django_db(transaction=True)
MOVED_S = 2 * 3600  # past the 30 min undo window a real-time stamp would be compared against


def _components(world, pk) -> set[str]:
    permit = WorkPermit.objects.for_tenant(world.tenant).get(pk=pk)
    return set(permit.components.values_list("component_type__name", flat=True))


@executes
def test_with_the_clock_moved_an_add_just_made_is_still_inside_its_undo_window(
        world, operator_client, start, talk, moved_clock):
    moved_clock.advance(MOVED_S)
    conversation = start(operator_client)
    asked = talk(operator_client, conversation, "adicione solda elétrica na 802")
    assert asked["status"] == "CONFIRMATION_REQUIRED", asked["response"]
    done = talk(operator_client, conversation, "sim")
    assert done["state"]["status"] == "SUCCESS", done["state"]
    assert _components(world, world.p802.pk) == {"Solda Elétrica"}

    undo = talk(operator_client, conversation, "desfaça")
    assert undo["status"] == "CONFIRMATION_REQUIRED", undo["response"]
    assert "UNDO_EXPIRED" not in str(undo["response"])
    assert talk(operator_client, conversation, "sim")["state"]["status"] == "SUCCESS"
    assert _components(world, world.p802.pk) == set()


@executes
def test_what_an_execution_stamps_follows_the_moved_clock(world, operator_client, start, talk, moved_clock):
    moved_clock.advance(MOVED_S)
    conversation = start(operator_client)
    talk(operator_client, conversation, "adicione solda elétrica na 802")
    before = moved_clock.now()
    talk(operator_client, conversation, "sim")
    execution = Execution.objects.for_tenant(world.tenant).get(conversation_id=conversation)
    run = StepRun.objects.for_tenant(world.tenant).filter(execution=execution).get()
    assert execution.status == "completed"
    assert before <= run.started_at <= run.finished_at <= execution.finished_at <= moved_clock.now()
    # The runtime's deadline is its time budget from the moved now, not from the real one.
    runtime = runtime_ensure(execution)
    budget = timedelta(seconds=runtime.budget["max_duration_s"])
    assert before + budget - timedelta(minutes=1) <= runtime.deadline_at <= moved_clock.now() + budget
    assert runtime.last_heartbeat_at >= before
