"""config/asgi.py serves HTTP through Django's WSGI handler on HTTP_CONCURRENCY threads (a request beyond
them waits, it is not refused) and websockets through Channels."""

from __future__ import annotations

import pytest
from a2wsgi import WSGIMiddleware
from asgiref.sync import async_to_sync
from channels.testing import HttpCommunicator
from django.conf import settings


def _router():
    from config.asgi import application

    return getattr(application, "application", application)  # under ASGIStaticFilesHandler in a server process


def test_http_runs_on_a_fixed_pool_of_threads_and_websockets_do_not() -> None:
    router = _router()
    http = router.application_mapping["http"]
    assert isinstance(http, WSGIMiddleware) and http.executor._max_workers == settings.HTTP_CONCURRENCY
    assert not isinstance(router.application_mapping["websocket"], WSGIMiddleware)


@pytest.mark.django_db
def test_a_page_and_an_api_answer_through_the_asgi_application() -> None:
    from config.asgi import application

    async def get(path: str) -> dict:
        return await HttpCommunicator(application, "GET", path).get_response(timeout=10)

    page = async_to_sync(get)("/login/")
    assert page["status"] == 200 and b"<form" in page["body"]
    api = async_to_sync(get)("/agent/conversations")
    assert api["status"] in (401, 403) and b"detail" in api["body"]  # the API's error shape, not a crash
