"""Websocket routes, mounted by ``gandengyan.asgi``."""

from django.urls import URLPattern, URLResolver

websocket_urlpatterns: list[URLPattern | URLResolver] = []
