"""Tables: seating players, bots in free seats, leaving, 再来一局 and the start of the next game.

A table waits until every seat is taken, plays a game, then waits again until every player at it
is ready for the next one. Bots take the free seats once a player has waited
``BOT_FILL_SECONDS``; a table closes when its last player leaves. Whatever seats a player or
starts a game locks the table row first; a service that also moves a player from another table
locks the user row before any table, and both tables in the order of their keys.
"""

from __future__ import annotations

import contextlib
import secrets
import uuid
from datetime import datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Wallet
from accounts.services import user_lock
from games.rules import RulesError

from ..engines import engine_for
from ..models import BotLevel, Game, Room, Seat, Table
from ..selectors import (
    table_current_game,
)

if TYPE_CHECKING:
    from accounts.models import User

from .. import decisions
from ..decisions import TABLE_CHANGE_FIELDS, AgainRead, admission_refused, table_change_planned
from ..errors import GameActionRefused, GameStartRefused, TableRefused
from .deals import NOT_READ, game_deal
from .notices import broadcast_on_commit, table_broadcast_on_commit

INVITE_CODE_BYTES = 12


def _lock_user(user: User) -> None:
    """Queue concurrent table actions of one player (a double click, two tabs)."""
    user_lock(user_id=user.pk)


def lock_tables(*table_ids: int | None) -> dict[int, Table]:
    """Lock tables in the order of their keys, so that two movers never wait for each other."""
    ids = sorted({pk for pk in table_ids if pk is not None})
    locked = (
        Table.objects.select_for_update(of=("self",))
        .select_related("room")
        .filter(pk__in=ids)
        .order_by("pk")
    )
    return {table.pk: table for table in locked}


def _seat_count(room: Room, rules: dict[str, Any] | None = None) -> int:
    return decisions.seat_count(room, rules)


def _check_admitted(*, user: User, room: Room) -> None:
    """Refuse a player whose coins lie outside the room's range, or a closed room."""
    wallet = Wallet.objects.filter(user_id=user.pk).first()
    refusal = admission_refused(room=room, balance=None if wallet is None else wallet.balance)
    if refusal is not None:
        raise refusal


#: A seat its player left: nothing of theirs (托管, timeouts) stays for the next one.
_FREED_SEAT: dict[str, Any] = {
    "user": None,
    "ready": False,
    "auto_play": False,
    "timeouts": 0,
    "leaves_after_game": False,
    "start_action": None,
}


def _current_seat(user: User) -> Seat | None:
    """The player's seat at a table that is not closed (a seat left at a closed one is freed)."""
    Seat.objects.filter(user_id=user.pk, table__status=Table.Status.CLOSED).update(**_FREED_SEAT)
    return Seat.objects.select_related("table").filter(user_id=user.pk).first()


def _game_playing(table: Table) -> bool:
    return Game.objects.filter(table=table, status=Game.Status.PLAYING).exists()


def _game_being_played_locked(table_id: int) -> Game | None:
    """The game being played at table ``table_id``, locked: before the table, in the order a
    move that ends a game takes them."""
    return (
        Game.objects.select_for_update()
        .filter(table_id=table_id, status=Game.Status.PLAYING)
        .first()
    )


def _seats_changed_during(game: Game) -> None:
    """A seat of ``game``'s table changed while it is played: a new position id, so that what
    a process keeps of the table (games.positions) is not taken for the table as it is now."""
    game.position_id = uuid.uuid4()
    game.save(update_fields=["position_id"])


def _table_changed(
    *, table: Table, kind: str, now: datetime | None = None, seats: list[Seat] | None = None
) -> str:
    """After a change of seats: close a table nobody is left at, keep ``waiting_since`` (a player
    at the table and a free seat beside them) and bump the version. ``table`` is locked;
    ``seats``, its seats as the change left them, when the caller has them.
    Returns what changed (``kind``, or ``closed``), for the caller to tell listeners."""
    if seats is None:
        seats = list(table.seats.all())
    if table_change_planned(table=table, seats=seats, now=now):
        table.seats.filter(is_bot=True).update(is_bot=False, ready=False)
        kind = "closed"
    table.save(update_fields=TABLE_CHANGE_FIELDS)  # the database checks them
    return kind


