"""The threads the table sockets use for the database and the templates.

Channels' ``database_sync_to_async`` runs every call of a process on one thread by default, so a
worker's sockets would queue behind each other's waits for the database and the channel layer.
The sockets use this pool of threads instead: calls of different sockets overlap while they
wait, each taking a connection of the process's pool for its length (on PostgreSQL; on SQLite
each thread keeps its own for ``CONN_MAX_AGE``). One socket's calls still run one at a time,
because a consumer handles its messages in order.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any, TypeVar

from channels.db import DatabaseSyncToAsync
from django.conf import settings
from django.db import connections

R = TypeVar("R")

#: Enough for the sockets' calls to overlap while they wait. More threads only fight over the
#: interpreter's lock with each other and with the event loop: every socket read or write of the
#: loop then hands the lock to a waiting thread and back. Flat out, one worker did about 6 % more
#: actions with two threads than with three (and no more with six).
DATABASE_THREADS = 2


class _Pool(Executor):
    """A thread pool that a forked child replaces with one of its own: the child has none of
    its parent's threads, and work handed to the parent's pool would wait for them forever
    (a test's live server is a forked process)."""

    def __init__(self) -> None:
        self.executor = self._new()
        os.register_at_fork(after_in_child=self._renew)

    @staticmethod
    def _new() -> ThreadPoolExecutor:
        return ThreadPoolExecutor(max_workers=DATABASE_THREADS, thread_name_prefix="table-db")

    def _renew(self) -> None:
        self.executor = self._new()

    def submit(self, fn: Callable[..., R], /, *args: Any, **kwargs: Any) -> Future[R]:
        return self.executor.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.executor.shutdown(wait=wait, cancel_futures=cancel_futures)


_pool = _Pool()


def in_pool_thread(method: Callable[..., R]) -> Callable[..., Awaitable[R]]:
    """``database_sync_to_async`` on one of the pool's threads."""
    # asgiref annotates the executor as a ThreadPoolExecutor; it runs on any Executor.
    return DatabaseSyncToAsync(method, thread_sensitive=False, executor=_pool)  # type: ignore[arg-type]


def switch_threads_often() -> None:
    """Let a thread hold the interpreter's lock for ``GIL_SWITCH_SECONDS`` at most while another
    waits: a pool thread's query or template otherwise keeps the event loop, and every socket
    on it, waiting up to Python's default 5 ms at a time."""
    sys.setswitchinterval(settings.GIL_SWITCH_SECONDS)


def pool_started() -> bool:
    """Whether any of the pool's threads has started."""
    return bool(_pool.executor._threads)


def close_pool_connections() -> None:
    """Close the database connections the pool's threads keep on SQLite, or give back those
    they hold on PostgreSQL (tests, before the test database is dropped): one task per thread,
    held at a barrier until each thread has one."""
    barrier = threading.Barrier(DATABASE_THREADS)

    def close() -> None:
        barrier.wait(timeout=30)
        connections.close_all()

    for future in [_pool.submit(close) for _ in range(DATABASE_THREADS)]:
        future.result(timeout=60)
