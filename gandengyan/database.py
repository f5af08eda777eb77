"""The PostgreSQL connections a process of the site holds at most, and a forked child's pools.

On PostgreSQL every connection of a worker comes from one of two pools, or from one of its
service processes: Django's pool of the process (``DATABASE_POOL_MAX_SIZE``: page requests, the
sockets' database calls, the table runner's passes), the event loop's pool for players' moves
(``TABLE_MOVES_CONNECTIONS``, ``games.loop_moves``), and one kept open by each service process
(``SERVICE_PROCESSES``, ``games.service_processes``). Thinking processes use no database. The
budget these add up to is in docs/deploy.md, and tests/test_connection_budget.py holds a loaded
worker to it.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from django.conf import settings

__all__ = ["connections_of_runner", "connections_per_worker"]


def _pool_max_size() -> int:
    pool = settings.DATABASES["default"].get("OPTIONS", {}).get("pool")
    if not pool:
        return 0
    # psycopg_pool's own default when only min_size is given: max_size = min_size.
    options: dict[str, Any] = {} if pool is True else pool
    return int(options.get("max_size") or options.get("min_size", 4))


def connections_per_worker() -> dict[str, int]:
    """The most connections one daphne worker holds on PostgreSQL, by what holds them (empty on
    another database)."""
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        return {}
    return {
        "pool": _pool_max_size(),
        "moves": settings.TABLE_MOVES_CONNECTIONS if settings.TABLE_MOVES_ON_LOOP else 0,
        "service_processes": max(settings.SERVICE_PROCESSES, 0),
    }


def connections_of_runner() -> int:
    """The most connections ``manage.py run_tables`` holds on PostgreSQL: its pool's, though
    its passes, one at a time, use one."""
    return _pool_max_size()


# Kept, never used: dropping a pool inherited from the parent would close its connections, and
# closing one sends the server the end of the parent's session on the socket they share.
_inherited: list[Any] = []


def _forget_pools_after_fork() -> None:
    """In a forked child (a test's live server): the parent's pools and their threads are not
    its own, so its first connection starts a pool of its own."""
    backend = sys.modules.get("django.db.backends.postgresql.base")
    if backend is None:
        return
    pools = backend.DatabaseWrapper._connection_pools
    _inherited.extend(pools.values())
    pools.clear()


os.register_at_fork(after_in_child=_forget_pools_after_fork)
