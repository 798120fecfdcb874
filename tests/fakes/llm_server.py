"""The `fake_llm` fixture: a running fake OpenAI-compatible server with the LLM settings pointing at it.

The server itself (demo/scenarios/model_server.py) is shared with the scenario runner's model
scripts. Import the fixture into a conftest, or use `FakeLLMServer` directly.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from demo.scenarios.model_server import FakeLLMServer

__all__ = ["FakeLLMServer", "fake_llm"]


@pytest.fixture
def fake_llm(settings) -> Iterator[FakeLLMServer]:
    """A running fake, with the LLM settings pointing at it."""
    fake = FakeLLMServer().start()
    settings.LLM_BASE_URL = fake.url
    settings.LLM_API_KEY = "test-key"
    settings.LLM_MODEL = "fake-model"
    settings.LLM_TIMEOUT_SECONDS = 5
    try:
        yield fake
    finally:
        fake.stop()
