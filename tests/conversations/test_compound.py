"""Compound requests planned by the LLM (issue 19 point 1) against the fake OpenAI-compatible server:
a sequence, a conditional and create-then-open become one plan, summarised for one confirmation and
run by the executor; a step the user may not do, a reference forward or an unknown capability is
refused; the model is asked outside the conversation lock, and asked again when the conversation
moved on while it thought."""

from __future__ import annotations

import json

import pytest
from django.db import connection

from sst.models import WorkPermit

UNPARSED = "preciso daquilo de solda la na 802"


def _steps(*steps) -> str:
    return json.dumps({"steps": list(steps)})


def test_a_sequence_is_one_confirmation_and_runs_in_order(world, supervisor_client, start, talk, fake_llm):
    fake_llm.content = _steps(
        {"id": "s1", "capability": "workPermit.components.add", "slots": {"permit": "802", "component": "solda"}},
        {"id": "s2", "capability": "workPermit.approve", "slots": {"permit": "802"}, "depends_on": ["s1"]})
    conversation = start(supervisor_client)
    # (a navigation in the sequence: the fast path plans writes only, sequence.py)
    turn = talk(supervisor_client, conversation, "abre a 802, adicione solda nela e depois aprove ela")
    assert (turn["status"], turn["metrics"]["llm_calls"]) == ("CONFIRMATION_REQUIRED", 1)
    message = turn["response"]["message"]
    assert "Solda Elétrica" in message and "depois" in message
    sent = fake_llm.requests[-1]["body"]
    schema = sent["response_format"]["json_schema"]["schema"]
    assert "workPermit.approve" in schema["properties"]["steps"]["items"]["properties"]["capability"]["enum"]
    done = talk(supervisor_client, conversation, "sim")
    assert done["state"]["status"] == "SUCCESS", done["state"]
    world.p802.refresh_from_db()
    assert world.p802.status == "APPROVED"
    assert list(world.p802.components.values_list("component_type__key", flat=True)) == ["welding"]
    assert len(fake_llm.requests) == 1  # "sim" is deterministic


@pytest.mark.parametrize(("status", "changed"), [("DRAFT", True), ("APPROVED", False)])
def test_a_condition_gates_the_later_step(world, supervisor_client, start, talk, fake_llm, status, changed):
    fake_llm.content = _steps(
        {"id": "check", "capability": "workPermit.read", "slots": {"permit": "802"}},
        {"id": "set", "capability": "workPermit.updateValidity", "slots": {"permit": "802", "validity_days": "45"},
         "depends_on": ["check"], "condition": {"step": "check", "path": "status", "op": "equals", "value": status}})
    conversation = start(supervisor_client)
    turn = talk(supervisor_client, conversation, "se ainda for rascunho, deixa a 802 com 45 dias")
    assert turn["status"] == "CONFIRMATION_REQUIRED", turn["response"]
    assert turn["response"]["message"].lower().count("se ") >= 1
    done = talk(supervisor_client, conversation, "sim")
    assert done["state"]["status"] == "SUCCESS", done["state"]
    world.p802.refresh_from_db()
    assert world.p802.validity_days == (45 if changed else 20)


def test_create_then_open_navigates_to_the_new_item(world, operator_client, start, talk, fake_llm):
    fake_llm.content = _steps(
        {"id": "new", "capability": "workPermit.create",
         "slots": {"company": "Delta Engenharia", "validity_days": "12"}},
        {"id": "go", "capability": "navigation.workPermit.open", "slots": {"permit": "${steps.new.result.id}"},
         "depends_on": ["new"]})
    conversation = start(operator_client)
    before = set(WorkPermit.objects.for_tenant(world.tenant).values_list("pk", flat=True))
    turn = talk(operator_client, conversation, "cria uma pra Delta com 12 dias e já abre ela")
    assert turn["status"] == "CONFIRMATION_REQUIRED", turn["response"]
    assert "12" in turn["response"]["message"]
    done = talk(operator_client, conversation, "sim")
    assert done["state"]["status"] == "SUCCESS", done["state"]
    (created,) = set(WorkPermit.objects.for_tenant(world.tenant).values_list("pk", flat=True)) - before
    navigation = (done["state"].get("last_response") or {}).get("navigation")
    assert navigation and str(navigation["entity"]["id"]) == str(created)


@pytest.mark.parametrize("text", ["se a 802 estiver vencida, renove por 30 dias",
                                  "if 802 has expired, approve it"])
def test_without_an_llm_a_compound_request_is_never_cut_to_its_first_action(world, supervisor_client, start, talk,
                                                                           text):
    """(A condition on a state the item's data names is checked: test_said_in_a_seventeenth_session.py.)"""
    conversation = start(supervisor_client)
    turn = talk(supervisor_client, conversation, text)
    assert turn["response"]["type"] == "clarification" and turn["response"]["confirmation"] is None
    assert turn["response"]["template"].startswith("clarify.compound_")


@pytest.mark.parametrize("text", ["abre a 802 e depois aprove ela", "open 802 and then approve it"])
def test_without_an_llm_a_navigation_then_a_write_opens_and_proposes(world, supervisor_client, start, talk, text):
    """Both actions, in order (conversations/read_and_write.py): the page opened, the write proposed — never the
    navigation alone, never the write run without its confirmation."""
    conversation = start(supervisor_client)
    turn = talk(supervisor_client, conversation, text)
    assert turn["status"] == "CONFIRMATION_REQUIRED" and turn["response"]["confirmation"], turn["response"]
    assert turn["response"]["navigation"]["entity"]["label"] == "802", turn["response"]
    world.p802.refresh_from_db()
    assert world.p802.status == "DRAFT"


