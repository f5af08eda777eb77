"""Moves: a player's play or pass, a bot's turn, 托管 and a timeout, each checked by the
engine against the stored position and written with the event that records it.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import uuid
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from games.bots import SensiblePolicy, choose_for
from games.rules import (
    GameState,
    IllegalMoveError,
    NotationError,
    Play,
)
from games.rules.moves import move_from_json
from games.rules.records import Action

from ..models import Game, GameEvent, Seat, Table
from ..prepared import PreparedSelect, insert_row, update_row
from ..selectors import (
    TableRows,
    game_position_remember,
    game_state,
    play_meanings,
    table_rows_during_game,
    table_version,
)

if TYPE_CHECKING:
    from accounts.models import User

from .clocks import AUTO_PLAY_AFTER_TIMEOUTS, timeout_move, turn_deadline
from .errors import GameActionRefused
from .notices import broadcast_on_commit
from .settlement import game_settle
from .tables import leave_after_game


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
    locked = Game.objects.select_for_update().get(pk=game.pk)
    if locked.status != Game.Status.PLAYING:
        raise GameActionRefused("game_over", "the game is over: no more actions")
    return act_locked(
        game=game, locked=locked, state=game_state(game=locked), seat=seat, action=action
    )


def move_planned(
    *,
    locked: Game,
    state: GameState,
    seat: int,
    action: dict[str, Any],
    source: str = GameEvent.Source.PLAYER,
    action_id: str = "",
    rows: TableRows | None = None,
) -> tuple[GameEvent, GameState, list[str]]:
    """The checks and the rows of ``seat``'s ``action`` in the game being played whose row
    ``locked`` is locked, at position ``state``: the event to store (not stored yet), the position
    after it, and the fields of ``locked`` it changed (set on ``locked``, not written yet).
    Raises ``GameActionRefused``. ``rows``: as for ``act_locked``."""
    if not isinstance(action, dict) or set(action) - {"play", "pass", "as"}:
        raise GameActionRefused(
            "bad_action", 'an action is {"play": "cards", "as": "ranks"} or {"pass": true}'
        )
    try:
        move = move_from_json(action)
    except NotationError as exc:
        raise GameActionRefused("bad_action", str(exc)) from exc
    if type(seat) is not int or seat != state.to_move:
        raise GameActionRefused(
            "not_your_turn", f"seat {seat} acted, but it is seat {state.to_move}'s turn"
        )
    try:
        resolved = state.resolve(move)
        after = state.apply(resolved)
    except IllegalMoveError as exc:
        raise GameActionRefused(exc.code, exc.message) from exc

    stored = Action(seat, resolved).to_json()
    del stored["seat"]
    # Every field is computed here, and the database's unique (game, number) constraint guards
    # the numbering, so the event skips full_clean's queries on this hot path.
    event = GameEvent(
        game=locked,
        number=state.log_length + 1,
        seat=seat,
        action=stored,
        source=source,
        action_id=action_id,
    )
    now = timezone.now()
    locked.position_id = uuid.uuid4()
    locked.to_move = after.to_move
    locked.turn_started_at = None if after.is_terminal else now
    locked.turn_deadline = (
        None
        if after.is_terminal
        else turn_deadline(
            game=locked, seat=after.to_move, now=now, seats=None if rows is None else rows.seats
        )
    )
    fields = ["position_id", "to_move", "turn_started_at", "turn_deadline"]
    if after.is_terminal:
        locked.status = Game.Status.FINISHED
        locked.winner = after.winner
        locked.finished_at = timezone.now()
        fields += ["status", "winner", "finished_at"]
    return event, after, fields


def act_locked(
    *,
    game: Game,
    locked: Game,
    state: GameState,
    seat: int,
    action: dict[str, Any],
    source: str = GameEvent.Source.PLAYER,
    kind: str = "action",
    action_id: str = "",
    rows: TableRows | None = None,
) -> GameEvent:
    """``game_act`` on the locked row of a game being played and its current position.

    ``source`` says who made the move (the player, a bot, the server when time ran out, or
    托管); ``kind`` is what listeners hear when the game goes on (``action``, or ``seats`` when
    a seat's state changed with the move, so that they read the seats again). ``rows``, when
    the caller has read them in this transaction: the table's rows (``table_rows_during_game``),
    whose seats come with their users and the table with its room."""
    event, after, fields = move_planned(
        locked=locked,
        state=state,
        seat=seat,
        action=action,
        source=source,
        action_id=action_id,
        rows=rows,
    )
    insert_row(event)
    update_row(locked, fields)

    if after.is_terminal:
        Table.objects.filter(pk=locked.table_id, status=Table.Status.PLAYING).update(
            status=Table.Status.WAITING
        )
        game_settle(game=locked)
        leave_after_game(table_id=locked.table_id)
    game.status, game.winner, game.finished_at = locked.status, locked.winner, locked.finished_at
    game.result, game.settled_at = locked.result, locked.settled_at
    game.to_move, game.turn_started_at = locked.to_move, locked.turn_started_at
    game.turn_deadline = locked.turn_deadline
    # Not the position id: the caller's row names the position before this move until it is
    # read again after the commit, so a rollback cannot leave it naming an undone position.
    game_position_remember(game=locked, state=after, event=event)
    frames = None
    if kind == "action" and not after.is_terminal and rows is not None:
        frames = functools.partial(
            _frames_after_move, rows=rows_with_game(rows, locked), state=after
        )
    broadcast_on_commit(
        table_id=locked.table_id,
        message={
            "kind": "finished" if after.is_terminal else kind,
            "game": locked.pk,
            "number": event.number,
        },
        frames=frames,
    )
    return event


def rows_with_game(rows: TableRows, game: Game) -> TableRows:
    """``rows`` with a copy of ``game``'s row as it is now, for the frames after a move: later
    moves of the same transaction change the row itself."""
    return dataclasses.replace(rows, game=copy.copy(game))


def _frames_after_move(*, rows: TableRows, state: GameState) -> dict[str, Any]:
    from ..frames import render_player_frames  # presentation: needed only after a commit

    return render_player_frames(table=rows.seats[0].table, rows=rows, state=state)


def table_game_act(
    *,
    user: User,
    table: Table,
    action: dict[str, Any],
    version: str | None,
    action_id: str = "",
) -> GameEvent:
    """A seated player's action in the game being played at ``table``.

    ``version`` is the table's version (``table_version``) the player saw when choosing: an
    action chosen on an older view (a double click, a resend after a reconnect, a click that
    crossed another player's move) is refused as ``stale``. Then ``game_act`` checks the action
    itself. The game row is locked first, so the version cannot change while it is compared.
    ``action_id`` is the id the client gave the action: an id already stored in this game is
    refused as ``duplicate`` (rather than as stale or out of turn, so a resend is told it was
    applied, not that it came late). Raises ``GameActionRefused``: ``not_seated``, ``no_game``,
    ``duplicate``, ``stale`` or the engine's code.
    """
    try:
        return _table_game_act(
            user=user, table=table, action=action, version=version, action_id=action_id
        )
    except IntegrityError:
        # The database's unique action id per game: a copy of a made action that came with the
        # current version and is legal (only a forged one can).
        if action_id and _action_made(table=table, action_id=action_id):
            raise GameActionRefused("duplicate", "this action was applied already") from None
        raise


def _action_made(*, table: Table, action_id: str) -> bool:
    return GameEvent.objects.filter(
        game__table_id=table.pk, game__status=Game.Status.PLAYING, action_id=action_id
    ).exists()


#: The statements every move runs, built once (games.prepared). One game at most is being
#: played at a table, so the lock needs no ORDER BY.
game_playing_locked = PreparedSelect(
    lambda table_id: (
        Game.objects.select_for_update(of=("self",))
        .select_related("table__room")
        .filter(table_id=table_id, status=Game.Status.PLAYING)[:1]
    ),
    "table_id",
)

table_seats = PreparedSelect(
    lambda table_id: (
        Seat.objects.select_related("user").filter(table_id=table_id).order_by("position")
    ),
    "table_id",
)


@transaction.atomic
def _table_game_act(
    *,
    user: User,
    table: Table,
    action: dict[str, Any],
    version: str | None,
    action_id: str,
) -> GameEvent:
    # The game being played at the table, locked first: a 托管 switch takes the same lock
    # before it changes a seat, so the seats read next are as this move must see them.
    # With it, the table (its version) and its room; then every seat with its player. The
    # game's players and their balances as the process keeps them while the game goes on. The
    # deadline of the next turn and the frames after the commit need them all.
    game = next(iter(game_playing_locked(table_id=table.pk)), None)
    if game is None:
        if not Seat.objects.filter(table_id=table.pk, user_id=user.pk).exists():
            raise GameActionRefused("not_seated", "you do not sit at this table")
        raise GameActionRefused("no_game", "no game is being played at this table")
    seats = table_seats(table_id=table.pk)
    for row in seats:
        row.table = game.table
    rows = table_rows_during_game(table=game.table, game=game, seats=seats)
    seat = move_seat(user=user, rows=rows)
    state = game_state(game=game)
    try:
        move_still_current(game=game, seat=seat, state=state, version=version, action=action)
        event = act_locked(
            game=game,
            locked=game,
            state=state,
            seat=seat.position,
            action=action,
            action_id=action_id,
            rows=rows,
        )
    except GameActionRefused:
        # A resend of a made action comes late (the version moved on) or out of turn: the id
        # says what happened, and it is looked up only then.
        if action_id and _action_made(table=table, action_id=action_id):
            raise GameActionRefused("duplicate", "this action was applied already") from None
        raise
    if seat.timeouts:
        Seat.objects.filter(pk=seat.pk).update(timeouts=0)
    return event


def move_seat(*, user: User, rows: TableRows) -> Seat:
    """The seat ``user`` plays at in the game being played at the table of ``rows``
    (``table_rows_during_game``); ``GameActionRefused`` (``not_seated``) if none."""
    seat = next((row for row in rows.seats if row.user_id == user.pk), None)
    if seat is None:
        raise GameActionRefused("not_seated", "you do not sit at this table")
    player = rows.players.get(seat.position)
    if player is None or player.user_id != user.pk:
        raise GameActionRefused("not_seated", "you do not play in this game")
    return seat


def move_still_current(
    *, game: Game, seat: Seat, state: GameState, version: str | None, action: dict[str, Any]
) -> None:
    """Refuse an action chosen on an older view of the table (``stale``: ``version`` is not the
    table's version at position ``state`` of ``game``), and a play that does not say which of
    its meanings it is (``choose_meaning``)."""
    current = table_version(table=seat.table, game=game, events=state.log_length)
    if not isinstance(version, str) or version != current:
        raise GameActionRefused("stale", "the table changed since this action was chosen")
    if isinstance(action, dict) and "play" in action and action.get("as") is None:
        _check_one_meaning(state=state, seat=seat.position, action=action)


def _check_one_meaning(*, state: GameState, seat: int, action: dict[str, Any]) -> None:
    """Refuse a play whose cards can mean more than one legal combination (a joker in it) and
    that does not say which, with the meanings to choose from."""
    try:
        move = move_from_json(action)
    except NotationError:
        return  # act_locked refuses it with the reason
    if not isinstance(move, Play) or state.to_move != seat:
        return
    meanings = play_meanings(state, move)
    if len(meanings) > 1:
        raise GameActionRefused(
            "choose_meaning", "these cards can be played in more than one way", meanings
        )


BOT_TURNS_LIMIT = 200


@transaction.atomic
def bot_take_turn(*, game: Game) -> GameEvent | None:
    """Make the move of the bot to move in ``game`` now, if the player to move is a bot.

    The bot chooses from its own seat's view of the position only (``games.bots``), and its move
    goes through the same checks as anyone's and is stored the same way. The runner moves bots
    when their turn's deadline comes (``game_turn_due``); this is for tools and tests that move
    them at once. Returns the event, or None when the game is over or a person is to move.
    """
    locked = Game.objects.select_for_update().get(pk=game.pk)
    if locked.status != Game.Status.PLAYING:
        return None
    seat = locked.to_move
    if seat is None or not locked.players.filter(seat=seat, is_bot=True).exists():
        return None
    state = game_state(game=locked)
    move = choose_for(state, SensiblePolicy())
    return act_locked(
        game=game,
        locked=locked,
        state=state,
        seat=seat,
        action=dict(move.to_json()),
        source=GameEvent.Source.BOT,
    )


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


@transaction.atomic
def game_turn_due(*, game: Game, now: datetime | None = None) -> GameEvent | None:
    """Act for the seat to move in ``game`` if its deadline has passed by ``now``.

    A bot moves; a player in 托管 is played for by the same bot; a player whose time ran out
    passes (or, leading, plays the smallest lead), and after ``AUTO_PLAY_AFTER_TIMEOUTS`` such
    turns in a row the seat goes to 托管. The game row is locked (rows another runner holds are
    skipped) and the deadline checked under the lock, so a deadline fires once however many
    runners look at it. Returns the event, or None when nothing was due.
    """
    now = now or timezone.now()
    locked = (
        Game.objects.select_for_update(skip_locked=True)
        .filter(pk=game.pk, status=Game.Status.PLAYING)
        .first()
    )
    if locked is None or locked.turn_deadline is None or locked.turn_deadline > now:
        return None
    seat = locked.to_move
    player = locked.players.filter(seat=seat).first()
    if seat is None or player is None:
        return None
    state = game_state(game=locked)
    kind = "action"
    if player.is_bot:
        move, source = choose_for(state, SensiblePolicy()), GameEvent.Source.BOT
    else:
        row = (
            Seat.objects.select_for_update()
            .filter(table_id=locked.table_id, user_id=player.user_id)
            .first()
        )
        if row is not None and row.auto_play:
            move, source = choose_for(state, SensiblePolicy()), GameEvent.Source.AUTO_PLAY
        else:
            move, source = timeout_move(state), GameEvent.Source.TIMEOUT
            if row is not None:
                row.timeouts += 1
                if row.timeouts >= AUTO_PLAY_AFTER_TIMEOUTS:
                    row.auto_play = True
                    kind = "seats"
                row.save(update_fields=["timeouts", "auto_play"])
    return act_locked(
        game=game,
        locked=locked,
        state=state,
        seat=seat,
        action=dict(move.to_json()),
        source=source,
        kind=kind,
    )
