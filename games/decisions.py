"""What a move, a turn that came due, a bot's turn and 再来一局 do, decided in one place.

Each function here is pure: it takes the rows its caller read under its locks and what was
asked, and returns what to write (model rows with the fields that changed) and what the table's
sockets hear, or raises the refusal. Two storage paths make moves: the services (a database
thread, the ORM, every database) and ``games.loop_moves`` (the socket's event loop, psycopg, on
PostgreSQL). Both only read and write; what a move does is decided here, the same for both.
"""

from __future__ import annotations

import copy
import dataclasses
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from games.rules import AmbiguousPlayError, IllegalMoveError, NotationError, Phase

from . import thinking
from .engines import Engine, engine_for
from .errors import GameActionRefused, TableRefused
from .models import Game, GameEvent, GamePlayer, Room, Seat, Table
from .selectors import TableRows, table_version

#: A player whose time runs out this many turns in a row goes to 托管.
AUTO_PLAY_AFTER_TIMEOUTS = 2


@dataclasses.dataclass(frozen=True)
class GameRead:
    """What a move reads under the lock of the game being played: the game's row (with its
    table and room), the table's seats by position (each with that table), the game's players by
    seat, the seated players' balances and the game's position. The decisions never change
    these rows: what they write is on copies."""

    game: Game
    seats: list[Seat]
    players: dict[int, GamePlayer]
    balances: dict[int, int]
    state: Any

    @property
    def engine(self) -> Engine:
        return engine_for(self.game.game)

    @property
    def rows(self) -> TableRows:
        return TableRows(
            seats=self.seats, game=self.game, players=self.players, balances=self.balances
        )


@dataclasses.dataclass(frozen=True)
class MovePlan:
    """The rows a move writes and what it tells: ``game``, a copy of the game's row with
    ``fields`` changed; the ``event`` to insert; the ``seats`` whose listed fields changed
    (copies); the position ``after`` it; and the notice's ``kind`` (``action``, ``seats`` when a
    seat changed with it, ``finished`` when it ends the game, which is then to be settled)."""

    game: Game
    fields: tuple[str, ...]
    event: GameEvent
    seats: tuple[tuple[Seat, tuple[str, ...]], ...]
    after: Any
    kind: str

    @property
    def ends(self) -> bool:
        return bool(self.after.is_terminal)

    def rows_after(self, read: GameRead) -> TableRows:
        """The table's rows as the move leaves them, for the frames after it."""
        changed = {seat.pk: seat for seat, _fields in self.seats}
        seats = [changed.get(seat.pk, seat) for seat in read.seats]
        return TableRows(seats=seats, game=self.game, players=read.players, balances=read.balances)


def turn_deadline_for(
    *,
    is_bot: bool,
    auto_play: bool,
    turn_seconds: int,
    now: datetime,
    phase: Phase = Phase.PLAY,
) -> datetime:
    """When the server acts for a seat whose turn starts ``now`` in ``phase``: while the deal is
    shown, at its next stage, whoever is to move; otherwise for a bot, or a player in 托管,
    after a bot's pause; for a player after the time to bid, to double, or the room's for a
    turn of the play."""
    if phase is Phase.DEAL:
        return now + timedelta(seconds=settings.DEAL_STAGE_SECONDS)
    if is_bot or auto_play:
        return now + timedelta(seconds=settings.BOT_MOVE_DELAY_SECONDS)
    if phase is Phase.BID:
        return now + timedelta(seconds=settings.BID_SECONDS)
    if phase is Phase.DOUBLE:
        return now + timedelta(seconds=settings.DOUBLE_SECONDS)
    return now + timedelta(seconds=turn_seconds)


def plays_as_bot(
    *, seat_is_bot: bool | None, seat_user_id: int | None, player_is_bot: Callable[[], bool]
) -> bool:
    """Whether the clock treats a seat as a bot's: as its seat at the table says (``None``: no
    seat row), or, for a seat nobody holds, as the game's player there was (a game played
    without seats at its table, as tests and tools start them); ``player_is_bot`` is asked
    only then."""
    if seat_is_bot is not None and (seat_is_bot or seat_user_id is not None):
        return seat_is_bot
    return player_is_bot()


