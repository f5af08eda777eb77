"""What a worker (a daphne process serving the site) does once, before it serves.

The site's ASGI application (``gandengyan.asgi``) and the load test's (``benchmarks.load.asgi``)
both call ``prepare``, so that what the load test measures is what the site runs.
"""

from __future__ import annotations

from . import service_processes, thinking
from .db_threads import switch_threads_often
from .heap import settle


def prepare() -> None:
    """Settle the heap as it is now, which lives as long as the worker (``games.heap``); let the
    database threads hand the interpreter's lock back soon (``games.db_threads``); then start
    the bots' thinking processes (``games.thinking``) and the service processes
    (``games.service_processes``), so that the first hint and the first game's end do not wait
    for them to start."""
    settle()
    switch_threads_often()
    thinking.warm()
    service_processes.warm()
