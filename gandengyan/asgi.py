"""ASGI entry point: Django for HTTP, Channels for websockets.

Run with ``daphne gandengyan.asgi:application``.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gandengyan.settings")

# Set Django up before importing anything that touches models (the auth middleware does).
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from games import workers  # noqa: E402
from games.routing import websocket_urlpatterns  # noqa: E402
from games.runner import StartingTheRunner, check_sockets_hear_a_runner  # noqa: E402
from gandengyan.log_context import SocketLogContext  # noqa: E402

# Table sockets that no table runner can reach would show every bot move late: refuse to start.
check_sockets_hear_a_runner()

# For mypy: StartingTheRunner types the scope as any dict where the router wants asgiref's scope
# types, and Channels' stubs want URLRouter's routes of a type that django-stubs' path() never
# returns.
application = StartingTheRunner(
    ProtocolTypeRouter(  # type: ignore[arg-type]
        {
            "http": django_asgi_app,
            # Each socket's log lines carry its id and its table's (gandengyan.log_context).
            "websocket": SocketLogContext(
                AllowedHostsOriginValidator(  # type: ignore[arg-type]
                    AuthMiddlewareStack(URLRouter(websocket_urlpatterns))  # type: ignore[arg-type]
                )
            ),
        }
    )
)

# Last, with everything loaded: what a worker does before it serves.
workers.prepare()
