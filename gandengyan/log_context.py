"""Request and table ids in every log line.

Each HTTP request gets an id (``RequestIdMiddleware``), from the ``X-Request-ID`` header when a
proxy sent a sane one (nginx's ``$request_id``), else a new one, and sends it back in that header.
Each table socket gets one too, and the id of its table (``SocketLogContext``). Both live in
context variables, which follow the request or the socket into its tasks and its database threads;
``ContextFilter`` writes them into each log record for the console formatter of the settings'
``LOGGING``.
"""

import logging
import re
import uuid
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any

from django.core.signals import request_finished
from django.http import HttpRequest, HttpResponse

REQUEST_ID_HEADER = "X-Request-ID"
#: A proxy's request id is kept when it is a short token; anything else is replaced, so that a
#: client cannot write what it likes into the logs.
SANE_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
#: The table sockets' path (games.routing), whose table id the socket's log lines carry.
TABLE_SOCKET_PATH = re.compile(r"/ws/tables/(?P<table_id>[0-9]{1,18})/")

request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
table_id: ContextVar[int | None] = ContextVar("table_id", default=None)


def request_id_from(header: str | None) -> str:
    """The sent id when it is sane, else a new random one."""
    if header and SANE_REQUEST_ID.fullmatch(header):
        return header
    return uuid.uuid4().hex


class ContextFilter(logging.Filter):
    """Adds ``context`` to each record: `` [request=… table=…]`` with the ids there are, or
    nothing outside a request and a socket."""

    def filter(self, record: logging.LogRecord) -> bool:
        parts = []
        current_request = request_id.get()
        if current_request is not None:
            parts.append(f"request={current_request}")
        current_table = table_id.get()
        if current_table is not None:
            parts.append(f"table={current_table}")
        record.context = f" [{' '.join(parts)}]" if parts else ""
        return True


def forget_the_request_id(**kwargs: Any) -> None:
    """When a response is closed, its thread's later lines are no longer the request's. (Under
    ASGI each request runs in a context of its own anyway.)"""
    request_id.set(None)


class RequestIdMiddleware:
    """Gives each HTTP request its id, in the log context and in the response's header."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        request_finished.connect(forget_the_request_id, dispatch_uid=__name__)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        current = request_id_from(request.headers.get(REQUEST_ID_HEADER))
        # Not reset on the way out: Django logs a 4xx or 5xx response after the middleware has
        # returned it, and that line belongs to this request too (forget_the_request_id).
        request_id.set(current)
        response = self.get_response(request)
        response[REQUEST_ID_HEADER] = current
        return response


ASGIApp = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


class SocketLogContext:
    """An ASGI middleware for the websocket routes: each socket's log lines carry an id of the
    connection and, on a table's socket, the table's id."""

    def __init__(self, application: ASGIApp) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        headers = dict(scope.get("headers") or [])
        sent = headers.get(REQUEST_ID_HEADER.lower().encode(), b"").decode("latin-1")
        request_id.set(request_id_from(sent))
        matched = TABLE_SOCKET_PATH.fullmatch(scope.get("path", ""))
        table_id.set(int(matched["table_id"]) if matched else None)
        await self.application(scope, receive, send)