def _deadline(
    read: GameRead, seats: list[Seat], seat: int, now: datetime, phase: Phase
) -> datetime:
    row = next((row for row in seats if row.position == seat), None)
    player = read.players.get(seat)
    is_bot = plays_as_bot(
        seat_is_bot=None if row is None else row.is_bot,
        seat_user_id=None if row is None else row.user_id,
        player_is_bot=lambda: player is not None and player.is_bot,
    )
    room: Room = read.game.table.room
    return turn_deadline_for(
        is_bot=is_bot,
        auto_play=row is not None and row.auto_play,
        turn_seconds=room.turn_seconds,
        now=now,
        phase=phase,
    )


def seat_move(
    read: GameRead,
    *,
    seat: int,
    action: dict[str, Any],
    now: datetime,
    source: str = GameEvent.Source.PLAYER,
    action_id: str = "",
    changed_seats: tuple[tuple[Seat, tuple[str, ...]], ...] = (),
    kind: str = "action",
    strict: bool = False,
) -> MovePlan:
    """``seat``'s ``action`` in the game being played: ``{"play": "5s 6h BJ", "as": "4 5 6"}``
    or ``{"pass": true}`` (``as`` is optional), checked by the engine against the position.
    ``changed_seats``: seats the move changes besides (their copies and fields); ``kind``: the
    notice's kind when the game goes on; ``strict``: an action the rules could complete more
    than one way is refused as ``choose_meaning`` with the meanings, as a person's must say
    which. Raises ``GameActionRefused``."""
    if read.game.status != Game.Status.PLAYING:
        raise GameActionRefused("game_over", "the game is over: no more actions")
    state, engine = read.state, read.engine
    move = action_of(engine, action)
    try:
        resolved = state.resolve(seat, move, strict=strict)
        after = state.apply(seat, resolved)
    except AmbiguousPlayError as exc:
        raise GameActionRefused(exc.code, exc.message, exc.meanings) from exc
    except IllegalMoveError as exc:
        raise GameActionRefused(exc.code, exc.message) from exc

    stored = engine.action_to_json(resolved)
    game = copy.copy(read.game)
    event = GameEvent(
        game=game,
        number=state.log_length + 1,
        seat=seat,
        action=stored,
        source=source,
        action_id=action_id,
    )
    seats_after = [
        next((copy_ for copy_, _fields in changed_seats if copy_.pk == row.pk), row)
        for row in read.seats
    ]
    game.position_id = uuid.uuid4()
    game.to_move = after.to_move
    fields = ["position_id", "to_move", "turn_started_at", "turn_deadline"]
    if after.is_terminal:
        game.turn_started_at = game.turn_deadline = None
        game.status = Game.Status.FINISHED
        game.winner = after.winner
        game.finished_at = now
        fields += ["status", "winner", "finished_at"]
        kind = "finished"
    elif source == GameEvent.Source.CLOCK or not _clock_goes_on(state, after):
        assert after.to_move is not None  # a game that goes on has a player to move
        game.turn_started_at = now
        game.turn_deadline = _deadline(read, seats_after, after.to_move, now, after.phase)
    return MovePlan(
        game=game,
        fields=tuple(fields),
        event=event,
        seats=changed_seats,
        after=after,
        kind=kind,
    )


def _clock_goes_on(before: Any, after: Any) -> bool:
    """Whether a seat's action leaves the clock as it runs: one made out of turn (明牌, 加倍)
    that leaves the same seat to move in the same phase, and any made while the deal is shown,
    whose stages keep their times (the clock's own actions start the next stage's)."""
    if after.phase is not before.phase:
        return False
    return bool(after.phase is Phase.DEAL or after.to_move == before.to_move)


def action_of(engine: Engine, action: Any) -> Any:
    """The engine's action written as ``action`` (JSON); ``bad_action`` when it is not one."""
    if not isinstance(action, dict):
        raise GameActionRefused("bad_action", "an action is a JSON object")
    try:
        return engine.action_from_json(action)
    except NotationError as exc:
        raise GameActionRefused("bad_action", str(exc)) from exc


def no_game_refusal(*, seated: bool) -> GameActionRefused:
    """Why a move at a table where no game is being played is refused: ``not_seated`` for a
    player who does not sit there, ``no_game`` for one who does."""
    if not seated:
        return GameActionRefused("not_seated", "you do not sit at this table")
    return GameActionRefused("no_game", "no game is being played at this table")


