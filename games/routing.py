"""Websocket routes, mounted by ``gandengyan.asgi``."""

from django.urls import URLPattern, URLResolver, path

from .consumers import TableConsumer

websocket_urlpatterns: list[URLPattern | URLResolver] = [
    path("ws/tables/<int:table_id>/", TableConsumer.as_asgi()),
]
