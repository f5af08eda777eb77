"""Turn clocks and 托管: when the server acts for a seat, and a player's switch to auto-play.

Every turn has a deadline, kept on the game row: a bot's short pause, or the time the room gives
a player (``Room.turn_seconds``); a player in 托管 gets a bot's pause. When it passes, the runner
acts for the seat (``moves.game_turn_due``, as ``decisions.due_move`` decides).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.rules import Phase

from ..models import Game, Room, Seat, Table
from ..selectors import game_state

if TYPE_CHECKING:
    from accounts.models import User

from ..decisions import plays_as_bot, turn_deadline_for
from ..errors import TableRefused
from .notices import broadcast_on_commit


def turn_deadline(
    *,
    game: Game,
    seat: int | None,
    now: datetime,
    seats: list[Seat] | None = None,
    phase: Phase = Phase.PLAY,
) -> datetime | None:
    """When the server acts if ``seat`` has not moved in ``game`` in ``phase`` (None when no
    one is to move), by ``decisions.turn_deadline_for``. ``seats``: the table's seats with the
    table and its room, when the caller has them; otherwise the seat is read."""
    if seat is None:
        return None
    known = next((row for row in seats or () if row.position == seat), None)
    if known is not None:
        row: Mapping[str, Any] | None = {
            "is_bot": known.is_bot,
            "auto_play": known.auto_play,
            "user_id": known.user_id,
            "table__room__turn_seconds": known.table.room.turn_seconds,
        }
    else:
        row = (
            Seat.objects.filter(table_id=game.table_id, position=seat)
            .values("is_bot", "auto_play", "user_id", "table__room__turn_seconds")
            .first()
        )
    is_bot = plays_as_bot(
        seat_is_bot=None if row is None else row["is_bot"],
        seat_user_id=None if row is None else row["user_id"],
        player_is_bot=lambda: game.players.filter(seat=seat, is_bot=True).exists(),
    )
    seconds = (
        row["table__room__turn_seconds"]
        if row is not None
        else Room.objects.filter(tables=game.table_id).values_list("turn_seconds", flat=True)[0]
    )
    return turn_deadline_for(
        is_bot=is_bot,
        auto_play=row is not None and row["auto_play"],
        turn_seconds=seconds,
        now=now,
        phase=phase,
    )


@transaction.atomic
def table_set_auto_play(*, user: User, table: Table, on: bool) -> None:
    """Put the player's seat at ``table`` in 托管 (``on``) or take it back.

    Taking it back also forgets the timeouts in a row. When it is the player's turn, 托管 brings
    the deadline forward to a bot's pause; taking the seat back gives the turn the room's time
    counted from the turn's start, never more, so switching back and forth cannot hold up the
    table. Asking for what already holds changes nothing. Raises ``TableRefused`` for a player
    who does not sit there.
    """
    # The game row first, then the seat: the order the runner takes them in, so that a switch
    # at the moment the turn's deadline fires waits instead of deadlocking with it.
    game = (
        Game.objects.select_for_update()
        .filter(table_id=table.pk, status=Game.Status.PLAYING)
        .first()
    )
    row = Seat.objects.select_for_update().filter(table_id=table.pk, user_id=user.pk).first()
    if row is None:
        raise TableRefused("not_seated", _("You are not sitting at this table."))
    if row.auto_play == on:
        return
    row.auto_play = on
    row.timeouts = 0
    row.save(update_fields=["auto_play", "timeouts"])
    if game is not None:
        # A seat changed during the game: a new position id, so that what a process keeps of
        # the table (games.positions) is not taken for the table as it is now.
        game.position_id = uuid.uuid4()
        fields = ["position_id"]
        phase = game_state(game=game).phase if game.to_move == row.position else None
        if phase is not None and phase is not Phase.DEAL:  # the deal's stages keep their times
            now = timezone.now()
            start = game.turn_started_at or now
            deadline = turn_deadline(
                game=game, seat=row.position, now=now if on else start, phase=phase
            )
            if on and game.turn_deadline is not None and deadline is not None:
                deadline = min(deadline, game.turn_deadline)
            game.turn_deadline = deadline
            fields.append("turn_deadline")
        game.save(update_fields=fields)
    broadcast_on_commit(table_id=table.pk, message={"kind": "seats"})
