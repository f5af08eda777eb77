"""How many messages a signed-in user may send to the live tables, counted by ``limits``.

A person clicks a few times a second at most; a script that floods a table's socket only costs
the server work. Each worker process counts the messages of its own sockets, per user (all of
one user's tabs together), in a moving window: ``TABLE_MESSAGE_RATE`` in the settings, in
``limits``' notation (``"10/second;100/minute"``). A message over the limit is dropped before it
is read; the sender is told at most once per ``WARNING_INTERVAL`` seconds.
"""

from __future__ import annotations

import time

from django.conf import settings
from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

WARNING_INTERVAL = 1.0

_limiter = MovingWindowRateLimiter(MemoryStorage())
_rates: tuple[str, list[RateLimitItem]] | None = None


def _current_rates() -> list[RateLimitItem]:
    global _rates
    text = settings.TABLE_MESSAGE_RATE
    if _rates is None or _rates[0] != text:
        _rates = (text, parse_many(text))
    return _rates[1]


def message_allowed(user_id: int) -> bool:
    """Count one message of ``user_id``; False when it is over one of the limits."""
    allowed = True
    for rate in _current_rates():
        # Every window counts the message, so a flood stays over the limit while it goes on.
        allowed = _limiter.hit(rate, "table-messages", str(user_id)) and allowed
    return allowed


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
    _limiter.storage.reset()
