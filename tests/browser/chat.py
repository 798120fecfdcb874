"""What the chat page tests do and read on the page: log in, say a sentence and wait for its answer,
read the conversation back as a sequence of bubbles and timelines.
"""

from __future__ import annotations

import re

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import PBKDF2PasswordHasher

PASSWORD = "pw-chat-browser-1"  # noqa: S105 - a throw-away password set on test and seeded demo users
REPLY = "#log > li.msg.agent:not(.welcome):not(.working)"


def set_password(username: str) -> None:
    # The server process checks passwords with the production hashers, not the suite's fast one.
    user = get_user_model().objects.get(username=username)
    user.password = PBKDF2PasswordHasher().encode(PASSWORD, PBKDF2PasswordHasher().salt())
    user.save(update_fields=["password"])


def log_in(page, base_url: str, username: str) -> None:
    page.goto(f"{base_url}/login/")
    page.get_by_label(re.compile("^(Usuário|Username)$")).fill(username)
    page.get_by_label(re.compile("^(Senha|Password)$")).fill(PASSWORD)
    page.get_by_role("button", name=re.compile("^(Entrar|Log in)$")).click()
    page.wait_for_url(re.compile(r"/\?c="))
    page.wait_for_selector("#connection[data-state=connected]")


def say(page, text: str) -> str:
    """Type `text`, wait for the agent's next reply; that reply's text."""
    replies = page.locator(REPLY).count()
    page.get_by_label(re.compile("^(Mensagem|Message)$")).fill(text)
    page.keyboard.press("Enter")
    page.wait_for_function(f"document.querySelectorAll('{REPLY}').length > {replies}")
    page.wait_for_selector("#log > li.working", state="detached")
    return last_reply(page)


def click_and_wait(page, button) -> str:
    """Click a card's button, wait for the agent's next reply; that reply's text."""
    replies = page.locator(REPLY).count()
    button.click()
    page.wait_for_function(f"document.querySelectorAll('{REPLY}').length > {replies}")
    page.wait_for_selector("#log > li.working", state="detached")
    return last_reply(page)


def last_reply(page) -> str:
    return page.locator(f"{REPLY} > p").last.inner_text()


def replies(page) -> list[str]:
    return page.locator(f"{REPLY} > p").all_inner_texts()


def structure(page) -> list[str]:
    """The conversation as a sequence: 'you', 'agent', 'card' (an agent bubble with a confirmation
    card), 'timeline:<status>:<count>'."""
    return page.evaluate("""() => [...document.querySelectorAll('#log > li')].map((li) =>
        li.classList.contains('timeline')
            ? `timeline:${li.dataset.status || ''}:${li.querySelector('.count').textContent}`
        : li.classList.contains('user') ? 'you' : li.querySelector('.card.confirm') ? 'card' : 'agent')""")


def card(page):
    """The last confirmation card: its summary, its "Afetados" line, its buttons."""
    return page.locator(".card.confirm").last


def affected(card_locator) -> str:
    return card_locator.locator("dt:has-text('Afetados') + dd, dt:has-text('Affected') + dd").inner_text()


def no_blank_area(page) -> None:
    # The page ends with its content: nothing scrolls below the conversation and the panel (a page
    # shorter than the window does not scroll at all).
    gap = page.evaluate("""() => document.scrollingElement.scrollHeight - Math.max(window.innerHeight,
        window.scrollY + Math.max(document.querySelector('.chat').getBoundingClientRect().bottom,
                                  document.querySelector('.panel').getBoundingClientRect().bottom))""")
    assert gap <= 40, gap
