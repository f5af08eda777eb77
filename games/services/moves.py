"""Moves: a player's play or pass, a bot's turn, 托管 and a timeout, decided by
``games.decisions`` from the rows read here under the game's lock, and written here through the
ORM with the event that records them. The end of a game is settled in the same transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from .. import decisions
from ..decisions import GameRead, MovePlan
from ..errors import GameActionRefused
from ..models import Game, GameEvent, Seat, Table
from ..selectors import game_position_remember, game_state, table_rows_during_game
from . import notices
from .notices import broadcast_on_commit
from .settlement import game_settle
from .tables import leave_after_game

if TYPE_CHECKING:
    from accounts.models import User

BOT_TURNS_LIMIT = 200


def _game_locked(**filters: Any) -> Game | None:
    """The game row that ``filters`` find, locked, with its table and room."""
    return (
        Game.objects.select_for_update(of=("self",))
        .select_related("table__room")
        .filter(**filters)
        .first()
    )


def game_read(*, game: Game, lock_seats: bool = False) -> GameRead:
    """What a move in ``game`` (locked, with its table and room) decides from: the table's
    seats with their players (``lock_seats``: locked too, for a move that may change one), the
    game's players and balances, and its position."""
    seats_query = Seat.objects.select_related("user").filter(table_id=game.table_id)
    if lock_seats:
        seats_query = seats_query.select_for_update(of=("self",))
    seats = list(seats_query.order_by("position"))
    for row in seats:
        row.table = game.table
    state = game_state(game=game)
    rows = table_rows_during_game(table=game.table, game=game, seats=seats)
    return GameRead(
        game=game, seats=seats, players=rows.players, balances=rows.balances, state=state
    )


def move_write(
    plan: MovePlan, read: GameRead, *, caller: Game | None = None, frames_from_rows: bool = False
) -> GameEvent:
    """Write what ``plan`` decided: the event, the game row, the seats it changed; when the
    game ends, the table's status, the settlement and the seats of players who asked to leave.
    The table hears of it once committed, with the players' frames rendered from the rows in
    hand when ``frames_from_rows``. ``caller``: the caller's copy of the game row, brought up
    to date."""
    game, event = plan.game, plan.event
    event.save(force_insert=True)
    game.save(update_fields=list(plan.fields))
    for seat, fields in plan.seats:
        seat.save(update_fields=list(fields))
    ended_at: Table | None = None
    if plan.ends:
        Table.objects.filter(pk=game.table_id, status=Table.Status.PLAYING).update(
            status=Table.Status.WAITING
        )
        settled = game_settle(game=game, state=plan.after)
        ended_at = leave_after_game(table_id=game.table_id)
    if caller is not None:
        for field in (
            "status",
            "winner",
            "finished_at",
            "result",
            "settled_at",
            "to_move",
            "turn_started_at",
            "turn_deadline",
        ):
            setattr(caller, field, getattr(game, field))
    rows = plan.rows_after(read)
    if plan.ends:
        # Settled, and its leavers' seats freed: only the position is known as it ends.
        game_position_remember(game=game, state=plan.after, event=event)
    else:
        game_position_remember(
            game=game,
            state=plan.after,
            event=event,
            table=game.table,
            seats=rows.seats,
            players=rows.players,
            balances=rows.balances,
        )
    frames: Callable[[], dict[str, Any]] | None = None
    if frames_from_rows and plan.kind == "action":

        def frames_after_move() -> dict[str, Any]:
            from ..frames import render_player_frames  # presentation: only after a commit

            return render_player_frames(table=game.table, rows=rows, state=plan.after)

        frames = frames_after_move
    elif ended_at is not None:
        # The table, locked as the game ended, and its seats are as this move left them; the
        # players' rows and balances as the settlement wrote them (read anew if it wrote none).
        written = bool(settled.players) and all(
            seat.user_id in settled.balances for seat in rows.seats if seat.user_id is not None
        )
        frames = notices.frames_from_rows(
            table=ended_at,
            seats=rows.seats,
            last=game,
            players=settled.players if written else None,
            balances=settled.balances if written else None,
        )

    broadcast_on_commit(
        table_id=game.table_id,
        message={"kind": plan.kind, "game": game.pk, "number": event.number},
        frames=frames,
    )
    return event


@transaction.atomic
def game_act(*, game: Game, seat: int, action: dict[str, Any]) -> GameEvent:
    """Make ``seat``'s action in ``game``: ``{"play": "5s 6h BJ", "as": "4 5 6"}`` or
    ``{"pass": true}`` (``as`` is optional).

    The game row is locked and the position rebuilt from the stored events, so concurrent
    actions queue and each is checked against the position the previous one left. The action is
    stored in canonical form, numbered next. When it ends the game, the game is marked finished
    and settled in the same transaction. Raises ``GameActionRefused`` (nothing written) for an
    action out of turn, an illegal one, one that is badly written, or one after the end.
    """
    locked = _game_locked(pk=game.pk)
    assert locked is not None
    if locked.status != Game.Status.PLAYING:
        raise GameActionRefused("game_over", "the game is over: no more actions")
    read = game_read(game=locked)
    plan = decisions.seat_move(read, seat=seat, action=action, now=timezone.now())
    return move_write(plan, read, caller=game)


