"""Websocket routes, mounted by ``gandengyan.asgi``."""

from django.urls import URLPattern, URLResolver, path, re_path

from .consumers import NoSuchSocket, TableConsumer

# django-stubs types path() for views only, not for the ASGI applications Channels routes to.
websocket_urlpatterns: list[URLPattern | URLResolver] = [
    path("ws/tables/<int:table_id>/", TableConsumer.as_asgi()),  # type: ignore[arg-type]
    # Any other path is refused at the handshake, as a 404 is: a stranger's probe is no error.
    re_path(r"", NoSuchSocket.as_asgi()),  # type: ignore[arg-type]
]