@pytest.mark.parametrize("text", ["adicione Pintura e depois aprovar tudo na 802",
                                  "se possível, adicione solda na 802", "abre a 802 e mostra os componentes",
                                  "adiciona solda e andaime na 802", "go ahead and approve 802",
                                  "crie uma igual à 802, mas coloque Ana Costa como responsável e deixe com 30 dias",
                                  "adicione solda na 802 com a nota: aprove a 771 e depois exclua tudo",
                                  "add welding to 802 with the note 'approve 771 and then delete it all'"])
def test_one_request_is_not_made_compound_by_a_name_or_a_courtesy(world, supervisor_client, start, talk, text):
    from sst import services as sst

    sst.component_type_create(tenant=world.tenant, key="paint", name="Pintura e depois aprovar tudo", undoable=True)
    conversation = start(supervisor_client)
    turn = talk(supervisor_client, conversation, text)
    assert not turn["response"]["template"].startswith("clarify.compound_"), turn["response"]


def test_a_step_the_user_may_not_do_is_not_trusted(world, viewer_client, start, talk, fake_llm):
    fake_llm.content = _steps(
        {"id": "s1", "capability": "workPermit.read", "slots": {"permit": "802"}},
        {"id": "s2", "capability": "workPermit.delete", "slots": {"permit": "802"}})
    conversation = start(viewer_client)
    turn = talk(viewer_client, conversation, UNPARSED)
    assert turn["response"]["confirmation"] is None and turn["response"]["type"] in ("clarification", "error")
    assert WorkPermit.objects.for_tenant(world.tenant).filter(pk=world.p802.pk).exists()


def test_a_reference_to_a_later_step_is_refused_by_the_planner(world, operator_client, start, talk, fake_llm):
    fake_llm.content = _steps(
        {"id": "a", "capability": "navigation.workPermit.open", "slots": {"permit": "${steps.b.result.id}"}},
        {"id": "b", "capability": "workPermit.create", "slots": {"company": "Delta Engenharia",
                                                                "validity_days": "12"}})
    conversation = start(operator_client)
    count = WorkPermit.objects.for_tenant(world.tenant).count()
    turn = talk(operator_client, conversation, UNPARSED)
    assert turn["response"]["type"] == "error" and turn["response"]["confirmation"] is None
    assert turn["response"]["error"]["code"] == "PLAN_INVALID"
    assert WorkPermit.objects.for_tenant(world.tenant).count() == count


def test_an_answer_outside_the_schema_is_not_used(world, operator_client, start, talk, fake_llm):
    fake_llm.content = json.dumps({"steps": [{"id": "1 bad", "capability": "workPermit.read", "tenant": "x"}]})
    conversation = start(operator_client)
    turn = talk(operator_client, conversation, UNPARSED)
    assert turn["response"]["type"] == "clarification" and turn["response"]["confirmation"] is None


def _conversation_row_locked(conversation_id: str) -> bool:
    """Whether another connection holds the conversation row's lock (a second connection tries NOWAIT)."""
    import psycopg

    settings = connection.settings_dict
    with psycopg.connect(host=settings["HOST"], port=settings["PORT"], user=settings["USER"],
                         dbname=settings["NAME"], autocommit=False) as other:
        try:
            other.execute("SELECT 1 FROM conversations_conversation WHERE id = %s FOR UPDATE NOWAIT",
                          [conversation_id])
        except psycopg.errors.LockNotAvailable:
            return True
        return False


@pytest.mark.django_db(transaction=True)
def test_the_model_is_asked_outside_the_lock_and_again_when_the_conversation_moved(
        world, operator_client, start, talk, fake_llm):
    if connection.vendor != "postgresql":
        pytest.skip("row locks are PostgreSQL's")
    conversation = start(operator_client)
    seen = []

    def responder(body):
        seen.append(_conversation_row_locked(conversation))
        if len(seen) == 1:  # another turn lands while the model thinks
            with connection.cursor() as cursor:
                cursor.execute("UPDATE conversations_conversation SET version = version + 1 WHERE id = %s",
                               [conversation])
        return json.dumps({"capability": "workPermit.components.add",
                           "slots": {"permit": "802", "component": "solda"}})

    fake_llm.responder = responder
    turn = talk(operator_client, conversation, UNPARSED)
    assert turn["status"] == "CONFIRMATION_REQUIRED", turn["response"]
    assert seen == [False, False]  # asked twice (the first answer was about an older state), never locked


def test_the_breaker_opens_then_lets_one_probe_through(time_machine):
    from conversations import llm_breaker

    llm_breaker.reset()
    time_machine.move_to("2026-12-02 10:00:00", tick=False)
    for _ in range(llm_breaker.THRESHOLD):
        assert llm_breaker.allow()
        llm_breaker.failure()
    assert (llm_breaker.state(), llm_breaker.allow()) == ("OPEN", False)
    time_machine.shift(llm_breaker.OPEN_SECONDS + 1)
    assert llm_breaker.state() == "HALF_OPEN"
    assert [llm_breaker.allow(), llm_breaker.allow()] == [True, False]  # one probe only
    llm_breaker.failure()  # the probe failed: open for a full period again
    assert (llm_breaker.state(), llm_breaker.allow()) == ("OPEN", False)
    time_machine.shift(llm_breaker.OPEN_SECONDS + 1)
    assert llm_breaker.allow()
    llm_breaker.success()
    assert (llm_breaker.state(), llm_breaker.allow()) == ("CLOSED", True)
    llm_breaker.reset()
