"""Tables: a player's table, the tables to watch, the table's version, and the rows a table's view
is made of.
"""

from __future__ import annotations

import dataclasses
import secrets
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db.models import Case, Value, When

from accounts.models import Wallet

from .. import positions
from ..models import Game, GamePlayer, Room, Seat, Table


def table_get_for_user(
    *, user: AbstractBaseUser | AnonymousUser, table_id: int | str, invite_code: str | None = None
) -> tuple[Table, int | None]:
    """The table and ``user``'s seat at it (None for a spectator), if ``user`` may see it.

    The one access check for a table's page and its websocket. A player seated at the table gets
    their seat; anyone signed in may watch a public table; a private table is for its seated
    players, and for whoever has its invite code while it is open. Raises ``Table.DoesNotExist``
    otherwise, the same as for a table that does not exist.
    """
    try:
        pk = int(table_id)
    except (TypeError, ValueError):
        raise Table.DoesNotExist(f"no table {table_id!r}") from None
    table = Table.objects.select_related("room").filter(pk=pk).first()
    if table is None or not user.is_authenticated:
        raise Table.DoesNotExist(f"no table {pk} for this user")
    seat = table.seats.filter(user_id=user.pk).values_list("position", flat=True).first()
    if seat is not None:
        return table, seat
    if not table.is_private:
        return table, None
    # Who played the table's last game may still see how it ended after leaving the table.
    last = table_current_game(table=table)
    if last is not None and last.is_over and last.players.filter(user_id=user.pk).exists():
        return table, None
    if (
        isinstance(invite_code, str)
        and table.invite_code
        and table.status != Table.Status.CLOSED
        and secrets.compare_digest(invite_code.encode(), table.invite_code.encode())
    ):
        return table, None
    raise Table.DoesNotExist(f"no table {pk} for this user")


def table_of_user(*, user: AbstractBaseUser | AnonymousUser) -> tuple[Table, int] | None:
    """The table (not closed) where ``user`` sits, and their seat; None when they sit nowhere."""
    if not user.is_authenticated:
        return None
    seat = (
        Seat.objects.select_related("table__room")
        .filter(user_id=user.pk)
        .exclude(table__status=Table.Status.CLOSED)
        .first()
    )
    return None if seat is None else (seat.table, seat.position)


def tables_to_watch(*, room: Room, limit: int = 20) -> list[dict[str, Any]]:
    """The public tables of ``room`` that are open, playing ones first, newest first: each with
    its players' names (bots as such) and whether a game is being played, for the room page."""
    tables = (
        Table.objects.filter(room=room, is_private=False)
        .exclude(status=Table.Status.CLOSED)
        .prefetch_related("seats__user")
        .order_by(
            Case(When(status=Table.Status.PLAYING, then=Value(0)), default=Value(1)),
            "-created_at",
            "-pk",
        )[:limit]
    )
    rows = []
    for table in tables:
        seats = sorted(table.seats.all(), key=lambda seat: seat.position)
        rows.append(
            {
                "table": table,
                "playing": table.status == Table.Status.PLAYING,
                "players": [seat.user.get_username() for seat in seats if seat.user is not None],
                "bots": sum(1 for seat in seats if seat.is_bot),
                "free": sum(1 for seat in seats if seat.user is None and not seat.is_bot),
            }
        )
    return rows


def table_current_game(*, table: Table) -> Game | None:
    """The table's latest game: the one being played, or the last one played."""
    return table.games.order_by("-number").first()


def table_version(*, table: Table, game: Game | None = None, events: int | None = None) -> str:
    """A text that changes with every change of the table's seats or status and with every
    action stored in its current game: clients compare it to drop stale updates and actions."""
    if game is None:
        game = table_current_game(table=table)
    if game is not None and events is None:
        events = game.events.count()
    return f"{table.version}.{0 if game is None else game.pk}.{events or 0}"


@dataclasses.dataclass(frozen=True)
class TableRows:
    """The rows a table's view is made of, apart from the current game's actions: its seats,
    its current game and that game's players, and the players' balances. None of them change
    while a game is being played, so a listener may keep them from one move to the next."""

    seats: list[Seat]
    game: Game | None
    players: dict[int, GamePlayer]
    balances: dict[int, int]


def table_rows(
    *,
    table: Table,
    game: Game | None = None,
    seats: list[Seat] | None = None,
    players: dict[int, GamePlayer] | None = None,
    balances: dict[int, int] | None = None,
) -> TableRows:
    """The rows of ``table``'s view; ``game`` and ``seats`` (by position, with their users),
    when given, are its current game and its seats as just read. ``players`` (that game's, by
    seat, with their users) and ``balances`` (by user, of at least the seated players): as
    just written, by the caller that gives them with ``game`` and ``seats``."""
    if seats is None:
        seats = list(table.seats.select_related("user").order_by("position"))
    if game is None:
        game = table_current_game(table=table)
    seated = [s.user_id for s in seats if s.user_id is not None]
    if players is None:
        players = {} if game is None else {p.seat: p for p in game.players.select_related("user")}
    if balances is None:
        balances = dict(Wallet.objects.filter(user_id__in=seated).values_list("user_id", "balance"))
    else:
        balances = {user_id: balances[user_id] for user_id in seated}
    if game is not None:
        # Read after the game row: they are the ones it names, for its next moves here.
        positions.remember_rows(game=game, players=players, balances=balances)
    return TableRows(seats=seats, game=game, players=players, balances=balances)


def table_rows_during_game(*, table: Table, game: Game, seats: list[Seat]) -> TableRows:
    """``table_rows`` for the frames after a move in ``game``, which is being played; ``seats``
    are the table's seats as the move read them, with their users. The game's players and the
    balances are those this process keeps of the table (``games.positions``) when the game's
    row names them: neither changes while a game goes on (coins move when it is settled, and
    the frames after that read them anew)."""
    known = positions.known_naming(game)
    if known is not None and known.players is not None and known.balances is not None:
        return TableRows(seats=seats, game=game, players=known.players, balances=known.balances)
    return table_rows(table=table, game=game, seats=seats)
