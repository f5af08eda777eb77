"""What a worker (a daphne process serving the site) does once, before it serves.

The site's ASGI application (``gandengyan.asgi``) and the load test's (``benchmarks.load.asgi``)
both call ``prepare``, so that what the load test measures is what the site runs.
"""

from __future__ import annotations

from .db_threads import switch_threads_often
from .heap import settle
from .thinking import warm


def prepare() -> None:
    """Settle the heap as it is now, which lives as long as the worker (``games.heap``); let the
    database threads hand the interpreter's lock back soon (``games.db_threads``); then start
    the bots' thinking processes (``games.thinking``), so that the first hint does not wait for
    them."""
    settle()
    switch_threads_often()
    warm()
