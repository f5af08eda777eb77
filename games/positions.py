"""What this process knows of each table's current game, kept from one move to the next.

A table's entry holds what the last move, deal or read in this process left of the table's
current game (or of its last one): the game's position and the stored event it was built up to,
the game row as last written (with its table and room, when read or written with them), the
table's seats with their players, the game's players and the seated players' balances. Any part
but the position and the game row may be missing (None): it is then read again.

The database stays the only truth, and an entry is used by one rule: only when the game row as
read (under its lock, for a move) names the entry's ``position_id``. Every stored event, every
other write of the game row, and every change of the table's seats while the game is being
played stores a new random one, so the row then names exactly what the entry was made from (an
entry made in a transaction that was rolled back names a value that was never committed). A
reader that labels what it built with a row's ``position_id`` reads the rest after that row:
if the row changes in between, the label names a value the row has left for good. Otherwise a
move reads what it needs again, and a position is rebuilt from the entry's by the events stored
since its last one (found again, unchanged, in the database), or from the deal.

What the rule does not see shows from the next entry made for the table (the game's next write
through the services, or its next game): a balance changed during a game by something else
than the game (a relief grant, a staff adjustment), and a room or a player's account edited in
the admin during the game.

Each process has its own cache; nothing here is shared between workers.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from .lru import LruCache

if TYPE_CHECKING:
    from .models import Game, GamePlayer, Seat, Table

#: Tables whose current game is kept: far more than the tables one process serves at a time.
CAPACITY = 4096


@dataclasses.dataclass(frozen=True)
class KnownGame:
    """What this process knows of a table's current ``game`` at the ``position_id`` its row
    names: the position (``state``) and the stored event it was built up to (``last_event``:
    id, seat and action; None: the deal), the game's ``table`` with its room, the table's
    ``seats`` by position with their players, the game's ``players`` by seat and the seated
    players' ``balances`` by user. None of these rows is changed once kept."""

    game: Game
    state: Any
    last_event: tuple[int, int, Any] | None
    table: Table | None = None
    seats: list[Seat] | None = None
    players: dict[int, GamePlayer] | None = None
    balances: dict[int, int] | None = None

    @property
    def complete(self) -> bool:
        """Whether it holds everything a move reads."""
        return not (
            self.table is None
            or self.seats is None
            or self.players is None
            or self.balances is None
        )

    def names(self, game: Game) -> bool:
        """Whether ``game``'s row, as read, names this entry: its one rule."""
        return self.game.position_id == game.position_id and self.game.pk == game.pk

    def of(self, game: Game) -> bool:
        """Whether this entry is of the very game ``game`` (a reused id is another game)."""
        known = self.game
        return (
            known.pk == game.pk
            and known.seed_commitment == game.seed_commitment
            and known.started_at == game.started_at
        )


known_games: LruCache[KnownGame] = LruCache(CAPACITY)


def known(table_id: int) -> KnownGame | None:
    """The entry of table ``table_id``, whatever it names."""
    return known_games.get(table_id)


def known_naming(game: Game) -> KnownGame | None:
    """The entry of ``game``'s table if ``game``'s row names it."""
    entry = known_games.get(game.table_id)
    return entry if entry is not None and entry.names(game) else None


def remember(entry: KnownGame) -> None:
    """Keep ``entry`` for its table: what a writer just stored, or what a move read under the
    game's lock."""
    known_games.put(entry.game.table_id, entry)


def remember_read(entry: KnownGame) -> None:
    """Keep ``entry``, made by a reader, unless the table's entry is of another game and this
    one is over: a page showing an old game of a table does not push out the game being played
    there."""
    game = entry.game
    current = known_games.get(game.table_id)
    if current is None or current.of(game) or game.status == game.Status.PLAYING:
        known_games.put(game.table_id, entry)


def remember_rows(*, game: Game, players: dict[int, GamePlayer], balances: dict[int, int]) -> None:
    """Add the game's ``players`` and the seated players' ``balances``, just read, to the entry
    of ``game``'s table if ``game``'s row names it."""
    entry = known_games.get(game.table_id)
    if entry is not None and entry.names(game):
        known_games.replace(
            game.table_id,
            entry,
            dataclasses.replace(entry, players=players, balances=balances),
        )


def clear() -> None:
    known_games.clear()
