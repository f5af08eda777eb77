"""The last known position of recent games, kept in this process.

A game's position is its deal plus its stored events replayed by the engine. Replaying a whole
game for every frame and every action grows with the game's length; with this cache a reader
applies only the events stored since the position it last saw.

The database stays the only truth: an entry is used only after the event it was built up to
is found again, unchanged, in the database (so a position built inside a transaction that was
later rolled back is never trusted), and it is keyed by the game's id, seed commitment and start
time, so a reused id never picks up another game's position. Each process has its own cache;
nothing here is shared between workers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.rules import GameState

from .lru import LruCache

#: Games whose position is kept: far more than the games one process serves at a time.
CAPACITY = 4096


@dataclass(frozen=True)
class KnownPosition:
    """A position, and the stored event it was built up to (None: the deal)."""

    state: GameState
    last_event: tuple[int, int, Any] | None  # (event id, seat, action)


positions: LruCache[KnownPosition] = LruCache(CAPACITY)