def player_move(
    read: GameRead,
    *,
    user_id: int,
    action: dict[str, Any],
    version: str | None,
    action_id: str,
    now: datetime,
) -> MovePlan:
    """A seated player's move, chosen on the table's ``version``: refused as ``not_seated``
    for a player who does not play this game, ``stale`` when the table changed since the
    player chose; then as ``seat_move``, strictly. A player who moves in time starts counting
    timeouts afresh."""
    seat = next((row for row in read.seats if row.user_id == user_id), None)
    if seat is None:
        raise GameActionRefused("not_seated", "you do not sit at this table")
    player = read.players.get(seat.position)
    if player is None or player.user_id != user_id:
        raise GameActionRefused("not_seated", "you do not play in this game")
    table: Table = read.game.table
    current = table_version(table=table, game=read.game, events=read.state.log_length)
    if not isinstance(version, str) or version != current:
        raise GameActionRefused("stale", "the table changed since this action was chosen")
    state, engine = read.state, read.engine
    if state.phase is Phase.DEAL and isinstance(
        action_of(engine, action), type(engine.deal_next(state))
    ):
        raise GameActionRefused("dealt_by_the_clock", "the table's clock deals the cards")
    changed: tuple[tuple[Seat, tuple[str, ...]], ...] = ()
    if seat.timeouts:
        reset = copy.copy(seat)
        reset.timeouts = 0
        changed = ((reset, ("timeouts",)),)
    return seat_move(
        read,
        seat=seat.position,
        action=action,
        now=now,
        action_id=action_id,
        changed_seats=changed,
        strict=True,
    )


def due_move(read: GameRead, *, now: datetime) -> MovePlan | None:
    """What the server does for the seat to move once its turn's deadline has passed by
    ``now`` (None before, or when no one is to move): a bot moves; a player in 托管 is played
    for by the same bot; a player whose time ran out passes (or, leading, plays the smallest
    lead), and after ``AUTO_PLAY_AFTER_TIMEOUTS`` such turns in a row the seat goes to 托管."""
    game = read.game
    if game.status != Game.Status.PLAYING:
        return None
    if game.turn_deadline is None or game.turn_deadline > now:
        return None
    seat = game.to_move
    player = None if seat is None else read.players.get(seat)
    if seat is None or player is None:
        return None
    state, engine = read.state, read.engine
    if state.phase is Phase.DEAL:
        return _deal_goes_on(read, now=now)
    if player.is_bot:
        return seat_move(
            read,
            seat=seat,
            action=_table_bot_choice(read, now=now),
            now=now,
            source=GameEvent.Source.BOT,
        )
    row = next((row for row in read.seats if row.user_id == player.user_id), None)
    if row is not None and row.auto_play:
        return seat_move(
            read,
            seat=seat,
            action=_bot_choice(engine, state),
            now=now,
            source=GameEvent.Source.AUTO_PLAY,
        )
    changed: tuple[tuple[Seat, tuple[str, ...]], ...] = ()
    kind = "action"
    if row is not None:
        counted = copy.copy(row)
        counted.timeouts += 1
        if counted.timeouts >= AUTO_PLAY_AFTER_TIMEOUTS:
            counted.auto_play = True
            kind = "seats"
        changed = ((counted, ("timeouts", "auto_play")),)
    return seat_move(
        read,
        seat=seat,
        action=engine.action_to_json(engine.timeout_action(state, seat)),
        now=now,
        source=GameEvent.Source.TIMEOUT,
        changed_seats=changed,
        kind=kind,
    )


def bot_move(read: GameRead, *, now: datetime) -> MovePlan | None:
    """The move of the bot to move now, if the player to move is a bot (None otherwise): it
    chooses from its own seat's view only (``games.bots``)."""
    seat = read.game.to_move
    player = None if seat is None else read.players.get(seat)
    if read.game.status != Game.Status.PLAYING or seat is None or player is None:
        return None
    if not player.is_bot:
        return None
    if read.state.phase is Phase.DEAL:
        return _deal_goes_on(read, now=now)
    return seat_move(
        read,
        seat=seat,
        action=_table_bot_choice(read, now=now),
        now=now,
        source=GameEvent.Source.BOT,
    )


