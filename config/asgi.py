"""HTTP and websockets through Channels. Websocket routes come from the apps that own them."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
from django.conf import settings as _settings  # noqa: E402 - reading .configured does not load settings

_serving = not _settings.configured  # a server process, not a test importing the app
if _serving:  # pool its connections
    os.environ.setdefault("DB_POOL", "1")
django_asgi_app = get_asgi_application()
if _serving:  # never serve as a database role that could delete an audit row
    from tenancy.db import refuse_to_serve_as_a_deleting_role

    refuse_to_serve_as_a_deleting_role()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from config.overload import WebsocketOverloadGuard  # noqa: E402
from config.routing import websocket_urlpatterns  # noqa: E402
from tenancy.channels import TenantAuthMiddlewareStack  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": WebsocketOverloadGuard(
            AllowedHostsOriginValidator(TenantAuthMiddlewareStack(URLRouter(websocket_urlpatterns)))),
    }
)
