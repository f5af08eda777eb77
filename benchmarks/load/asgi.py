"""The ASGI application of the load test: the site's own application, with the bare
transport's route (``ws/bare/<group>/``, ``benchmarks.load.baseline``) beside the table's,
behind the same origin check and session middleware. Run with
``daphne benchmarks.load.asgi:application``."""

from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gandengyan.settings")

# Set Django up before importing anything that touches models, as gandengyan.asgi does.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.urls import path  # noqa: E402

from benchmarks.load.baseline import BareConsumer  # noqa: E402
from games.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(
                URLRouter(
                    [
                        *websocket_urlpatterns,
                        path("ws/bare/<str:group>/", BareConsumer.as_asgi()),
                    ]
                )
            )
        ),
    }
)
