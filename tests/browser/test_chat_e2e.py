"""The chat page end to end, in headless Debian chromium: daphne (websockets) and a real Celery
worker on the test database, Redis as broker and channel layer (issue 7 acceptance).

The SST fault injector slows one component's POST so a reload lands mid-execution.
"""

from __future__ import annotations

import pytest

from conftest import make_tenant, make_user
from sst.faults import fault_add
from sst.models import PermitComponent
from tenancy.models import Role
from tests.conversations.conftest import build_world
from tests.registry_fixtures import activate_manifest

from .chat import log_in, set_password, structure

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]

SLOW_MS = 5000


@pytest.fixture
def servers(worker_servers, settings):
    settings.AGENT_READ_WAIT_SECONDS = 3
    return worker_servers


def timeline_state(page) -> dict:
    return page.evaluate("""() => [...document.querySelectorAll('.timeline')].map((t) => ({
        status: t.dataset.status || null, count: t.querySelector('.count').textContent,
        steps: [...t.querySelectorAll('[data-step]')].map((s) => [s.dataset.step, s.dataset.status])}))""")


def test_a_user_confirms_an_operation_and_watches_it_finish_across_a_reload(servers, new_context, snap):
    activate_manifest()
    world = build_world(make_tenant("Chat E2E"))
    tenant = world.tenant
    make_user(tenant, Role.OPERATOR, "chat-operator")
    set_password("chat-operator")
    fault_add(tenant=tenant, route="sst:permit-components", method="POST", latency_ms=SLOW_MS,
              match={"component": "Ruído Contínuo"})

    page = new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(f"{servers.url}/")
    assert "/login/" in page.url
    log_in(page, servers.url, "chat-operator")

    # Open a permit by asking: the agent's navigation moves the simulated SST app.
    page.get_by_label("Mensagem").fill("abra a permissão 802")
    page.keyboard.press("Enter")
    permit_id = str(world.p802.pk)
    page.wait_for_function(f"document.querySelector('#ui-permit').value === '{permit_id}'")
    assert f'"entityId": "{permit_id}"' in page.locator("#ui-json").inner_text()

    page.get_by_label("Mensagem").fill("adicione os componentes Solda Elétrica, Montagem de Andaime e Ruído Contínuo")
    page.keyboard.press("Enter")
    card = page.locator(".card.confirm").last
    card.wait_for()
    assert "802" in card.locator(".summary").inner_text()
    assert card.locator(".risk").inner_text().lower() == "médio"
    card.get_by_role("button", name="Confirmar").click()

    # Live: some steps are ✓ while the slow one still runs; the Cancel button is there meanwhile.
    page.wait_for_function("""() => { const t = document.querySelector('.timeline');
        return t && !t.dataset.status && t.querySelectorAll('[data-status=completed]').length >= 1; }""")
    before = timeline_state(page)[0]
    assert before["status"] is None and page.locator(".timeline [data-action=cancel-execution]").count() == 1
    done, total = map(int, before["count"].split("/"))
    assert 1 <= done < total

    page.reload()
    page.wait_for_selector(".timeline[data-status=completed]", timeout=30_000)
    page.wait_for_function("[...document.querySelectorAll('.msg.agent')].some((m) => /adicionado/.test(m.innerText))")

    timelines = timeline_state(page)
    assert len(timelines) == 1
    steps = timelines[0]["steps"]
    assert len(steps) == total and len({step for step, _ in steps}) == total
    assert all(status == "completed" for _, status in steps)
    assert timelines[0]["count"] == f"{total}/{total}"
    assert page.locator(".timeline [data-action=cancel-execution]").count() == 0
    replies = page.locator(".msg.agent").all_inner_texts()
    assert sum("adicionado" in reply for reply in replies) == 1  # the final reply, once
    log_text = page.locator("#log").inner_text()
    assert log_text.count("adicione os componentes") == 1
    # The turn's "Executando…" above the timeline the worker filled in, the settled reply below it.
    assert structure(page) == ["you", "agent", "you", "card", "you", "agent", f"timeline:completed:{total}/{total}",
                               "agent"]
    snap(page)

    names = set(PermitComponent.objects.for_tenant(tenant).filter(permit_id=world.p802.pk)
                .values_list("component_type__name", flat=True))
    assert {"Solda Elétrica", "Montagem de Andaime", "Ruído Contínuo"} <= names
