"""The table runner: the work no player's click triggers. Bots take the free seats of tables
whose players have waited long enough; after a game, players who have not pressed 再来一局 in
time leave their seats; and when a turn's deadline passes the server acts for the seat: a bot's
move, 托管, or a player's time running out.

Each step is a service call in its own transaction that locks the row it changes and checks
again under the lock, so any number of runners (in daphne processes or ``manage.py
run_tables``) can work at once: a turn is taken once, by whichever runner gets the lock first.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import close_old_connections
from django.utils import timezone
from django.utils.module_loading import import_string

from . import services
from .selectors import (
    games_with_a_turn_due,
    tables_to_fill_with_bots,
    tables_with_players_not_ready,
)

logger = logging.getLogger(__name__)

#: At most this many tables and games are handled per pass, so that one pass stays short.
BATCH = 50


def run_due_work(*, now: datetime | None = None) -> int:
    """One pass: free the seats of players who were not ready in time, seat bots where they are
    due, then act on the turns that are due. Returns how many tables changed seats plus how
    many moves were made. A failing table or game is logged and skipped, so that it cannot stop
    the others."""
    now = now or timezone.now()
    done = 0
    for table in list(tables_with_players_not_ready(now=now)[:BATCH]):
        try:
            done += bool(services.table_stand_up_not_ready(table=table, now=now))
        except Exception:
            logger.exception("could not free the seats of players not ready at table %s", table.pk)
    for table in list(tables_to_fill_with_bots(now=now)[:BATCH]):
        try:
            done += bool(services.table_fill_with_bots(table=table, now=now))
        except Exception:
            logger.exception("could not seat bots at table %s", table.pk)
    for game in list(games_with_a_turn_due(now=now)[:BATCH]):
        try:
            done += services.game_turn_due(game=game, now=now) is not None
        except Exception:
            logger.exception("could not act on the due turn of game %s", game.pk)
    return done


def _run_once_closing_connections() -> int:
    close_old_connections()
    try:
        return run_due_work()
    finally:
        close_old_connections()


async def run_forever(*, interval: float) -> None:
    """Run a pass every ``interval`` seconds (at once again after a pass that did something)."""
    while True:
        try:
            done = await database_sync_to_async(_run_once_closing_connections)()
        except Exception:
            logger.exception("the table runner's pass failed")
            done = 0
        if not done:
            await asyncio.sleep(interval)


def channel_layer_is_process_local() -> bool:
    """Whether the channel layer lives inside each process (the in-memory one, or none at all):
    then only a runner in the process that holds the sockets can reach them."""
    layer = getattr(settings, "CHANNEL_LAYERS", {}).get("default")
    if not layer:
        return True
    backend = import_string(layer["BACKEND"])
    return isinstance(backend, type) and issubclass(backend, InMemoryChannelLayer)


SEPARATE_RUNNER_UNHEARD = (
    "The table runner cannot run in a process of its own here: the channel layer is the "
    "in-memory one (REDIS_URL is not set), which lives inside each process, so the table "
    "pages would hear of its bots' moves, timeouts and 托管 only when they look again, "
    "{resync:g} s later. Either run daphne alone, which runs the table runner itself "
    "(TABLE_RUNNER_IN_PROCESS=true, the default; ./scripts/serve.sh does this), or set "
    "REDIS_URL so that the runner and daphne share Redis's channel layer."
)

NO_RUNNER_HEARD = (
    "TABLE_RUNNER_IN_PROCESS is off, so this daphne process runs no table runner, and with the "
    "in-memory channel layer (REDIS_URL is not set) no runner in another process can reach its "
    "sockets: bots would never move and turn clocks never run out. Turn TABLE_RUNNER_IN_PROCESS "
    "on (the default), or set REDIS_URL and run `manage.py run_tables` beside daphne."
)


def separate_runner_refusal() -> str | None:
    """Why a runner in a process of its own (``manage.py run_tables``) would go unheard by the
    table sockets, or None when it shares a channel layer with them."""
    if channel_layer_is_process_local():
        return SEPARATE_RUNNER_UNHEARD.format(resync=settings.TABLE_RESYNC_SECONDS)
    return None


def check_sockets_hear_a_runner() -> None:
    """Refuse to serve table sockets that no table runner could reach: a site that runs, with
    every bot move reaching the pages only at their next look, is worse than one that stops."""
    if not settings.TABLE_RUNNER_IN_PROCESS and channel_layer_is_process_local():
        raise ImproperlyConfigured(NO_RUNNER_HEARD)


_running: dict[int, asyncio.Task[None]] = {}


def ensure_running_in_this_process() -> None:
    """Start the runner on the current event loop unless it already runs there, when the
    ``TABLE_RUNNER_IN_PROCESS`` setting is on. The site's first page request calls this
    (``StartingTheRunner``), as does each table socket, so that a single daphne process serves
    a complete site without another process, and acts on deadlines that passed while it was
    down."""
    if not settings.TABLE_RUNNER_IN_PROCESS:
        return
    loop = asyncio.get_running_loop()
    task = _running.get(id(loop))
    if task is not None and not task.done():
        return
    # A context of its own: started by a request or a table socket, the runner must not carry
    # that request's or table's ids (gandengyan.log_context) in its log lines for good.
    _running[id(loop)] = loop.create_task(
        run_forever(interval=settings.TABLE_RUNNER_INTERVAL_SECONDS), context=contextvars.Context()
    )


ASGIApp = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


class StartingTheRunner:
    """An ASGI application that starts the process's table runner on its first page request,
    then hands the request on: daphne has no start-up hook, and ``./scripts/serve.sh`` sends a
    request as soon as it listens. (A table socket starts it too, once accepted.)"""

    def __init__(self, application: ASGIApp) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            ensure_running_in_this_process()
        await self.application(scope, receive, send)