def _deal_goes_on(read: GameRead, *, now: datetime) -> MovePlan:
    """The table's clock shows the next stage of the deal, in the name of the seat to move."""
    seat = read.state.to_move
    return seat_move(
        read,
        seat=seat,
        action=read.engine.action_to_json(read.engine.deal_next(read.state)),
        now=now,
        source=GameEvent.Source.CLOCK,
    )


def _bot_choice(engine: Engine, state: Any) -> dict[str, Any]:
    """The game's own bot's action for the seat to move (托管), from that seat's view only,
    made in a thinking process (``games.thinking``)."""
    return engine.action_to_json(thinking.choose(engine, state, remember="own"))


def _table_bot_choice(read: GameRead, *, now: datetime) -> dict[str, Any]:
    """The action of the bot to move, of the table's level (the engine's ``bot_policy``), from its
    seat's view only. The search of the hard level is seeded by the game, so that its worlds
    differ from game to game, and thinks for the room's time, less when its turn is already late
    (``bot_level_in_time``). It thinks in a thinking process (``games.thinking``)."""
    table = read.game.table
    late = (
        0.0 if read.game.turn_deadline is None else (now - read.game.turn_deadline).total_seconds()
    )
    level, budget_ms = bot_level_in_time(table.play_bot_level, table.room.bot_budget_ms, late=late)
    seed = read.game.pk or 0
    policy = read.engine.bot_policy(level, seed=seed, budget_ms=budget_ms)
    remember = ("table", level, seed, budget_ms)
    return read.engine.action_to_json(
        thinking.choose(read.engine, read.state, policy, remember=remember)
    )


#: A hard bot whose turn is this many seconds late thinks for ``LATE_BOT_BUDGET_MS`` only, and
#: past the second figure plays at the normal level: when the server is behind (its runner
#: has more bots to move than it can think for), a prompt move is worth more than a deep one.
LATE_BOT_SECONDS = (0.5, 2.0)
LATE_BOT_BUDGET_MS = 20.0


def bot_level_in_time(level: str, budget_ms: float, *, late: float) -> tuple[str, float]:
    """The level and time per move of a bot of ``level`` (with ``budget_ms`` to think) whose
    turn came ``late`` seconds after its deadline."""
    if level != "hard" or late <= LATE_BOT_SECONDS[0]:
        return level, float(budget_ms)
    if late <= LATE_BOT_SECONDS[1]:
        return level, min(float(budget_ms), LATE_BOT_BUDGET_MS)
    return "normal", float(budget_ms)


# 再来一局 ----------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class AgainRead:
    """What 再来一局 reads under the table's lock: the table (with its room), its seats by
    position, its latest game (None before the first), and the player's balance (None: no
    wallet)."""

    table: Table
    seats: list[Seat]
    last: Game | None
    balance: int | None


@dataclasses.dataclass(frozen=True)
class AgainPlan:
    """What a player's 再来一局 writes: the player's seat marked ready (``seat``, a copy, with
    the ``fields`` to save; None when nothing changes), and whether every seat is now ready for
    the next game (``deals``: the caller deals it, which changes the table as the deal needs)."""

    seat: Seat | None
    deals: bool
    fields: tuple[str, ...] = ("ready",)


def again(read: AgainRead, *, user_id: int, start: dict[str, Any] | None = None) -> AgainPlan:
    """A player's 再来一局 at a table between games, with ``start``: one of the game's
    ``start_actions`` (JSON) to make in the player's name once the next game is dealt (明牌开始),
    or None. Refused (``TableRefused``) at a closed table, for a player who does not sit there,
    while a game is being played, when the room no longer admits the player's coins (they may
    leave the table), and for a ``start`` the game does not offer."""
    table = read.table
    if table.status == Table.Status.CLOSED:
        raise TableRefused("table_closed", _("This table is closed."))
    seat = next((row for row in read.seats if row.user_id == user_id), None)
    if seat is None:
        raise TableRefused("not_seated", _("You are not sitting at this table."))
    if table.status == Table.Status.PLAYING or (
        read.last is not None and read.last.status == Game.Status.PLAYING
    ):
        raise TableRefused("game_in_progress", _("A game is still being played here."))
    refused = admission_refused(room=table.room, balance=read.balance)
    if refused is not None:
        raise refused
    if start is not None:
        start = start_action_of(table, start)
    if seat.ready and (start is None or seat.start_action == start):
        return AgainPlan(seat=None, deals=False)
    ready = copy.copy(seat)
    ready.ready = True
    fields: tuple[str, ...] = ("ready",)
    if start is not None:
        ready.start_action = start
        fields = ("ready", "start_action")
    seats = [ready if row.pk == seat.pk else row for row in read.seats]
    return AgainPlan(
        seat=ready, deals=ready_to_deal(table=table, seats=seats, playing=False), fields=fields
    )


