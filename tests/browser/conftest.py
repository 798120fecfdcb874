"""Playwright fixtures: Debian's headless chromium driving pytest-django's live_server.

Playwright's sync API runs an event loop in the test thread, which makes Django refuse ORM calls
from that thread unless DJANGO_ALLOW_ASYNC_UNSAFE is set; the setup and assertions in these tests
are plain synchronous code, so it is set here, for browser tests only.

Screenshots go to tests/artifacts/ (gitignored): `snap(page)` saves the state a test has just asserted
as <test-name>.png, to be looked at, pass or fail; a failing test also leaves every open page there.
"""

from __future__ import annotations

import io
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connections

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = Path(settings.BASE_DIR) / "tests" / "artifacts"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


@pytest.fixture
def worker_servers(transactional_db) -> Iterator:
    """daphne and a real Celery worker on the test database, Redis as broker and channel layer."""
    from tests.execution.worker import WorkerProcess, purge_queues

    from .servers import AsgiServer

    purge_queues()
    worker, asgi = WorkerProcess(), AsgiServer()
    worker.start()
    asgi.start()
    try:
        yield asgi
    finally:
        asgi.stop()
        worker.stop()
        purge_queues()


@pytest.fixture
def eager_server(transactional_db) -> Iterator:
    """daphne on the embedded default's execution mode (eager Celery, in-memory channel layer): an
    execution settles inside its turn, as on `make run` without Redis."""
    from .servers import AsgiServer

    asgi = AsgiServer()
    asgi.start(REDIS_URL="")
    try:
        yield asgi
    finally:
        asgi.stop()


@pytest.fixture
def demo_page(eager_server, new_context):
    """`demo_page(username="demo-operator")`: a chat page logged in to seed_demo's tenant, seeded once
    per test (the README's demo data), in a browser context of its own."""
    from django.core.management import call_command

    from registry.selectors import snapshot_clear

    from .chat import log_in, set_password

    seeded: list[bool] = []

    def open_page(username: str = "demo-operator"):
        if not seeded:
            call_command("seed_demo", stdout=io.StringIO())
            snapshot_clear()
            seeded.append(True)
        set_password(username)
        page = new_context(viewport={"width": 1280, "height": 900}).new_page()
        log_in(page, eager_server.url, username)
        return page

    return open_page


@pytest.fixture
def new_context(request, live_server, transactional_db, monkeypatch) -> Iterator:
    """A factory of isolated browser contexts (one per person), screenshotted if the test fails.

    The browser lives inside the test: Playwright's event loop must be gone before pytest-django
    flushes the database (and before the next test creates data), or Django refuses those calls.
    """
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (scripts/ensure_system_deps.sh)")
    from playwright.sync_api import sync_playwright

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        contexts = []

        def make(**options):
            context = browser.new_context(locale="pt-BR", **options)
            context.set_default_timeout(15_000)
            contexts.append(context)
            return context

        try:
            yield make
        finally:
            _screenshots_if_failed(request, contexts)
            browser.close()
            # While Playwright's loop runs, asgiref gives this thread's ORM calls their own
            # connection; close it here or it outlives the test database.
            connections.close_all()


@pytest.fixture
def snap(request):
    """`snap(page, name="")`: the whole page as tests/artifacts/<test-name>[-<name>].png.

    The conversation log is a scrolling box; it is unrolled for the picture so the screenshot shows
    every bubble, card and timeline in its place, not only the scrolled-to tail.
    """
    def take(page, name: str = "") -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{request.node.name}{f'-{name}' if name else ''}.png"
        page.evaluate(_UNROLL, "none")
        page.screenshot(path=str(path), full_page=True)
        page.evaluate(_UNROLL, "")
        return path

    return take


_UNROLL = "(height) => { const log = document.querySelector('#log'); if (log) log.style.maxHeight = height; }"


def _screenshots_if_failed(request, contexts) -> None:
    report = getattr(request.node, "rep_call", None)
    if report is None or not report.failed:
        return
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for index, context in enumerate(contexts):
        for number, page in enumerate(context.pages):
            page.screenshot(path=str(ARTIFACTS / f"{request.node.name}-failed-{index}-{number}.png"),
                            full_page=True)
