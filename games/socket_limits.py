"""How many messages a signed-in user may send to the live tables, and how many sockets may be
open at once.

A person clicks a few times a second at most; a script that floods a table's socket only costs
the server work. A user's messages (all of their tabs together) are counted in moving windows:
``TABLE_MESSAGE_RATE`` in the settings, in ``limits``' notation (``"10/second;100/minute"``). A
message over the limit is dropped before it is read; the sender is told at most once per
``WARNING_INTERVAL`` seconds.

Each worker process counts the messages of its own sockets first, in memory, which costs
nothing and stops a flood on one worker without a round trip. When the cache is Redis (every
worker shares it), a message the worker lets through is then counted there too, in windows of
the same rates shared by every worker, so that a user whose tabs are spread over N workers does
not get N times the budget: one script call per message counts it in every window at once.

The windows are counted here as ``limits``' moving window counts them (a message counts in each
window that lets it through), without its in-memory storage: that storage starts a thread every
10 ms to expire old entries while it holds any, which on a busy worker's event loop cost more
than counting.

Open sockets are counted in the cache, which every worker shares when it is Redis: a user may
have ``TABLE_SOCKETS_PER_USER`` table sockets (tabs, at any tables), and a table
``TABLE_SPECTATORS_MAX`` spectators' sockets. Each open socket holds one numbered place, a key
added only if absent (atomic on Redis and in memory alike), that expires after
``TABLE_SOCKET_SLOT_SECONDS`` unless the socket renews it. A shared counter would do with one
key, but its expiry is renewed by every live socket: the counts of a killed worker's sockets
would then never expire while the table has other spectators. A place of its own expires with
the socket that held it.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
import weakref
from bisect import bisect_right
from typing import Any

from django.conf import settings
from django.core.cache import cache
from limits import RateLimitItem, parse_many

logger = logging.getLogger(__name__)

WARNING_INTERVAL = 1.0

#: Seconds a message waits at most for its count in the shared windows.
TIMEOUT = 2.0

#: Every so many messages, the windows of users who sent nothing for a while are forgotten.
FORGET_EVERY = 1024


class MovingWindows:
    """For each user and rate, the times of the messages the rate's window let through."""

    def __init__(self) -> None:
        self.times: dict[tuple[int, int, float], list[float]] = {}
        self.hits = 0

    def hit(self, user_id: int, rates: list[RateLimitItem], now: float) -> bool:
        """Count one message of ``user_id`` at ``now``; False when a window is full."""
        allowed = True
        for rate in rates:
            window = float(rate.get_expiry())
            times = self.times.setdefault((user_id, rate.amount, window), [])
            del times[: bisect_right(times, now - window)]
            if len(times) < rate.amount:
                times.append(now)
            else:
                allowed = False
        self.hits += 1
        if self.hits % FORGET_EVERY == 0:
            self.forget(now)
        return allowed

    def forget(self, now: float) -> None:
        """Drop the windows whose messages have all left them."""
        for key in [
            key for key, times in self.times.items() if not times or times[-1] <= now - key[2]
        ]:
            del self.times[key]


_windows = MovingWindows()
_rates: tuple[str, list[RateLimitItem]] | None = None


def _current_rates() -> list[RateLimitItem]:
    global _rates
    text = settings.TABLE_MESSAGE_RATE
    if _rates is None or _rates[0] != text:
        _rates = (text, parse_many(text))
    return _rates[1]


