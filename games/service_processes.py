"""Where a table socket's heaviest service calls run: in processes of their own.

The end of a game (its last move, with the settlement) and the next deal (the last 再来一局) are
written by the services through the ORM: tens of statements and the players' frames, about ten
milliseconds of Python. In one of a worker's database threads they hold the interpreter's lock
against its event loop, and every socket of the worker waits while they do. So on PostgreSQL a
worker hands a seated player's move or 再来一局 that the event loop does not make itself
(``games.loop_moves``) to a small pool of service processes (``settings.SERVICE_PROCESSES``; 0:
the socket's database thread). Such a process sets Django up, with one database connection kept
open, runs the same services as the thread would (``games.intents``) and sends back the notices
of what it committed, with the players' frames it rendered; the socket sends them, as it sends
its thread's.

Nothing of the socket's own state crosses: the process reads the user and the table by their
keys, and the services check the seat under their locks, as from the thread. A refusal is raised
again in the worker (``errors.GameActionRefused`` and ``errors.TableRefused`` pickle whole). A
pool whose process died leaves the call to the thread; a move it had committed is then refused
there as made already (its action id), and the quiet socket's look repairs the lost notice.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from django.conf import settings
from django.db import DatabaseError, close_old_connections, connections

from .thinker import end_with_parent

__all__ = ["enabled", "make", "shutdown", "warm"]

logger = logging.getLogger(__name__)

#: What ``make`` gives back: the notices of the committed change, as ``(group, message)``.
Notices = list[tuple[str, dict[str, Any]]]

_pool: ProcessPoolExecutor | None = None
_pool_lock = threading.Lock()


def _forget_after_fork() -> None:
    """In a forked child (a test's live server): the parent's pool is not its own."""
    global _pool, _pool_lock
    _pool = None
    _pool_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)


def enabled() -> bool:
    """Whether this process hands its sockets' service calls to service processes: on
    PostgreSQL, with ``SERVICE_PROCESSES`` above 0. On SQLite every write takes the file's one
    lock, so another process would add waiting rather than work done beside the worker."""
    return settings.SERVICE_PROCESSES > 0 and connections["default"].vendor == "postgresql"


def _service_pool() -> ProcessPoolExecutor | None:
    """The process's pool of service processes, started at its first use (None: none)."""
    global _pool
    if not enabled() or multiprocessing.current_process().daemon:
        return None  # a daemonic process (a test's live server) may not start processes
    with _pool_lock:
        if _pool is None:
            # A fresh interpreter, not a fork of a worker with its threads, sockets and loop. It
            # uses the database this process uses (a test's, in the tests).
            _pool = ProcessPoolExecutor(
                max_workers=settings.SERVICE_PROCESSES,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start,
                initargs=(os.getpid(), connections["default"].settings_dict["NAME"]),
            )
        return _pool


def _start(parent: int, database: str) -> None:
    """In a new service process: Django set up as its worker's, on its worker's database, with
    the bots' choices for the frames' Hint button made in place (it has no event loop to keep
    free); then what its first call would load (the services, the templates, the URLconf the
    frames' links need) and its connection, so that the first game's end waits for none of it."""
    end_with_parent(parent)
    os.environ["THINKING_PROCESSES"] = "0"
    import django

    django.setup()
    from django.conf import settings as started

    from . import intents  # noqa: F401  (the services its calls make)
    from .heap import settle

    # One thread makes the calls: one connection, kept open, rather than a pool of them.
    for database_settings in (started.DATABASES["default"], connections["default"].settings_dict):
        database_settings["NAME"] = database
        database_settings.get("OPTIONS", {}).pop("pool", None)
        database_settings["CONN_MAX_AGE"] = None
    settle()
    # Connected ahead if the database answers; if not, the first call connects (or says why).
    with contextlib.suppress(DatabaseError):
        connections["default"].ensure_connection()


def warm() -> None:
    """Start the service processes now, in the background, so that the first call does not wait
    for a new interpreter and Django to start (a second or two)."""
    pool = _service_pool()
    if pool is not None:
        pool.submit(int)


def shutdown() -> None:
    """Stop the service processes and close their connections (started again when needed)."""
    global _pool
    with _pool_lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


def _make_here(
    user_id: int, table_id: int, language: str, intent: dict[str, Any], move: Any
) -> Notices:
    """In a service process: ``intents.intent_make`` for the user and table of those keys."""
    from django.utils import translation

    from accounts.models import User

    from . import services
    from .intents import intent_make
    from .models import Table

    # As around a request, or a database thread's call: a connection that broke is replaced,
    # rather than failing every later call of the process.
    close_old_connections()
    try:
        user = User.objects.get(pk=user_id)
        table = Table.objects.select_related("room").get(pk=table_id)
        with translation.override(language), services.notices_collected() as notices:
            intent_make(user=user, table=table, intent=intent, move=move)
    finally:
        close_old_connections()
    return notices


async def make(
    *, user_id: int, table_id: int, language: str, intent: dict[str, Any], move: Any
) -> Notices | None:
    """Make a seated player's ``intent`` (``move``: its action, for a move) in a service
    process: the notices of what it committed, or None when no service process takes it (the
    caller makes it in its thread). Raises the services' refusals."""
    pool = _service_pool()
    if pool is None:
        return None
    loop = asyncio.get_running_loop()
    try:
        return await loop.run_in_executor(
            pool, _make_here, user_id, table_id, language, intent, move
        )
    except BrokenProcessPool:
        logger.exception("a service process died; table %s's call goes to a thread", table_id)
        _forget_broken(pool)
        return None


def _forget_broken(pool: ProcessPoolExecutor) -> None:
    """Drop a pool whose process died: the next call starts a new one."""
    global _pool
    with _pool_lock:
        if _pool is pool:
            _pool = None
    pool.shutdown(wait=False, cancel_futures=True)
