"""The health check at ``/healthz``, for a load balancer or a monitor.

It answers 200 when the database answers a ``SELECT 1`` and a message sent on the channel layer
comes back, each within ``CHECK_TIMEOUT_SECONDS``, and 503 otherwise, saying which part failed
(the error itself goes to the log, as a warning). It reads no session and sets no cookie.
"""

import asyncio
import logging
from collections.abc import Awaitable

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connections
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

CHECK_TIMEOUT_SECONDS = 2.0
PING = "healthz.ping"

logger = logging.getLogger(__name__)


def _database_answers() -> None:
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT 1")
        if cursor.fetchone() != (1,):
            raise RuntimeError("SELECT 1 did not return 1")


async def _channel_layer_answers() -> None:
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("no channel layer is configured")
    channel = await layer.new_channel()
    await layer.send(channel, {"type": PING})
    message = await layer.receive(channel)
    if message.get("type") != PING:
        raise RuntimeError(f"the channel layer returned another message: {message!r}")


async def _answers(part: str, check: Awaitable[None]) -> bool:
    try:
        await asyncio.wait_for(check, timeout=CHECK_TIMEOUT_SECONDS)
    except Exception as error:  # noqa: BLE001 - any failure means the part does not answer
        logger.warning("health check: the %s does not answer: %r", part, error)
        return False
    return True


@never_cache
@require_safe
async def healthz(request: HttpRequest) -> JsonResponse:
    # thread_sensitive: in the request's own thread, whose connection Django gives back to the
    # pool when the request ends; another thread would keep it.
    database, channel_layer = await asyncio.gather(
        _answers("database", sync_to_async(_database_answers, thread_sensitive=True)()),
        _answers("channel layer", _channel_layer_answers()),
    )
    healthy = database and channel_layer
    response = JsonResponse(
        {
            "status": "ok" if healthy else "unavailable",
            "database": "ok" if database else "failed",
            "channel_layer": "ok" if channel_layer else "failed",
        },
        status=200 if healthy else 503,
    )
    # A failed check was logged above as a warning: Django would log the 503 as an error.
    response._has_been_logged = True  # type: ignore[attr-defined]
    return response