def _table_changed_then_start(
    *,
    table: Table,
    kind: str,
    now: datetime | None = None,
    seats: list[Seat] | None = None,
    last: Game | None = NOT_READ,
) -> Game | None:
    """``_table_changed``, then the next game if the table (locked) is now ready for it. One
    notice either way: the game's start tells the change too. ``seats``: the table's seats with
    their users as the change left them, and ``last``, its latest game, when the caller has
    them."""
    kind = _table_changed(table=table, kind=kind, now=now, seats=seats)
    if kind == "closed":
        seats = None  # the bots' seats were freed
    game = _table_start_if_ready(table=table, seats=seats, last=last)
    if game is None:
        known = None if last is NOT_READ else last
        table_broadcast_on_commit(table=table, kind=kind, seats=seats, last=known)
    return game


def _free_seat(*, table: Table, user: User) -> None:
    """Take ``user`` off ``table`` (locked), which must not be playing a game."""
    if table.status == Table.Status.PLAYING or _game_playing(table):
        raise TableRefused(
            "game_in_progress", _("You cannot leave while a game is being played at your table.")
        )
    table.seats.filter(user_id=user.pk).update(**_FREED_SEAT)
    table_broadcast_on_commit(table=table, kind=_table_changed(table=table, kind="left"))


def _leave_for_another_table(*, table: Table | None, user: User) -> None:
    """Before sitting elsewhere: leave the waiting table ``table`` (locked, or None)."""
    if table is None:
        return
    if table.status == Table.Status.PLAYING or _game_playing(table):
        raise TableRefused(
            "playing_elsewhere",
            _("You are playing a game at another table; finish it before you sit elsewhere."),
        )
    _free_seat(table=table, user=user)


def _sit(*, table: Table, user: User) -> int:
    """Seat ``user`` at the lowest free seat of ``table`` (locked); the table may start."""
    if table.status == Table.Status.CLOSED:
        raise TableRefused("table_closed", _("This table is closed."))
    seat = table.seats.filter(user__isnull=True, is_bot=False).order_by("position").first()
    if seat is None:
        raise TableRefused("table_full", _("This table is full."))
    seat.user = user
    seat.ready = True
    seat.full_clean()
    seat.save(update_fields=["user", "ready"])
    _table_changed_then_start(table=table, kind="seated")
    return seat.position


def _table_open(
    *,
    room: Room,
    user: User,
    private: bool,
    rules: dict[str, Any] | None = None,
    bot_level: str | None = None,
) -> Table:
    """A new table of ``room`` with a seat for each player its rules need (``rules``: the
    table's own, already checked; None: the room's; ``bot_level`` likewise)."""
    table = Table(
        room=room,
        is_private=private,
        created_by=user,
        invite_code=secrets.token_urlsafe(INVITE_CODE_BYTES) if private else None,
        rules=rules,
        bot_level=bot_level or "",
    )
    table.full_clean()
    table.save()
    Seat.objects.bulk_create(
        Seat(table=table, position=position) for position in range(_seat_count(room, rules))
    )
    return table


def table_rules_checked(*, room: Room, rules: Any) -> dict[str, Any]:
    """``rules`` (a rules object of the room's game) as the game's engine writes them: only the
    options that differ from its standard game. Raises ``TableRefused`` ("bad_rules", with the
    engine's reason) when the engine cannot play them."""
    engine = engine_for(room.game)
    try:
        return engine.options_to_json(engine.options_from_json(rules))
    except (RulesError, TypeError, ValueError) as exc:
        raise TableRefused(
            "bad_rules", _("These rules cannot be played: %(error)s") % {"error": exc}
        ) from exc


