"""The chat page without glitches (issue 17, point 3), in headless Debian chromium against daphne on the
embedded default's execution mode (eager Celery, in-memory channel layer), on seed_demo's tenant.

One test per point, each asserting what the page shows (bubble counts, card contents) and saving a
screenshot of the fixed state to tests/artifacts/<test-name>[-<state>].png: a welcome with the
registry's examples for the user's role, one reply per turn (a reply that ends an execution is not
shown twice), no empty "0/0" card for a cancelled operation, timelines in place after a reload and a
language switch with no blank area below, and a greeting or a request for help answered with examples.
"""

from __future__ import annotations

import re

import pytest

from .chat import card, click_and_wait, no_blank_area, replies, say, structure

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CONFIRMED = ["you", "agent", "you", "card", "you", "timeline:completed:1/1", "agent"]


def add_working_at_height(page) -> None:
    say(page, "Abra a permissão 123")
    say(page, "Adicione o componente de trabalho em altura")
    click_and_wait(page, card(page).get_by_role("button", name="Confirmar"))
    page.wait_for_selector(".timeline[data-status=completed]")


def test_an_empty_conversation_welcomes_with_the_examples_of_the_users_role(demo_page, snap):
    for username in ("demo-viewer", "demo-operator"):
        page = demo_page(username)
        welcome = page.locator("#welcome")
        assert welcome.count() == 1 and structure(page) == ["agent"]
        shown = welcome.locator("[data-example]").all_inner_texts()
        # Sentences that work as they are, with the tenant's own values: nothing that needs an open
        # permit ("abra essa permissão") in a conversation that has none, no bracketed slot name.
        assert len(shown) >= 3 and "abre a permissão 123" in shown, shown
        assert not [e for e in shown if "<" in e or re.search(r"\b(ess[ae]|dess[ae]|nessa)\b", e)], shown
        no_blank_area(page)
        snap(page, username)

    # An example is a sentence the page sends as it is; the welcome gives way to the conversation.
    page.locator("#welcome [data-example]", has_text="abre a permissão 123").click()
    page.wait_for_selector("#log > li.msg.agent:not(.working) > p")
    page.wait_for_selector("#log > li.working", state="detached")
    assert page.locator("#welcome").count() == 0 and structure(page) == ["you", "agent"]
    assert replies(page) == ["Abrindo a permissão 123 da Alfa Construções."]
    # The welcome offered what a greeting lists for this user's role.
    assert say(page, "oi").splitlines()[1:] == [f"• {example}" for example in shown]
    snap(page, "example_sent")


def test_a_reply_that_ends_an_execution_is_shown_once(demo_page, snap):
    page = demo_page()
    add_working_at_height(page)
    timeline = page.locator(".timeline")
    assert timeline.locator(".status").inner_text() == "Concluído"
    assert timeline.locator("[data-step] .label").all_inner_texts() == ["Adicionando componente…"]
    assert timeline.locator("[data-step][data-status=completed]").count() == 1
    assert timeline.locator("[data-action=cancel-execution]").count() == 0
    page.wait_for_timeout(1500)  # a duplicate would come from the terminal event's follow-up read
    assert structure(page) == CONFIRMED
    shown = replies(page)
    assert len(shown) == len(set(shown)) == 3, shown
    assert shown[-1] == "“Trabalho em Altura” adicionado(s) à permissão 123 (Alfa Construções)."
    snap(page)


def test_a_cancelled_or_declined_operation_shows_no_empty_card(demo_page, snap):
    page = demo_page()
    say(page, "Abra a permissão 123")
    say(page, "Adicione o componente de trabalho em altura")
    cancelled = click_and_wait(page, card(page).get_by_role("button", name="Cancelar"))
    assert cancelled == "Operação cancelada. Nada foi executado."
    say(page, "Adicione o componente de trabalho em altura")
    declined = say(page, "não")
    assert "nada" in declined.lower() or "não vou" in declined.lower(), declined
    page.wait_for_timeout(1000)  # a late terminal event must not draw a card either
    assert structure(page) == ["you", "agent", "you", "card", "you", "agent", "you", "card", "you", "agent"]
    assert page.locator(".timeline").count() == 0  # no "Execução 0/0"
    assert page.locator(".card.confirm.closed").count() == 2  # answered cards keep no live buttons
    assert page.locator(".card.confirm button:not([disabled])").count() == 0
    no_blank_area(page)
    snap(page)


def test_timelines_stay_in_place_after_a_reload_and_a_language_switch(demo_page, snap):
    page = demo_page()
    add_working_at_height(page)
    say(page, "Explique esse componente")  # a turn after the timeline: it must stay above it
    say(page, "desfaça")
    click_and_wait(page, card(page).get_by_role("button", name="Confirmar"))
    page.wait_for_function("document.querySelectorAll('.timeline[data-status=completed]').length === 2")
    page.wait_for_timeout(1000)
    before = structure(page)
    assert before == [*CONFIRMED, "you", "agent", "you", "card", "you", "timeline:completed:1/1", "agent"]
    no_blank_area(page)
    snap(page, "before")

    page.reload()
    page.wait_for_selector("#connection[data-state=connected]")
    page.wait_for_timeout(1000)  # the socket's replay must not add or move anything
    assert structure(page) == before
    no_blank_area(page)
    snap(page, "after_reload")

    page.get_by_role("link", name="English").click()
    page.wait_for_selector("#connection[data-state=connected]")
    page.wait_for_timeout(1000)
    assert structure(page) == before
    assert page.locator("#log .timeline .head strong").all_inner_texts() == ["Execution", "Execution"]
    assert page.locator("#log .timeline [data-step] .label").all_inner_texts() == ["Adding component…",
                                                                                   "Removing component…"]
    no_blank_area(page)
    snap(page, "after_language_switch")


def test_a_greeting_and_a_request_for_help_are_answered_with_examples(demo_page, snap):
    page = demo_page()
    for text in ("oi", "ajuda"):
        reply = say(page, text)
        assert "entendi" not in reply.lower(), reply
        examples = [line.removeprefix("• ") for line in reply.splitlines()[1:]]
        assert len(examples) >= 3 and all(line.startswith("• ") for line in reply.splitlines()[1:]), reply
        assert "abre a permissão 123" in examples, examples  # the tenant's own values, no placeholder
        assert not [e for e in examples if "<" in e or "{" in e], examples
    assert structure(page) == ["you", "agent", "you", "agent"]
    snap(page)
