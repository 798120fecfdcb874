"""Playwright fixtures: Debian's headless chromium driving pytest-django's live_server.

Playwright's sync API runs an event loop in the test thread, which makes Django refuse ORM calls
from that thread unless DJANGO_ALLOW_ASYNC_UNSAFE is set; the setup and assertions in these tests
are plain synchronous code, so it is set here, for browser tests only. A failing test leaves a
screenshot of every open page in test-artifacts/.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connections

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = Path(settings.BASE_DIR) / "test-artifacts"
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


def _screenshots_if_failed(request, contexts) -> None:
    report = getattr(request.node, "rep_call", None)
    if report is None or not report.failed:
        return
    ARTIFACTS.mkdir(exist_ok=True)
    for index, context in enumerate(contexts):
        for number, page in enumerate(context.pages):
            page.screenshot(path=str(ARTIFACTS / f"{request.node.name}-{index}-{number}.png"), full_page=True)
