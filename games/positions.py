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

import threading
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from games.rules import GameState

#: Games whose position is kept: far more than the games one process serves at a time.
CAPACITY = 4096


@dataclass(frozen=True)
class KnownPosition:
    """A position, and the stored event it was built up to (None: the deal)."""

    state: GameState
    last_event: tuple[int, int, Any] | None  # (event id, seat, action)


class PositionCache:
    """A small least-recently-used map from a game's key to its last known position."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[Hashable, KnownPosition] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> KnownPosition | None:
        with self._lock:
            known = self._entries.get(key)
            if known is not None:
                self._entries.move_to_end(key)
            return known

    def put(self, key: Hashable, known: KnownPosition) -> None:
        with self._lock:
            self._entries[key] = known
            self._entries.move_to_end(key)
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


positions = PositionCache()
