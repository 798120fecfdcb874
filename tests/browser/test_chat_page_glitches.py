"""The chat page without glitches, in headless Debian chromium against daphne on the embedded default's
execution mode (eager Celery, in-memory channel layer): the seeded demo tenant, the README's script.

Each point of issue 17 is asserted: a welcome with the registry's examples for the user's role, one
reply per turn (a reply that ends an execution is not shown twice), no empty "0/0" card for a
cancelled operation, timelines in place after a reload and a language switch, and no blank area
below the conversation. Screenshots of each state go to tests/artifacts/.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.core.management import call_command

from registry.examples import examples_for
from registry.selectors import snapshot_clear
from tenancy.models import Tenant

from .servers import AsgiServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(settings.BASE_DIR) / "tests" / "artifacts"
PASSWORD = "pw-chat-glitches-1"  # noqa: S105 - a throw-away password set on the seeded demo user


@pytest.fixture
def server(transactional_db):
    asgi = AsgiServer()
    asgi.start(REDIS_URL="")  # eager Celery: an execution settles inside its turn, as on `make run`'s default
    try:
        yield asgi
    finally:
        asgi.stop()


def structure(page) -> list[str]:
    """The conversation as a sequence: 'you', 'agent', 'timeline:<status>:<count>'."""
    return page.evaluate("""() => [...document.querySelectorAll('#log > li')].map((li) =>
        li.classList.contains('timeline')
            ? `timeline:${li.dataset.status || ''}:${li.querySelector('.count').textContent}`
        : li.classList.contains('user') ? 'you' : 'agent')""")


def say(page, text: str) -> None:
    replies = page.locator("#log > li.msg.agent:not(.welcome)").count()
    page.get_by_label(re.compile("^(Mensagem|Message)$")).fill(text)
    page.keyboard.press("Enter")
    done = "#log > li.msg.agent:not(.welcome):not(.working)"
    page.wait_for_function(f"document.querySelectorAll('{done}').length > {replies}")
    page.wait_for_selector("#log > li.working", state="detached")


def shot(page, name: str) -> None:
    # The whole conversation, not the log's scrolled tail, so the picture shows where each timeline sits.
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("document.querySelector('#log').style.maxHeight = 'none'")
    page.screenshot(path=str(ARTIFACTS / f"chat_{name}.png"), full_page=True)
    page.evaluate("document.querySelector('#log').style.maxHeight = ''")


def no_blank_area(page) -> None:
    # The page ends with its content: nothing scrolls below the conversation and the panel (a page
    # shorter than the window does not scroll at all).
    gap = page.evaluate("""() => document.scrollingElement.scrollHeight - Math.max(window.innerHeight,
        window.scrollY + Math.max(document.querySelector('.chat').getBoundingClientRect().bottom,
                                  document.querySelector('.panel').getBoundingClientRect().bottom))""")
    assert gap <= 40, gap


def test_the_demo_script_in_the_browser_has_no_duplicate_no_empty_card_and_keeps_its_timelines(server, new_context):
    call_command("seed_demo", stdout=io.StringIO())
    snapshot_clear()
    operator = get_user_model().objects.get(username="demo-operator")
    operator.password = PBKDF2PasswordHasher().encode(PASSWORD, PBKDF2PasswordHasher().salt())
    operator.save(update_fields=["password"])
    tenant = Tenant.objects.get(slug="demo")

    page = new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(f"{server.url}/login/")
    page.get_by_label("Usuário").fill("demo-operator")
    page.get_by_label("Senha").fill(PASSWORD)
    page.get_by_role("button", name="Entrar").click()
    page.wait_for_url(re.compile(r"/\?c="))
    page.wait_for_selector("#connection[data-state=connected]")

    # An empty conversation: a short welcome with the registry's examples for an operator.
    welcome = page.locator("#welcome")
    assert welcome.count() == 1
    examples = welcome.locator("[data-example]").all_inner_texts()
    assert examples == examples_for(tenant=tenant, role="operator", language="pt-BR") and len(examples) >= 3
    no_blank_area(page)
    shot(page, "1_welcome")

    say(page, "Abra a permissão 123")
    assert page.locator("#welcome").count() == 0
    say(page, "Adicione o componente de trabalho em altura")
    card = page.locator(".card.confirm").last
    assert card.locator(".summary").inner_text() == "adicionar “Trabalho em Altura” à permissão 123 (Alfa Construções)"
    assert card.locator(".risk").inner_text().lower() == "médio"
    assert "123, Trabalho em Altura" in card.inner_text()
    card.get_by_role("button", name="Confirmar").click()
    page.wait_for_selector(".timeline[data-status=completed]")
    timeline = page.locator(".timeline")
    assert timeline.locator(".status").inner_text() == "Concluído"
    assert timeline.locator("[data-step] .label").all_inner_texts() == ["Adicionando componente…"]
    assert timeline.locator("[data-step][data-status=completed]").count() == 1
    assert timeline.locator("[data-action=cancel-execution]").count() == 0
    page.wait_for_timeout(1500)  # a duplicate would come from the terminal event's follow-up read
    assert structure(page) == ["you", "agent", "you", "agent", "you", "timeline:completed:1/1", "agent"]
    replies = page.locator("#log > li.msg.agent").all_inner_texts()
    assert len(replies) == len(set(replies)) == 3, replies
    shot(page, "2_executed_once")

    # Undo asks again; cancelling it shows the cancellation, never an empty "Execução 0/0" card.
    say(page, "desfaça")
    page.locator(".card.confirm").last.get_by_role("button", name="Cancelar").click()
    page.wait_for_function("document.querySelectorAll('#log > li.msg.agent:not(.working)').length === 5")
    page.wait_for_timeout(1000)
    before_reload = structure(page)
    assert before_reload == ["you", "agent", "you", "agent", "you", "timeline:completed:1/1", "agent",
                             "you", "agent", "you", "agent"]
    assert not [t for t in before_reload if t.endswith(":0/0")]
    assert page.locator("#log > li.msg.agent").last.inner_text().endswith("Operação cancelada. Nada foi executado.")
    assert page.locator(".card.confirm.closed").count() == 2  # answered cards keep no live buttons
    no_blank_area(page)
    shot(page, "3_cancelled_no_empty_card")

    # A reload and a language switch draw the same conversation, timelines where they were.
    page.reload()
    page.wait_for_selector("#connection[data-state=connected]")
    page.wait_for_timeout(1000)  # the socket's replay must not add or move anything
    assert structure(page) == before_reload
    shot(page, "4_after_reload")
    page.get_by_role("link", name="English").click()
    page.wait_for_selector("#connection[data-state=connected]")
    page.wait_for_timeout(1000)
    assert structure(page) == before_reload
    assert page.locator("#log .timeline .head strong").inner_text() == "Execution"
    no_blank_area(page)
    shot(page, "5_after_language_switch")

    # A greeting and a request for help are answered with examples, never "Não entendi".
    for text in ("oi", "ajuda"):
        say(page, text)
        reply = page.locator("#log > li.msg.agent").last.inner_text()
        assert "entendi" not in reply.lower() and "understand" not in reply.lower(), reply
        assert any(example in reply for example in examples), reply
    shot(page, "6_greeting_and_help")