def table_game_act(
    *,
    user: User,
    table: Table,
    action: dict[str, Any],
    version: str | None,
    action_id: str = "",
) -> GameEvent:
    """A seated player's action in the game being played at ``table``, chosen on the table's
    ``version`` (``decisions.player_move`` says what is refused and why). The game row is locked
    first, so the version cannot change while it is compared. ``action_id`` is the id the client
    gave the action: an id already stored in this game is refused as ``duplicate`` (rather than
    as stale or out of turn, so a resend is told it was applied, not that it came late).
    Raises ``GameActionRefused``.
    """
    try:
        return _table_game_act(
            user=user, table=table, action=action, version=version, action_id=action_id
        )
    except GameActionRefused as refused:
        # A resend of a made action comes late (the version moved on) or out of turn: the id
        # says what happened, and it is looked up only then.
        if action_id and refused.code != "duplicate" and _action_made(table, action_id):
            raise GameActionRefused("duplicate", "this action was applied already") from None
        raise
    except IntegrityError:
        # The database's unique action id per game: a copy of a made action that came with the
        # current version and is legal (only a forged one can).
        if action_id and _action_made(table, action_id):
            raise GameActionRefused("duplicate", "this action was applied already") from None
        raise


def _action_made(table: Table, action_id: str) -> bool:
    return GameEvent.objects.filter(
        game__table_id=table.pk, game__status=Game.Status.PLAYING, action_id=action_id
    ).exists()


@transaction.atomic
def _table_game_act(
    *, user: User, table: Table, action: dict[str, Any], version: str | None, action_id: str
) -> GameEvent:
    # The game being played at the table, locked first: a 托管 switch takes the same lock
    # before it changes a seat, so the seats read next are as this move must see them.
    game = _game_locked(table_id=table.pk, status=Game.Status.PLAYING)
    if game is None:
        seated = Seat.objects.filter(table_id=table.pk, user_id=user.pk).exists()
        raise decisions.no_game_refusal(seated=seated)
    read = game_read(game=game)
    plan = decisions.player_move(
        read,
        user_id=user.pk,
        action=action,
        version=version,
        action_id=action_id,
        now=timezone.now(),
    )
    return move_write(plan, read, frames_from_rows=True)


@transaction.atomic
def bot_take_turn(*, game: Game) -> GameEvent | None:
    """Make the move of the bot to move in ``game`` now, if the player to move is a bot.

    The bot chooses from its own seat's view of the position only (``games.bots``), and its move
    goes through the same checks as anyone's and is stored the same way. The runner moves bots
    when their turn's deadline comes (``game_turn_due``); this is for tools and tests that move
    them at once. Returns the event, or None when the game is over or a person is to move.
    """
    locked = _game_locked(pk=game.pk)
    if locked is None or locked.status != Game.Status.PLAYING:
        return None
    read = game_read(game=locked)
    plan = decisions.bot_move(read, now=timezone.now())
    return None if plan is None else move_write(plan, read, caller=game)


def bot_take_turns(*, game: Game, limit: int = BOT_TURNS_LIMIT) -> list[GameEvent]:
    """Let bots move while one of them is to move, at most ``limit`` times; each move is its own
    transaction. Returns the events, in order. The caller adds any pause between them."""
    events: list[GameEvent] = []
    while len(events) < limit:
        event = bot_take_turn(game=game)
        if event is None:
            break
        events.append(event)
    return events


def game_turn_due(*, game: Game, now: datetime | None = None) -> GameEvent | None:
    """Act for the seat to move in ``game`` if its deadline has passed by ``now``
    (``decisions.due_move`` says how). The game row is locked (rows another runner holds are
    skipped) and the deadline checked under the lock, so a deadline fires once however many
    runners look at it. A bot's choice is made before the lock is taken (``_think_ahead``).
    Returns the event, or None when nothing was due.
    """
    now = now or timezone.now()
    _think_ahead(game=game, now=now)
    return _game_turn_due_locked(game=game, now=now)


def _think_ahead(*, game: Game, now: datetime) -> None:
    """Decide the due turn once without locks, so that a bot's choice (a tenth of a second for
    a search, in a thinking process) is made while nothing is locked: on SQLite a lock is the
    whole database's. The plan is dropped; the decision under the lock finds the choice
    remembered (``thinking.choose``) for the same position, and makes it again if it changed."""
    fresh = (
        Game.objects.select_related("table__room")
        .filter(pk=game.pk, status=Game.Status.PLAYING)
        .first()
    )
    if fresh is None or fresh.turn_deadline is None or fresh.turn_deadline > now:
        return
    read = game_read(game=fresh)
    # Unlocked, the events can already hold a move the game row read before them does not: no
    # plan then; the decision under the lock reads both again.
    if read.state.to_move == fresh.to_move:
        decisions.due_move(read, now=now)


@transaction.atomic
def _game_turn_due_locked(*, game: Game, now: datetime) -> GameEvent | None:
    locked = (
        Game.objects.select_for_update(of=("self",), skip_locked=True)
        .select_related("table__room")
        .filter(pk=game.pk, status=Game.Status.PLAYING)
        .first()
    )
    if locked is None or locked.turn_deadline is None or locked.turn_deadline > now:
        return None
    read = game_read(game=locked, lock_seats=True)
    plan = decisions.due_move(read, now=now)
    return None if plan is None else move_write(plan, read, caller=game)