def _table_start_if_ready(
    *, table: Table, seats: list[Seat] | None = None, last: Game | None = NOT_READ
) -> Game | None:
    """Start the next game at ``table`` (locked) when every seat is taken, every player at it is
    ready and no game is being played; otherwise do nothing and return None. ``seats``: the
    table's seats with their users, by position, and ``last``, its latest game, when the caller
    has them."""
    if table.status != Table.Status.WAITING:
        return None
    if seats is None:
        seats = list(table.seats.select_related("user").order_by("position"))
    if not decisions.ready_to_deal(table=table, seats=seats, playing=False):
        return None
    if last is NOT_READ:
        if _game_playing(table):
            return None
    elif last is not None and last.status == Game.Status.PLAYING:
        return None
    for seat in seats:
        seat.table = table
    try:
        game = game_deal(table=table, players=[seat.user for seat in seats], last=last, seats=seats)
    except GameStartRefused as exc:
        raise TableRefused(exc.code, exc.message) from exc
    starts = {seat.position: seat.start_action for seat in seats if seat.start_action is not None}
    table.seats.filter(user__isnull=False).update(ready=False, start_action=None)
    for seat in seats:
        seat.ready = False
        seat.start_action = None
    table.waiting_since = None
    table.version += 1
    table.save(update_fields=["status", "waiting_since", "version"])  # game_deal tells it
    if starts:
        from .moves import game_act  # the moves module imports this one

        for position, action in sorted(starts.items()):
            # Checked when chosen; the room's rules changed since may refuse it: not made then.
            with contextlib.suppress(GameActionRefused), transaction.atomic():
                game_act(game=game, seat=position, action=action)
    return game


@transaction.atomic
def table_play(*, user: User, room: Room) -> tuple[Table, int]:
    """The lobby's "Play" in ``room``: the player's table and seat there.

    A player already seated at a table of the room goes back to it. Otherwise the room must be
    open and admit the player's coins; the player leaves the waiting table they sit at elsewhere
    (refused while a game is being played there) and takes the lowest free seat of the oldest
    public table of the room that is waiting for players, or opens a new public table. When the
    seat was the last free one and everyone is ready, the game starts. Raises ``TableRefused``.
    """
    _lock_user(user)
    current = _current_seat(user)
    if current is not None and current.table.room_id == room.pk:
        return current.table, current.position
    room = Room.objects.get(pk=room.pk)
    _check_admitted(user=user, room=room)
    old_id = None if current is None else current.table_id
    candidate_id = (
        Table.objects.filter(
            room=room,
            is_private=False,
            status=Table.Status.WAITING,
            seats__user__isnull=True,
            seats__is_bot=False,
        )
        .order_by("created_at", "pk")
        .values_list("pk", flat=True)
        .first()
    )
    locked = lock_tables(old_id, candidate_id)
    _leave_for_another_table(table=locked.get(old_id) if old_id else None, user=user)
    target = locked.get(candidate_id) if candidate_id else None
    if target is None or target.status != Table.Status.WAITING or target.is_private:
        target = None
    elif not target.seats.filter(user__isnull=True, is_bot=False).exists():
        target = None  # taken while we looked
    if target is None:
        target = _table_open(room=room, user=user, private=False)
    return target, _sit(table=target, user=user)


@transaction.atomic
def table_create_private(
    *,
    user: User,
    room: Room,
    rules: dict[str, Any] | None = None,
    bot_level: str | None = None,
) -> Table:
    """Open a private table in ``room`` with a fresh invite code, with its creator at seat 0.

    ``rules``: the house rules its host chose (a rules object of the room's game), which every
    game at the table plays, with as many seats as they name; None: the room's rules.
    ``bot_level``: the level of the bots the host may call to the table (``BotLevel``); None:
    the room's. The stakes stay the room's. The rules must be playable, the level one of the
    levels, the room must be open and admit the player's coins; the player leaves the waiting
    table they sit at (refused while a game is being played there). Raises ``TableRefused``,
    having changed nothing.
    """
    _lock_user(user)
    room = Room.objects.get(pk=room.pk)
    if rules is not None:
        rules = table_rules_checked(room=room, rules=rules)
    if bot_level is not None and bot_level not in BotLevel.values:
        raise TableRefused(
            "bad_bot_level",
            _("There is no bot level %(level)s.") % {"level": repr(bot_level)},
        )
    _check_admitted(user=user, room=room)
    current = _current_seat(user)
    if current is not None:
        locked = lock_tables(current.table_id)
        _leave_for_another_table(table=locked[current.table_id], user=user)
    table = _table_open(room=room, user=user, private=True, rules=rules, bot_level=bot_level)
    _sit(table=table, user=user)
    return table


