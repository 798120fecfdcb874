"""The conversation fixtures (real manifest, SST world, eager Celery, `talk`) for observability tests."""

from tests.conversations.conftest import _eager, _fresh_sessions, registry, start, talk, world  # noqa: F401
