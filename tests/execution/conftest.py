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


@pytest.fixture(scope="session")
def celery_worker_process(django_db_setup, django_db_blocker):
    from .worker import purge_queues, shared_worker

    with django_db_blocker.unblock():
        purge_queues()
        worker = shared_worker()
        if worker.process is None or worker.process.poll() is not None:
            worker.start()
        yield worker
        worker.stop()


@pytest.fixture
def worker(celery_worker_process):
    from .worker import purge_queues

    if celery_worker_process.process is None or celery_worker_process.process.poll() is not None:
        celery_worker_process.start()
    purge_queues()
    yield celery_worker_process
    purge_queues()


@pytest.fixture
def eager():
    """The embedded default's mode: Celery tasks run inline (the suite's REDIS_URL would send them to Redis)."""
    from config.celery import app

    saved = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = saved