@transaction.atomic
def table_join_by_invite(*, user: User, code: str) -> tuple[Table, int]:
    """Sit at the private table whose invite code is ``code``: its lowest free seat.

    A player already at that table keeps their seat. Otherwise the table must be open and have a
    free seat, its room must admit the player's coins, and the player leaves the waiting table
    they sit at elsewhere. Raises ``TableRefused``.
    """
    _lock_user(user)
    table_id = (
        Table.objects.filter(invite_code=code).values_list("pk", flat=True).first()
        if isinstance(code, str) and code
        else None
    )
    if table_id is None:
        raise TableRefused("bad_invite", _("There is no table with this invitation."))
    current = _current_seat(user)
    if current is not None and current.table_id == table_id:
        return current.table, current.position
    old_id = None if current is None else current.table_id
    locked = lock_tables(old_id, table_id)
    target = locked[table_id]
    if target.status == Table.Status.CLOSED:
        raise TableRefused("table_closed", _("This table is closed."))
    _check_admitted(user=user, room=target.room)
    if not target.seats.filter(user__isnull=True, is_bot=False).exists():
        raise TableRefused("table_full", _("This table is full."))
    _leave_for_another_table(table=locked.get(old_id) if old_id else None, user=user)
    return target, _sit(table=target, user=user)


class Leave(StrEnum):
    """What ``table_leave`` did: the seat was freed now, or will be when the game ends."""

    NOW = "now"
    AFTER_GAME = "after_game"


@transaction.atomic
def table_leave(*, user: User, table: Table) -> Leave:
    """Leave ``table``: between games the seat is freed now, and a table with no player left
    closes; while a game is being played the player leaves when it ends (``Leave.AFTER_GAME``:
    they play on, or 托管 does, until then, and are not asked for 再来一局).

    Raises ``TableRefused`` when the player does not sit there.
    """
    _lock_user(user)
    playing = _game_being_played_locked(table.pk)
    locked = lock_tables(table.pk)[table.pk]
    seat = locked.seats.filter(user_id=user.pk).first()
    if seat is None:
        raise TableRefused("not_seated", _("You are not sitting at this table."))
    playing = playing or _game_being_played_locked(table.pk)  # dealt while this waited
    if locked.status == Table.Status.PLAYING or playing is not None:
        if not seat.leaves_after_game:
            seat.leaves_after_game = True
            seat.save(update_fields=["leaves_after_game"])
            if playing is not None:
                _seats_changed_during(playing)
            broadcast_on_commit(table_id=locked.pk, message={"kind": "seats"})
        return Leave.AFTER_GAME
    _free_seat(table=locked, user=user)
    table.status, table.version = locked.status, locked.version
    return Leave.NOW


@transaction.atomic
def table_leave_cancel(*, user: User, table: Table) -> None:
    """Stay at ``table`` after all: undo ``table_leave``'s leaving after the game. Asking when
    it is not planned changes nothing. Raises ``TableRefused`` when the player does not sit
    there."""
    playing = _game_being_played_locked(table.pk)
    lock_tables(table.pk)
    seat = Seat.objects.filter(table_id=table.pk, user_id=user.pk).first()
    if seat is None:
        raise TableRefused("not_seated", _("You are not sitting at this table."))
    if seat.leaves_after_game:
        seat.leaves_after_game = False
        seat.save(update_fields=["leaves_after_game"])
        if playing is not None:
            _seats_changed_during(playing)
        broadcast_on_commit(table_id=table.pk, message={"kind": "seats"})


def leave_after_game(*, table_id: int) -> Table | None:
    """Free the seats of the players of ``table_id`` who asked to leave once its game ended
    (called as it ends): the next game does not wait for them, and a table with no player left
    closes. Returns the table, locked, when no seat was freed (its seats are then as the game's
    last move left them); None when one was."""
    locked = lock_tables(table_id)[table_id]
    if locked.seats.filter(user__isnull=False, leaves_after_game=True).update(**_FREED_SEAT):
        table_broadcast_on_commit(table=locked, kind=_table_changed(table=locked, kind="left"))
        return None
    return locked


@transaction.atomic
def table_fill_with_bots(*, table: Table, now: datetime | None = None) -> int:
    """Seat a bot in every free seat once a player has waited ``BOT_FILL_SECONDS`` at ``table``.

    Only a public waiting table with at least one player and a free seat since
    ``waiting_since`` at least that long before ``now`` (default: the current time) gets bots:
    a private table waits for the friends it invited until a player there calls bots in
    (``table_call_bots``). Returns how many bots sat down; the game then starts when everyone
    is ready.
    """
    now = now or timezone.now()
    locked = lock_tables(table.pk)[table.pk]
    if locked.is_private or locked.status != Table.Status.WAITING or locked.waiting_since is None:
        return 0
    if now - locked.waiting_since < timedelta(seconds=settings.BOT_FILL_SECONDS):
        return 0
    filled = _seat_bots(table=locked, now=now)
    table.status, table.version = locked.status, locked.version
    return filled


