"""Websocket routes, mounted by ``gandengyan.asgi``."""

from django.urls import URLPattern, URLResolver, path

from .consumers import TableConsumer

# django-stubs types path() for views only, not for the ASGI applications Channels routes to.
websocket_urlpatterns: list[URLPattern | URLResolver] = [
    path("ws/tables/<int:table_id>/", TableConsumer.as_asgi()),  # type: ignore[arg-type]
]
