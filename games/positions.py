"""The last known position of recent games, kept in this process.

A game's position is its deal plus its stored events replayed by the engine. Replaying a whole
game for every frame and every action grows with the game's length; with this cache a reader
applies only the events stored since the position it last saw.

The database stays the only truth. An entry is used as it is when the game row, as read,
carries the ``position_id`` its writer stored with the entry's last event: every stored event
comes with a new random one, so the row names exactly that position (one built in a transaction
that was rolled back never had its value committed). Otherwise the entry is used only after the
event it was built up to is found again, unchanged, in the database, and the events since are
applied. Entries are keyed by the game's id, seed commitment and start time, so a reused id
never picks up another game's position. Each process has its own cache; nothing here is shared
between workers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID

from games.rules.gandengyan import GameState

from .lru import LruCache

#: Games whose position is kept: far more than the games one process serves at a time.
CAPACITY = 4096


@dataclass(frozen=True)
class KnownPosition:
    """A position, the stored event it was built up to (None: the deal), and the game's
    ``position_id`` with that event when the writer that stored it knew it (None otherwise)."""

    state: GameState
    last_event: tuple[int, int, Any] | None  # (event id, seat, action)
    position_id: UUID | None = None


positions: LruCache[KnownPosition] = LruCache(CAPACITY)