@transaction.atomic
def table_call_bots(*, user: User, table: Table) -> int:
    """A player seated at the waiting ``table`` fills its free seats with bots now.

    Returns how many bots sat down (the game starts when everyone is ready). Raises
    ``TableRefused`` for a player who does not sit there or while a game is being played.
    """
    locked = lock_tables(table.pk)[table.pk]
    if not locked.seats.filter(user_id=user.pk).exists():
        raise TableRefused("not_seated", _("You are not sitting at this table."))
    if locked.status != Table.Status.WAITING or _game_playing(locked):
        raise TableRefused("game_in_progress", _("A game is still being played here."))
    filled = _seat_bots(table=locked, now=timezone.now())
    table.status, table.version = locked.status, locked.version
    return filled


def _seat_bots(*, table: Table, now: datetime) -> int:
    """Bots in every free seat of ``table`` (locked, waiting), if a player sits there."""
    if not table.seats.filter(user__isnull=False).exists():
        return 0
    filled = table.seats.filter(user__isnull=True, is_bot=False).update(is_bot=True, ready=True)
    if filled:
        _table_changed_then_start(table=table, kind="bots", now=now)
    return filled


@transaction.atomic
def table_stand_up_not_ready(*, table: Table, now: datetime | None = None) -> int:
    """Free the seats of the players at ``table`` who have not pressed 再来一局 within
    ``READY_SECONDS`` of the end of its last game by ``now`` (default: the current time), so
    that a player who walked away does not hold up the others: bots or other players take the
    seats (and a table nobody is left at closes). Returns how many players were stood up.
    """
    now = now or timezone.now()
    locked = lock_tables(table.pk)[table.pk]
    if locked.status != Table.Status.WAITING:
        return 0
    last = table_current_game(table=locked)
    if last is None or last.finished_at is None or last.status == Game.Status.PLAYING:
        return 0
    if now - last.finished_at < timedelta(seconds=settings.READY_SECONDS):
        return 0
    stood = locked.seats.filter(user__isnull=False, ready=False).update(**_FREED_SEAT)
    if stood:
        _table_changed_then_start(table=locked, kind="left", now=now, last=last)
    table.status, table.version = locked.status, locked.version
    return stood


@transaction.atomic
def table_start_game(*, table: Table) -> Game | None:
    """Start the next game at ``table`` when every seat is taken, every player at it is ready
    (bots always are) and no game is being played; otherwise return None.

    The players go to ``game_start`` by seat (None for a bot), so the winner of the last game
    deals. Seating and ``table_play_again`` call this themselves.
    """
    locked = lock_tables(table.pk)[table.pk]
    game = _table_start_if_ready(table=locked)
    table.status, table.version = locked.status, locked.version
    return game


@transaction.atomic
def table_play_again(
    *, user: User, table: Table, start: dict[str, Any] | None = None
) -> Game | None:
    """Mark ``user`` ready for the next game at ``table``; returns the game when it starts.
    ``start``: one of the game's start actions (明牌开始, JSON), made once the game is dealt.

    The next game starts as soon as every player at the table is ready and every seat is taken.
    Refused while a game is being played, at a closed table, for a player who does not sit there,
    or when the room no longer admits the player's coins (they may leave the table). Raises
    ``TableRefused``.
    """
    locked = lock_tables(table.pk)[table.pk]
    seats = list(locked.seats.select_related("user").order_by("position"))
    # At most one game is being played at a table, its latest: the frames show it after this.
    last = table_current_game(table=locked)
    wallet = Wallet.objects.filter(user_id=user.pk).first()
    plan = decisions.again(
        AgainRead(
            table=locked,
            seats=seats,
            last=last,
            balance=None if wallet is None else wallet.balance,
        ),
        user_id=user.pk,
        start=start,
    )
    game = None
    if plan.seat is not None:
        plan.seat.save(update_fields=list(plan.fields))
        seats = [plan.seat if row.pk == plan.seat.pk else row for row in seats]
        game = _table_changed_then_start(table=locked, kind="ready", seats=seats, last=last)
    table.status, table.version = locked.status, locked.version
    return game
