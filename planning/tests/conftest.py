import pytest

from tests.registry_fixtures import activate_manifest


@pytest.fixture
def registry(db):
    return activate_manifest()
