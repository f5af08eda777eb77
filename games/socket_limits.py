"""How many messages a signed-in user may send to the live tables.

A person clicks a few times a second at most; a script that floods a table's socket only costs
the server work. Each worker process counts the messages of its own sockets, per user (all of
one user's tabs together), in moving windows: ``TABLE_MESSAGE_RATE`` in the settings, in
``limits``' notation (``"10/second;100/minute"``). A message over the limit is dropped before it
is read; the sender is told at most once per ``WARNING_INTERVAL`` seconds.

The windows are counted here as ``limits``' moving window counts them (a message counts in each
window that lets it through), without its in-memory storage: that storage starts a thread every
10 ms to expire old entries while it holds any, which on a busy worker's event loop cost more
than counting.
"""

from __future__ import annotations

import time
from bisect import bisect_right

from django.conf import settings
from limits import RateLimitItem, parse_many

WARNING_INTERVAL = 1.0

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


def message_allowed(user_id: int) -> bool:
    """Count one message of ``user_id``; False when it is over one of the limits."""
    return _windows.hit(user_id, _current_rates(), time.monotonic())


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


def reset() -> None:
    """Forget every count (tests)."""
    _windows.times.clear()