def start_action_of(table: Table, start: dict[str, Any]) -> dict[str, Any]:
    """``start`` in its canonical JSON when it is one of the ``start_actions`` of the game at
    ``table`` (with the rules it plays); ``TableRefused`` otherwise."""
    engine = engine_for(table.room.game)
    offered = [
        engine.action_to_json(action)
        for action in engine.start_actions(engine.options_from_json(table.play_rules))
    ]
    try:
        chosen = engine.action_to_json(engine.action_from_json(start))
    except (NotationError, TypeError, ValueError, KeyError):
        chosen = None
    if chosen is None or chosen not in offered:
        raise TableRefused("bad_start", _("This game offers no such choice before the deal."))
    return chosen


def seat_count(room: Room, rules: dict[str, Any] | None = None) -> int:
    """How many seats a table of ``room`` has: the players its game's rules need (``rules``:
    the table's own, else the room's)."""
    engine = engine_for(room.game)
    return engine.seat_count(engine.options_from_json(room.rules if rules is None else rules))


def ready_to_deal(*, table: Table, seats: list[Seat], playing: bool) -> bool:
    """Whether the next game starts at ``table`` (waiting, its ``seats`` by position as they
    are now; ``playing``: a game is being played there): every seat taken, every player at it
    ready (bots always are), and no game being played."""
    if table.status != Table.Status.WAITING or playing:
        return False
    if len(seats) != seat_count(table.room, table.play_rules):
        return False
    return all(row.is_bot or (row.user_id is not None and row.ready) for row in seats)


def admission_refused(*, room: Room, balance: int | None) -> TableRefused | None:
    """Why a player with ``balance`` coins (None: no wallet) may not play in ``room`` now, or
    None if they may."""
    if not room.is_open:
        return TableRefused(
            "room_closed",
            _("{room} is closed for now. Please choose another room.").format(room=room.name),
        )
    if balance is None:
        return TableRefused("no_wallet", _("You have no wallet yet."))
    if balance < room.min_coins:
        return TableRefused(
            "balance_too_low",
            _("{room} needs at least {minimum} coins to enter; you have {balance}.").format(
                room=room.name, minimum=f"{room.min_coins:,}", balance=f"{balance:,}"
            ),
        )
    if room.max_coins is not None and balance > room.max_coins:
        return TableRefused(
            "balance_too_high",
            _("{room} admits at most {maximum} coins; you have {balance}.").format(
                room=room.name, maximum=f"{room.max_coins:,}", balance=f"{balance:,}"
            ),
        )
    return None


#: The fields of a table that a change of its seats sets (``table_change_planned``).
TABLE_CHANGE_FIELDS = ("status", "waiting_since", "version")


def table_change_planned(*, table: Table, seats: list[Seat], now: datetime | None = None) -> bool:
    """What a change of seats does to ``table`` (locked), whose ``seats`` are as the change left
    them: closed if nobody is left, ``waiting_since`` kept while a player sits beside a free
    seat, the version one up. Set on ``table``, not written; returns whether it closes."""
    humans = [seat for seat in seats if seat.user_id is not None]
    free = [seat for seat in seats if seat.user_id is None and not seat.is_bot]
    closes = not humans and table.status != Table.Status.CLOSED
    if closes:
        table.status = Table.Status.CLOSED
    if humans and free and table.status != Table.Status.CLOSED:
        if table.waiting_since is None:
            table.waiting_since = now or timezone.now()
    else:
        table.waiting_since = None
    table.version += 1
    return closes
