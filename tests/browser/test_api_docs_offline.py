"""/api/docs/ renders in a browser that cannot reach anything but this server (issue 17, point 5):
Swagger UI's files come from drf-spectacular-sidecar, and each operation shows its summary and example."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.conf import settings

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(settings.BASE_DIR) / "tests" / "artifacts"


def test_the_api_docs_render_with_no_network_beyond_this_server(live_server, new_context):
    page = new_context(viewport={"width": 1280, "height": 900}).new_page()
    refused: list[str] = []

    def offline(route) -> None:
        if urlsplit(route.request.url).hostname in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    page.route("**/*", offline)
    page.goto(f"{live_server.url}/api/docs/")
    page.wait_for_selector(".swagger-ui .opblock")
    assert page.locator(".swagger-ui .opblock").count() > 50
    assert page.locator(".opblock-summary-description", has_text="Send a message (one turn)").count() == 1

    operation = page.locator("#operations-agent-agent_conversations_messages_create")
    operation.locator(".opblock-summary").click()
    operation.locator(".opblock-body").wait_for()
    assert "Adicione o componente de trabalho em altura" in operation.inner_text()
    assert refused == []
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    operation.screenshot(path=str(ARTIFACTS / "api_docs_offline.png"))
