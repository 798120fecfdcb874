"""HTTP through Django's WSGI handler on a fixed pool of threads, websockets through Channels. Websocket
routes come from the apps that own them.

Every view is sync. Django's ASGI handler would give each request a thread of its own and hand it between
that thread and the event loop several times (around each sync-only middleware and the view): K requests
at once were K threads on one GIL waiting for the DB_POOL_MAX_SIZE pooled connections, refused with 503
past the pool's wait. On HTTP_CONCURRENCY threads (a2wsgi), a request waits its turn holding no thread
and no connection. Measured with bench/served_turns.py: README, "Production serving".
"""

import os

from a2wsgi import WSGIMiddleware
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
from django.conf import settings as _settings  # noqa: E402 - reading .configured does not load settings

_serving = not _settings.configured  # a server process, not a test importing the app
if _serving:  # pool its connections
    os.environ.setdefault("DB_POOL", "1")
django_wsgi_app = get_wsgi_application()
if _serving:  # never serve as a database role that could delete an audit row
    from tenancy.db import refuse_to_serve_as_a_deleting_role

    refuse_to_serve_as_a_deleting_role()
    from conversations.typos import warm

    warm()  # the language layer's word lists, before the first message rather than on it

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from config.overload import WebsocketOverloadGuard  # noqa: E402
from config.routing import websocket_urlpatterns  # noqa: E402
from tenancy.channels import TenantAuthMiddlewareStack  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": WSGIMiddleware(django_wsgi_app, workers=_settings.HTTP_CONCURRENCY),
        "websocket": WebsocketOverloadGuard(
            AllowedHostsOriginValidator(TenantAuthMiddlewareStack(URLRouter(websocket_urlpatterns)))),
    }
)
if _serving:  # /static/ (admin, API docs) from the app as runserver does, also under DEBUG=0 (make serve)
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402

    application = ASGIStaticFilesHandler(application)
