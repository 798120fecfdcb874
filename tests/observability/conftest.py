"""The conversation fixtures (real manifest, SST world, eager Celery, `talk`) for observability tests."""

from tests.conversations.conftest import (  # noqa: F401
    _eager,
    _fresh_sessions,
    moved_clock,
    registry,
    start,
    talk,
    world,
)
