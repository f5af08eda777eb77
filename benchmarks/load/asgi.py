"""The ASGI application of the load test: the site's own application, with the bare
transport's route (``ws/bare/<group>/``, ``benchmarks.load.baseline``) beside the table's,
behind the same origin check and session middleware. Run with
``daphne benchmarks.load.asgi:application``. With ``LOOP_MONITOR_DIR`` set, the first
connection starts the heartbeat of ``benchmarks.load.loop_monitor`` on the worker's loop."""

from __future__ import annotations

import os
from typing import Any

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gandengyan.settings")

# Set Django up before importing anything that touches models, as gandengyan.asgi does.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.urls import path  # noqa: E402

from benchmarks.load.baseline import BareConsumer  # noqa: E402
from benchmarks.load.loop_monitor import Heartbeat, from_environment  # noqa: E402
from games import workers  # noqa: E402
from games.routing import websocket_urlpatterns  # noqa: E402

site = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(
                URLRouter(
                    [
                        # First: the site's own routes end with one that refuses any path.
                        path("ws/bare/<str:group>/", BareConsumer.as_asgi()),
                        *websocket_urlpatterns,
                    ]
                )
            )
        ),
    }
)


class Monitored:
    """``site``, with the heartbeat started on the worker's loop by the first connection (daphne
    has no start-up hook)."""

    def __init__(self, inner: Any, heartbeat: Heartbeat) -> None:
        self.inner = inner
        self.heartbeat = heartbeat

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.heartbeat.start()
        await self.inner(scope, receive, send)


workers.prepare()  # as gandengyan.asgi does
heartbeat = from_environment()
application = site if heartbeat is None else Monitored(site, heartbeat)
