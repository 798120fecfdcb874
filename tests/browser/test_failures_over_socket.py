"""Failures reach the browser over the websocket (issue 17, point 4): daphne and a real Celery worker
on the test database, Redis as broker and channel layer, headless Debian chromium.

A step the SST API rejects fails on the worker after the turn has answered "Executando…", so the
only way the page can learn of it is the socket: the test records every frame the page receives
and checks the failed event among them, then the failed timeline and the failure reply on the
page. A refusal (the policy denies the operator an approval) and a cancellation before any
execution also arrive as frames, without an execution id.
"""

from __future__ import annotations

import json

import pytest

from conftest import make_tenant, make_user
from sst.faults import fault_add
from sst.models import PermitComponent
from tenancy.models import Role
from tests.conversations.conftest import build_world
from tests.registry_fixtures import activate_manifest

from .chat import log_in, set_password, structure

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]

def frames_of(page) -> list[dict]:
    """Every event the page's websocket receives, recorded from before the page opens it."""
    frames: list[dict] = []

    def watch(ws) -> None:
        ws.on("framereceived", lambda payload: frames.append(json.loads(payload)))

    page.on("websocket", watch)
    return frames


def wait_for_frame(page, frames: list[dict], type_: str, **payload) -> dict:
    for _ in range(150):
        for frame in frames:
            if frame.get("type") == type_ and all(frame["payload"].get(k) == v for k, v in payload.items()):
                return frame
        page.wait_for_timeout(100)
    raise AssertionError(f"no {type_} {payload} among {[f.get('type') for f in frames]}")


def say(page, text: str) -> None:
    page.get_by_label("Mensagem").fill(text)
    page.keyboard.press("Enter")
    page.wait_for_selector("#log > li.working", state="detached")


def test_a_failure_on_the_worker_reaches_the_page_over_the_socket(worker_servers, new_context, snap):
    activate_manifest()
    world = build_world(make_tenant("Chat Failure"))
    make_user(world.tenant, Role.OPERATOR, "failure-operator")
    set_password("failure-operator")
    # The SST API refuses this component on this permit: a business rule, never retried.
    fault_add(tenant=world.tenant, route="sst:permit-components", method="POST", status=422,
              match={"component": "Ruído Contínuo"})

    page = new_context(viewport={"width": 1280, "height": 900}).new_page()
    frames = frames_of(page)
    log_in(page, worker_servers.url, "failure-operator")

    say(page, "abra a permissão 802")
    say(page, "adicione o componente Ruído Contínuo")
    page.locator(".card.confirm").last.get_by_role("button", name="Confirmar").click()

    failed = wait_for_frame(page, frames, "EXECUTION_FAILED", status="failed")
    assert failed["payload"]["execution_id"]
    timeline = page.locator(f".timeline[data-execution='{failed['payload']['execution_id']}']")
    timeline.and_(page.locator("[data-status=failed]")).wait_for()
    assert timeline.locator(".status").inner_text() == "Falhou"
    assert timeline.locator("[data-step][data-status=failed]").count() == 1
    assert timeline.locator("[data-action=cancel-execution]").count() == 0
    reply = page.locator("#log > li.msg.agent.error").inner_text()
    assert "falhou" in reply, reply
    # In order: the turn's "Executando…", the timeline the worker filled in, then the failure.
    assert structure(page) == ["you", "agent", "you", "card", "you", "agent", "timeline:failed:1/1", "agent"]
    snap(page, "failure_arrived")
    assert not PermitComponent.objects.for_tenant(world.tenant).filter(permit=world.p802).exists()

    # A refusal and a cancellation before any execution: frames without an execution id.
    say(page, "aprove a permissão 802")
    refused = wait_for_frame(page, frames, "EXECUTION_FAILED", code="POLICY_DENIED")
    assert "execution_id" not in refused["payload"]
    say(page, "adicione o componente Solda Elétrica")
    page.locator(".card.confirm").last.get_by_role("button", name="Cancelar").click()
    cancelled = wait_for_frame(page, frames, "EXECUTION_CANCELLED", before_execution=True)
    assert "execution_id" not in cancelled["payload"]
    page.wait_for_timeout(500)
    assert page.locator(".timeline").count() == 1  # neither drew a timeline of its own
    snap(page)
