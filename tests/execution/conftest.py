import pytest

from execution.runtime import sessions_close
from tests.registry_fixtures import activate_manifest


@pytest.fixture
def registry(db):
    return activate_manifest()


@pytest.fixture(autouse=True)
def _fresh_tool_sessions():
    # Sessions hold a token row; each test database starts empty.
    sessions_close()
    yield
    sessions_close()
