"""The README's demo script, played word for word against `seed_demo`'s tenant through the REST API.

The sentences are read from the README (the first ```text block of its "Try the demo" section), so
the README and this test cannot drift apart: a changed sentence there fails here until the
expectation below is changed with it.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command

from conftest import client_for
from registry.selectors import snapshot_clear
from sst.models import ComponentType, PermitComponent, WorkPermit
from tenancy.models import Tenant

README = Path(settings.BASE_DIR) / "README.md"
SECTION = "## Try the demo"


def readme_sentences() -> list[str]:
    text = README.read_text(encoding="utf-8")
    section = text.split(SECTION, 1)[1]
    block = re.search(r"```text\n(.*?)```", section, re.S)
    assert block, f"README.md: no ```text block under {SECTION!r}"
    return [line.strip() for line in block.group(1).splitlines() if line.strip()]


@pytest.fixture(autouse=True)
def _eager(settings):
    from config.celery import app

    saved = app.conf.task_always_eager
    app.conf.task_always_eager = True
    settings.LLM_BASE_URL = None
    settings.AGENT_READ_WAIT_SECONDS = 0
    yield
    app.conf.task_always_eager = saved


@pytest.fixture
def demo(db):
    call_command("seed_demo", stdout=io.StringIO())
    snapshot_clear()
    tenant = Tenant.objects.get(slug="demo")
    from django.contrib.auth import get_user_model

    operator = get_user_model().objects.get(username="demo-operator")
    return tenant, client_for(operator, tenant)


def _talk(client, conversation_id: str, text: str, capture) -> dict[str, Any]:
    with capture(execute=True):
        response = client.post(f"/agent/conversations/{conversation_id}/messages", {"text": text}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def _components(tenant) -> set[str]:
    permit = WorkPermit.objects.for_tenant(tenant).get(number="123")
    return set(PermitComponent.objects.for_tenant(tenant).filter(permit=permit)
               .values_list("component_type__key", flat=True))


def _opens_permit_123(turn, tenant):
    navigation = turn["response"]["navigation"]
    assert turn["response"]["type"] == "navigation", turn["response"]
    assert (navigation["entity"]["type"], navigation["entity"]["label"]) == ("workPermit", "123")


def _asks_to_add_working_at_height(turn, tenant):
    confirmation = turn["response"]["confirmation"]
    assert turn["response"]["type"] == "confirmation", turn["response"]
    assert {"type": "componentType", "id": "workingAtHeight", "label": "Trabalho em Altura"} in confirmation["affected"]
    assert "workingAtHeight" not in _components(tenant)


def _ran_the_addition(turn, tenant):
    assert turn["response"]["type"] == "execution", turn["response"]
    assert "workingAtHeight" in _components(tenant)


def _asks_to_undo(turn, tenant):
    assert turn["response"]["type"] == "confirmation", turn["response"]
    assert "Trabalho em Altura" in turn["response"]["confirmation"]["summary"]


def _ran_the_undo(turn, tenant):
    assert turn["response"]["type"] == "execution", turn["response"]
    assert _components(tenant) == {"confinedSpace"}


def _explains_working_at_height(turn, tenant):
    response = turn["response"]
    assert response["type"] == "answer", response
    assert [c["id"] for c in response["citations"]] == ["trabalho-em-altura"]
    # The explanation leads with the document's opening (the definition), not a short subsection.
    assert "Trabalho em altura é toda atividade executada acima de 2 metros" in response["message"], response


# Each README sentence with what it must do, in order.
SCRIPT = [
    ("Abra a permissão 123", _opens_permit_123),
    ("Adicione o componente de trabalho em altura", _asks_to_add_working_at_height),
    ("sim", _ran_the_addition),
    ("desfaça", _asks_to_undo),
    ("sim", _ran_the_undo),
    ("Explique esse componente", _explains_working_at_height),
]


def test_the_readme_and_this_test_play_the_same_sentences():
    assert readme_sentences() == [sentence for sentence, _check in SCRIPT]


def test_the_readme_demo_script_works_on_the_seeded_tenant(demo, django_capture_on_commit_callbacks):
    tenant, client = demo
    conversation_id = client.post("/agent/conversations", {}, format="json").json()["id"]
    for sentence, check in SCRIPT:
        turn = _talk(client, conversation_id, sentence, django_capture_on_commit_callbacks)
        check(turn, tenant)


def test_the_demo_tenant_has_unique_permit_numbers_and_knowledge_for_each_component(demo):
    tenant, _client = demo
    numbers = list(WorkPermit.objects.for_tenant(tenant).values_list("number", flat=True))
    assert len(numbers) == len(set(numbers))
    from knowledge.selectors import knowledge_search

    for key, name in ComponentType.objects.for_tenant(tenant).values_list("key", "name"):
        result = knowledge_search(tenant=tenant, query="", semantic_id=f"component:{key}", entity_type="componentType",
                                  entity={"type": "componentType", "name": name}, topic=None, ui_context=None,
                                  language="pt", limit=3)
        assert [r for r in result.references if f"component:{key}" in r.semantic_ids], key