class SharedWindows:
    """The moving windows of every worker, in Redis: for each user and rate, a sorted set of the
    times of the messages its window let through, which expires once its window is past."""

    #: KEYS: one sorted set per rate; ARGV: now, this message's member, then each rate's amount
    #: and window in seconds. Returns 1 when every window let the message through.
    SCRIPT = """
    local now = tonumber(ARGV[1])
    local allowed = 1
    for i, key in ipairs(KEYS) do
      local amount = tonumber(ARGV[1 + 2 * i])
      local window = tonumber(ARGV[2 + 2 * i])
      redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
      if redis.call('ZCARD', key) < amount then
        redis.call('ZADD', key, now, ARGV[2])
        redis.call('EXPIRE', key, math.ceil(window) + 1)
      else
        allowed = 0
      end
    end
    return allowed
    """

    def __init__(self, url: str) -> None:
        self.url = url
        # A redis.asyncio client belongs to the event loop it was made in.
        self.clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = (
            weakref.WeakKeyDictionary()
        )

    def _script(self) -> Any:
        loop = asyncio.get_running_loop()
        script = self.clients.get(loop)
        if script is None:
            import redis.asyncio

            # No socket timeout of the client's own: it would wrap every write in a task of
            # its own (``asyncio.wait_for``); ``hit`` bounds the whole call instead.
            client = redis.asyncio.Redis.from_url(
                self.url, socket_timeout=None, socket_connect_timeout=TIMEOUT
            )
            script = self.clients[loop] = client.register_script(self.SCRIPT)
        return script

    async def hit(self, user_id: int, rates: list[RateLimitItem], now: float) -> bool:
        """Count one message of ``user_id`` at ``now`` (seconds, the same clock on every
        worker); False when a window is full."""
        keys = [
            cache.make_key(f"table-rate:{user_id}:{rate.amount}/{rate.get_expiry()}")
            for rate in rates
        ]
        args: list[float | int | str] = [now, uuid.uuid4().hex]
        for rate in rates:
            args += [rate.amount, rate.get_expiry()]
        # A message waits for the count: not for long, if Redis hangs.
        async with asyncio.timeout(TIMEOUT):
            return bool(await self._script()(keys=keys, args=args))


_shared: tuple[str, SharedWindows] | None = None


def shared_windows() -> SharedWindows | None:
    """The windows every worker shares: in the cache's Redis, when the cache is Redis."""
    global _shared
    cache_settings = settings.CACHES["default"]
    if cache_settings["BACKEND"] != "django.core.cache.backends.redis.RedisCache":
        return None
    url = str(cache_settings["LOCATION"])
    if _shared is None or _shared[0] != url:
        _shared = (url, SharedWindows(url))
    return _shared[1]


async def message_allowed(user_id: int, windows: MovingWindows | None = None) -> bool:
    """Count one message of ``user_id``; False when it is over one of the limits. ``windows``:
    this process's (tests give a worker of their own)."""
    rates = _current_rates()
    if not (windows or _windows).hit(user_id, rates, time.monotonic()):
        return False
    shared = shared_windows()
    if shared is None:
        return True
    try:
        return await shared.hit(user_id, rates, time.time())
    except Exception:  # Redis away: this worker's own count still holds
        logger.exception("could not count a message of user %s in the shared windows", user_id)
        return True


class Warnings:
    """When a socket last told its user to slow down, so a flood gets one notice, not one
    per dropped message."""

    def __init__(self) -> None:
        self.last = float("-inf")

    def due(self) -> bool:
        now = time.monotonic()
        if now - self.last < WARNING_INTERVAL:
            return False
        self.last = now
        return True


def place_take(*, kind: str, capacity: int, owner: str) -> str | None:
    """One of the ``capacity`` places of ``kind`` (``"user:7"``, ``"spectators:12"``) for
    ``owner`` (a socket's channel name): its key, or None when all are held."""
    keys = [f"table-sockets:{kind}:{number}" for number in range(capacity)]
    held = cache.get_many(keys)
    timeout = settings.TABLE_SOCKET_SLOT_SECONDS
    for key in keys:
        # Another worker may take a free place between the read and the add: the add fails.
        if key not in held and cache.add(key, owner, timeout=timeout):
            return key
    return None


def places_renew(keys: list[str], owner: str) -> None:
    """Keep ``owner``'s places for another ``TABLE_SOCKET_SLOT_SECONDS``; one that expired
    meanwhile is taken again if still free."""
    timeout = settings.TABLE_SOCKET_SLOT_SECONDS
    for key in keys:
        if not cache.touch(key, timeout=timeout):
            cache.add(key, owner, timeout=timeout)


def places_free(keys: list[str], owner: str) -> None:
    """Give back ``owner``'s places (one that expired and went to another socket stays)."""
    for key in keys:
        if cache.get(key) == owner:
            cache.delete(key)


def reset() -> None:
    """Forget every count (tests)."""
    _windows.times.clear()
