"""A player's move, and 再来一局, made on the event loop, on PostgreSQL, without a database thread.

A socket's database calls run on a pool of threads (``games.db_threads``). For the one action a
table sends most, a play or a pass that goes on with the game, that hop costs a worker more than
the move itself: the threads and the event loop hand the interpreter's lock to each other at
every round trip and every socket read or write. So a move is made here, on an asynchronous
connection of the worker's event loop, in two round trips: the reads under the game's lock,
then the writes and the commit.

This module only reads and writes: what the move does, or why it is refused, is decided by
``games.decisions``, as for the services' path. It writes the moves that go on with the game and
a 再来一局 that does not deal; a move that ends the game (and is settled) and the 再来一局 that
deals the next one are written by the services, which the caller then calls (these functions
return None for them, having written nothing). The position comes from ``games.positions``; the
moves made through another worker are read from the stored events under the lock and replayed.

The statements are prepared on each connection the first time it needs them and run by name
(``TABLE_MOVES_PREPARED``): PostgreSQL then parses and plans each of them once per connection
instead of at every move.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import datetime
import logging
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import psycopg
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connections, transaction
from django.db.models import Subquery
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Wallet

from . import decisions, services
from .decisions import AgainRead, GameRead, MovePlan
from .errors import GameActionRefused, TableRefused
from .frames import frames_of_table, render_player_frames
from .lru import LruCache
from .models import Game, GameEvent, GamePlayer, Seat, Table
from .prepared import (
    PreparedSelect,
    inserted,
    update_and_insert_server_statement,
    update_and_insert_statement,
    update_server_statement,
    update_statement,
)
from .rules.gandengyan import GameState
from .selectors import (
    TableRows,
    game_events_wanted,
    game_position_remember,
    game_state_after,
    game_state_kept,
    table_rows_keep,
    table_rows_kept,
)

logger = logging.getLogger(__name__)

#: The connections a worker's event loop uses for moves at most: moves beyond them wait for
#: one, which takes far less than a move (two round trips).
CONNECTIONS = 4

Notices = list[tuple[str, dict[str, Any]]]
T = TypeVar("T")


def enabled() -> bool:
    """Moves are made on the event loop on PostgreSQL, unless ``TABLE_MOVES_ON_LOOP`` is off."""
    return (
        getattr(settings, "TABLE_MOVES_ON_LOOP", True)
        and connections["default"].vendor == "postgresql"
    )


class _Connections:
    """The connections of one event loop: at most ``CONNECTIONS``, kept open between moves."""

    def __init__(self) -> None:
        self.idle: list[psycopg.AsyncConnection[Any]] = []
        self.slots = asyncio.Semaphore(CONNECTIONS)

    async def take(self) -> psycopg.AsyncConnection[Any]:
        await self.slots.acquire()
        try:
            while self.idle:
                conn = self.idle.pop()
                if not conn.closed:
                    return conn
            return await _connect()
        except BaseException:
            self.slots.release()
            raise

    def give_back(self, conn: psycopg.AsyncConnection[Any]) -> None:
        """Keep ``conn`` for the next move if it is open and not in a transaction."""
        if not conn.closed and conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
            self.idle.append(conn)
        else:
            _close_now(conn)
        self.slots.release()

    def close(self) -> None:
        while self.idle:
            _close_now(self.idle.pop())


_by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Connections] = (
    weakref.WeakKeyDictionary()
)


def _close_now(conn: psycopg.AsyncConnection[Any]) -> None:
    # Closes the socket at once, without the event loop (which a test may have closed).
    conn.pgconn.finish()


def _close_for_closed_loops() -> None:
    """Close the idle connections of event loops that were closed (and are not gone yet)."""
    for loop, held in list(_by_loop.items()):
        if loop.is_closed():
            held.close()
            _by_loop.pop(loop, None)


def close_connections() -> None:
    """Close every idle connection of every event loop (tests, before the database goes)."""
    for held in list(_by_loop.values()):
        held.close()


async def _connect() -> psycopg.AsyncConnection[Any]:
    wrapper = connections["default"]
    params = wrapper.get_connection_params()
    params["cursor_factory"] = psycopg.AsyncClientCursor  # %s placeholders, as Django's
    conn = await psycopg.AsyncConnection.connect(**params, autocommit=True)
    timezone_name = wrapper.timezone_name
    if conn.info.parameter_status("TimeZone") != timezone_name:
        await conn.execute("SELECT set_config('TimeZone', %s, false)", [timezone_name])
    if _prepares():
        # Planned once: the parameters are keys (a table, a game), whose plans do not depend
        # on their values; without this the server plans each of the first five runs again.
        await conn.execute("SET plan_cache_mode = force_generic_plan")
    if wrapper.timezone is datetime.UTC:
        # Django's loader of times parses them in Python, to put its time zone on them; with
        # the session in UTC, psycopg's own (compiled) loader gives the very same values.
        timestamptz = psycopg.adapters.types["timestamptz"].oid
        loader = psycopg.adapters.get_loader(timestamptz, psycopg.pq.Format.TEXT)
        if loader is not None:
            conn.adapters.register_loader(timestamptz, loader)
    return conn


@asynccontextmanager
async def _connection() -> AsyncIterator[psycopg.AsyncConnection[Any]]:
    """One of the event loop's connections, not in a transaction; given back afterwards, after
    a rollback if what it was used for failed (closed if even that fails, or if it was
    cancelled mid-way)."""
    loop = asyncio.get_running_loop()
    if len(_by_loop) > 1:
        _close_for_closed_loops()
    held = _by_loop.get(loop)
    if held is None:
        held = _by_loop[loop] = _Connections()
        # A loop that goes (a test's, asgiref's for one call) takes its connections with it,
        # whatever else still refers to them.
        weakref.finalize(loop, held.close)
    conn = await held.take()
    try:
        yield conn
    except (psycopg.errors.InvalidSqlStatementName, psycopg.errors.FeatureNotSupported):
        # The session lost its prepared statements (a pooler in front handed over another
        # one), or a table they read changed its columns ("cached plan must not change result
        # type"): a new connection prepares them again.
        _close_now(conn)
        held.give_back(conn)
        raise
    except Exception:
        try:
            if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                await conn.execute("ROLLBACK")
        except Exception:
            _close_now(conn)
        held.give_back(conn)
        raise
    except BaseException:
        _close_now(conn)
        held.give_back(conn)
        raise
    held.give_back(conn)


def _prepares() -> bool:
    return getattr(settings, "TABLE_MOVES_PREPARED", True)


#: The statements prepared on each connection, by name (PostgreSQL keeps them per session).
_prepared_on: weakref.WeakKeyDictionary[psycopg.AsyncConnection[Any], set[str]] = (
    weakref.WeakKeyDictionary()
)
#: Each statement's name, the same on every connection of the process.
_names: dict[Any, str] = {}


def _name_of(key: Any) -> str:
    name = _names.get(key)
    if name is None:
        name = _names[key] = f"gandengyan_{len(_names) + 1}"
    return name


class _Batch:
    """The statements of one round trip: each run by the name it is prepared under on the
    connection (preparing first, in a round trip of their own, those the connection lacks), or
    sent as text when statements are not prepared (``TABLE_MOVES_PREPARED`` off)."""

    def __init__(self, cursor: psycopg.AsyncCursor[Any]) -> None:
        self.cursor = cursor
        self.prepared = _prepared_on.setdefault(cursor.connection, set()) if _prepares() else None
        self.sql: list[str] = []
        self.params: list[Any] = []
        self.to_prepare: list[tuple[str, str, list[Any]]] = []  # name, PREPARE's text, constants

    def text(self, sql: str, params: list[Any] | tuple[Any, ...] = ()) -> None:
        self.sql.append(sql)
        self.params.extend(params)

    def select(self, select: PreparedSelect[Any], **values: Any) -> None:
        if self.prepared is None:
            self.text(*select.statement(**values))
            return
        arguments = select.arguments(**values)
        name = self._named(select, lambda: (*select.server_statement(), None))
        self._execute(name, arguments)

    def update(self, obj: Any, fields: list[str] | tuple[str, ...]) -> None:
        sql, params = update_statement(obj, fields)
        if self.prepared is None:
            self.text(sql, params)
            return
        model, names = type(obj), tuple(fields)
        name = self._named(
            ("update", model, names), lambda: (update_server_statement(model, names), [], None)
        )
        self._execute(name, params)

    def update_and_insert(self, updated: Any, fields: list[str], new: Any) -> None:
        sql, params = update_and_insert_statement(updated, fields, new)
        if self.prepared is None:
            self.text(sql, params)
            return
        models = (type(updated), tuple(fields), type(new))

        def server() -> tuple[str, list[Any], list[str]]:
            body, types = update_and_insert_server_statement(*models)
            return body, [], types

        self._execute(self._named(("update and insert", *models), server), params)

    async def run(self) -> None:
        if self.to_prepare:
            await _prepare(self.cursor, self.to_prepare)
            assert self.prepared is not None
            self.prepared.update(name for name, _text, _constants in self.to_prepare)
            self.to_prepare = []
        await self.cursor.execute("; ".join(self.sql), self.params)

    def _named(
        self, key: Any, server: Callable[[], tuple[str, list[Any], list[str] | None]]
    ) -> str:
        name = _name_of(key)
        assert self.prepared is not None
        if name not in self.prepared and all(name != n for n, _t, _c in self.to_prepare):
            body, constants, types = server()
            declared = f" ({', '.join(types)})" if types else ""
            self.to_prepare.append((name, f"PREPARE {name}{declared} AS {body}", constants))
        return name

    def _execute(self, name: str, arguments: list[Any]) -> None:
        self.text(f"EXECUTE {name}({', '.join(['%s'] * len(arguments))})", arguments)


async def _prepare(
    cursor: psycopg.AsyncCursor[Any], statements: list[tuple[str, str, list[Any]]]
) -> None:
    """Prepare ``statements`` (name, ``PREPARE``'s text, its constants) on the cursor's
    connection, which is closed if that fails: a ``PREPARE`` is not undone by a rollback, so
    which of them the session holds would not be known."""
    text = "; ".join(cursor.mogrify(sql, constants) for _name, sql, constants in statements)
    try:
        await cursor.execute(text)
    except BaseException:
        _close_now(cursor.connection)
        raise


async def table_move(
    *,
    user: Any,
    table_id: int,
    action: dict[str, Any],
    version: str | None,
    action_id: str,
) -> Notices | None:
    """Make ``user``'s move ``action`` (a play or a pass) at table ``table_id``, chosen on
    ``version``, in one transaction on the event loop; returns the notices of what it
    committed. None when ``decisions.player_move`` found that the move ends the game: nothing
    was written, and ``services.table_game_act`` makes it with the settlement. Raises
    ``GameActionRefused`` for what the decision refuses (nothing was written)."""
    await _statements_compiled(_MOVE_READS)
    try:
        made = await _with_statements(
            lambda cursor: _move_in(
                cursor,
                user=user,
                table_id=table_id,
                action=action,
                version=version,
                action_id=action_id,
            )
        )
    except psycopg.errors.UniqueViolation:
        # The database's unique action id per game: a copy of a made action that came with the
        # current version and is legal (only a forged one can).
        if action_id and await _with_statements(
            lambda cursor: _action_made(cursor, table_id, action_id)
        ):
            raise GameActionRefused("duplicate", "this action was applied already") from None
        raise
    if made is None:
        return None
    plan, read = made
    game, after, event = plan.game, plan.after, plan.event
    # Committed: the position is this process's to keep, as ``services.move_write`` keeps it.
    game_position_remember(game=game, state=after, event=event)
    _seen.put(table_id, (game.pk, after.log_length))
    rows = plan.rows_after(read)
    notice = services.table_notice(
        table_id=table_id,
        message={"kind": plan.kind, "game": game.pk, "number": event.number},
        frames=lambda: render_player_frames(table=game.table, rows=rows, state=after),
    )
    return [(services.table_group_name(table_id), notice)]


async def _with_statements(run: Callable[[psycopg.AsyncCursor[Any]], Awaitable[T]]) -> T:
    """``run`` on a cursor of one of the loop's connections; once more on a new connection when
    the one taken had lost its prepared statements (a pooler in front handed over another
    session) or a table they read changed under them."""
    for attempt in (1, 2):
        try:
            async with _connection() as conn:
                return await run(conn.cursor())
        except (psycopg.errors.InvalidSqlStatementName, psycopg.errors.FeatureNotSupported):
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


async def _action_made(cursor: psycopg.AsyncCursor[Any], table_id: int, action_id: str) -> bool:
    """Whether an action with the id ``action_id`` is stored in the game being played at
    table ``table_id``."""
    await cursor.execute(_ACTION_MADE, [table_id, Game.Status.PLAYING, action_id])
    return await cursor.fetchone() is not None


_ACTION_MADE = (
    f"SELECT 1 FROM {GameEvent._meta.db_table} event"
    f" JOIN {Game._meta.db_table} game ON game.id = event.game_id"
    " WHERE game.table_id = %s AND game.status = %s AND event.action_id = %s LIMIT 1"
)


async def _statements_compiled(selects: tuple[PreparedSelect[Any], ...]) -> None:
    """Build ``selects`` through the ORM the first time, on a database thread: compiling may
    ask the database about itself, which must not happen on the event loop."""
    if not all(select.compiled() for select in selects):
        await database_sync_to_async(_compile)(selects)


def _compile(selects: tuple[PreparedSelect[Any], ...]) -> None:
    with transaction.atomic():
        for select in selects:
            select.statement(**dict.fromkeys(select.names, 0))


#: A game's stored events from a number on, to replay the moves this process has not seen.
_events_since = PreparedSelect(
    lambda game_id, number: (
        GameEvent.objects.filter(game_id=game_id, number__gte=number)
        .order_by("number")
        .only("id", "number", "seat", "action")
    ),
    "game_id",
    "number",
)


@dataclasses.dataclass(frozen=True)
class _KeptRows:
    """The rows of a table that the last move made here read, with the game row as the move
    left it, and their models: a move whose rows are these takes them (a copy of the game's).
    Nothing changes them once kept."""

    game_row: tuple[Any, ...]
    game: Game
    seat_rows: list[tuple[Any, ...]]
    seats: list[Seat]


_kept: LruCache[_KeptRows] = LruCache(4096)

#: By table, the game and the number of events of the last position this process knew.
_seen: LruCache[tuple[int, int]] = LruCache(4096)


def _unseen_events(table_id: int, version: str | None) -> tuple[int, int] | None:
    """The game and the first event number to read with the lock, when the player's view
    (``version``, ``table.game.events``) shows events after the last position a move at the
    table was made at in this process (moves made through another worker)."""
    try:
        _table_version, game_id, events = (int(part) for part in (version or "").split("."))
    except ValueError:
        return None
    seen = _seen.get(table_id)
    if seen is None or seen[0] != game_id:
        return None  # a game new to this process: its events are read if needed
    return (game_id, seen[1]) if events > seen[1] else None


async def _events(
    cursor: psycopg.AsyncCursor[Any], game: Game, since: int
) -> list[tuple[int, int, Any]]:
    batch = _Batch(cursor)
    batch.select(_events_since, game_id=game.pk, number=since)
    await batch.run()
    return [(row.pk, row.seat, row.action) for row in _events_since.models(await cursor.fetchall())]


#: The players of a game, by seat.
_game_players = PreparedSelect(
    lambda game_id: GamePlayer.objects.filter(game_id=game_id).order_by("seat"), "game_id"
)


async def _rows_of_game(
    cursor: psycopg.AsyncCursor[Any], *, table: Table, game: Game, seats: list[Seat]
) -> TableRows:
    # Built through the ORM on the loop at the first call: neither locks, so compiling them
    # needs no database.
    batch = _Batch(cursor)
    batch.select(_game_players, game_id=game.pk)
    batch.select(_seated_wallets, table_id=table.pk)
    await batch.run()
    players = _game_players.models(await cursor.fetchall())
    cursor.nextset()
    wallets = _seated_wallets.models(await cursor.fetchall())
    return table_rows_keep(
        table=table,
        game=game,
        seats=seats,
        players={player.seat: player for player in players},
        balances={wallet.user_id: wallet.balance for wallet in wallets},
    )


async def _state_of(
    cursor: psycopg.AsyncCursor[Any], game: Game, read: list[GameEvent] | None = None
) -> GameState:
    """The position the game's row names: the one this process keeps, or, after moves made
    elsewhere (another worker's sockets), the kept one with their events read under the lock
    (``read``: the game's events from some number on, when already read) and replayed."""
    state = game_state_kept(game=game)
    if state is not None:
        return state
    since = game_events_wanted(game=game)
    if read and read[0].number <= since:
        events = [(row.pk, row.seat, row.action) for row in read if row.number >= since]
    else:
        events = await _events(cursor, game, since)
    state = game_state_after(game=game, events=events, since=since)
    if state is None:
        state = game_state_after(game=game, events=await _events(cursor, game, 0), since=0)
    if state is None:
        raise RuntimeError(f"game {game.pk}: its stored events do not replay")
    return state


#: The statements every move reads with, built once (games.prepared). One game at most is being
#: played at a table, so the lock needs no ORDER BY.
_game_playing_locked = PreparedSelect(
    lambda table_id: (
        Game.objects.select_for_update(of=("self",))
        .select_related("table__room")
        .filter(table_id=table_id, status=Game.Status.PLAYING)[:1]
    ),
    "table_id",
)
_table_seats = PreparedSelect(
    lambda table_id: (
        Seat.objects.select_related("user").filter(table_id=table_id).order_by("position")
    ),
    "table_id",
)


async def _move_in(
    cursor: psycopg.AsyncCursor[Any],
    *,
    user: Any,
    table_id: int,
    action: dict[str, Any],
    version: str | None,
    action_id: str,
) -> tuple[MovePlan, GameRead] | None:
    # Two round trips: the transaction begun with the game row locked (with its table and room)
    # and the seats read (with their players), and the events this process has not seen when
    # the player's view names a later position of the game; then the move written and committed.
    lock, seats_select = _game_playing_locked, _table_seats
    batch = _Batch(cursor)
    batch.text("BEGIN")
    batch.select(lock, table_id=table_id)
    batch.select(seats_select, table_id=table_id)
    unseen = _unseen_events(table_id, version)
    if unseen is not None:
        batch.select(_events_since, game_id=unseen[0], number=unseen[1])
    await batch.run()
    cursor.nextset()
    game_rows = await cursor.fetchall()
    cursor.nextset()
    seat_rows = await cursor.fetchall()
    kept = _kept.get(table_id)
    if kept is not None and game_rows == [kept.game_row] and seat_rows == kept.seat_rows:
        # The rows this process's last move here left: their models, not built again (a copy of
        # the game's, which the move changes; nothing changes the seats').
        games, seats = [copy.copy(kept.game)], kept.seats
    else:
        games, seats = lock.models(game_rows), seats_select.models(seat_rows)
    read_events: list[GameEvent] | None = None
    if unseen is not None:
        cursor.nextset()
        read_events = _events_since.models(await cursor.fetchall())
    if not games:
        raise decisions.no_game_refusal(seated=any(row.user_id == user.pk for row in seats))
    game = games[0]
    read_already = read_events if unseen is not None and unseen[0] == game.pk else None
    state = await _state_of(cursor, game, read_already)
    _seen.put(table_id, (game.pk, state.log_length))
    table: Table = game.table
    for row in seats:
        row.table = table
    rows = table_rows_kept(table=table, game=game, seats=seats)
    if rows is None:
        # A game this process did not start (another worker dealt it): its players and the
        # seated players' balances, read once under the lock and kept for its next moves here.
        rows = await _rows_of_game(cursor, table=table, game=game, seats=seats)
    read = GameRead(
        game=game, seats=seats, players=rows.players, balances=rows.balances, state=state
    )
    try:
        plan = decisions.player_move(
            read,
            user_id=user.pk,
            action=action,
            version=version,
            action_id=action_id,
            now=timezone.now(),
        )
    except GameActionRefused as refused:
        # A resend of a made action comes late (the version moved on) or out of turn: the id
        # says what happened, and it is looked up only then.
        if action_id and await _action_made(cursor, table_id, action_id):
            raise GameActionRefused("duplicate", "this action was applied already") from None
        raise refused from None
    if plan.ends:
        # The services write the end of a game, with its settlement.
        await cursor.execute("ROLLBACK")
        return None
    write = _Batch(cursor)
    write.update_and_insert(plan.game, list(plan.fields), plan.event)
    for seat, fields in plan.seats:
        write.update(seat, fields)
    write.text("COMMIT")
    await write.run()
    written = await cursor.fetchone()
    if written is None:
        raise RuntimeError(f"the move at table {table_id} wrote no event")
    inserted(plan.event, written[0])
    # The game row as this move left it, for the next move here to know it again.
    left = list(game_rows[0])
    for name in plan.fields:
        left[lock.column_of(name)] = getattr(plan.game, name)
    if plan.seats:
        _kept.pop(table_id)  # the seats changed: read them again next time
    else:
        _kept.put(table_id, _KeptRows(tuple(left), plan.game, seat_rows, seats))
    return plan, read


# 再来一局 ----------------------------------------------------------------------------------------

#: What 再来一局 reads in its first round trip: the table locked with its room, its seats with
#: their players, its latest game, that game's players, and the seated players' wallets.
_table_locked = PreparedSelect(
    lambda table_id: (
        Table.objects.select_for_update(of=("self",)).select_related("room").filter(pk=table_id)
    ),
    "table_id",
)
_latest_game = PreparedSelect(
    lambda table_id: Game.objects.filter(table_id=table_id).order_by("-number")[:1], "table_id"
)
_latest_game_players = PreparedSelect(
    lambda table_id: GamePlayer.objects.filter(
        game_id=Subquery(
            Game.objects.filter(table_id=table_id).order_by("-number").values("pk")[:1]
        )
    ).order_by("seat"),
    "table_id",
)
_seated_wallets = PreparedSelect(
    lambda table_id: Wallet.objects.filter(
        user_id__in=Subquery(
            Seat.objects.filter(table_id=table_id, user__isnull=False).values("user_id")
        )
    ),
    "table_id",
)
_AGAIN_READS = (
    _table_locked,
    _table_seats,
    _latest_game,
    _latest_game_players,
    _seated_wallets,
)
_MOVE_READS = (
    _game_playing_locked,
    _table_seats,
    _events_since,
    _game_players,
    _seated_wallets,
)


async def table_again(*, user: Any, table_id: int) -> Notices | None:
    """``user``'s 再来一局 at table ``table_id``, made on the event loop: the notices of what
    it committed. None when ``decisions.again`` found that it deals the next game: nothing was
    written, and ``services.table_play_again`` makes it with the deal. Raises
    ``TableRefused`` for what the decision refuses (nothing was written)."""
    await _statements_compiled(_AGAIN_READS)
    made = await _with_statements(lambda cursor: _again_in(cursor, user=user, table_id=table_id))
    if made is None:
        return None
    if made is _UNCHANGED:
        return []
    table, rows, state = made
    if state is _FRAMES_READ_ANEW:
        frames_of_changed_table = await database_sync_to_async(_frames_read_anew)(
            table=table, rows=rows
        )
        notice_frames: Callable[[], dict[str, Any]] = lambda: frames_of_changed_table  # noqa: E731
    else:
        notice_frames = lambda: render_player_frames(table=table, rows=rows, state=state)  # noqa: E731
    notice = services.table_notice(
        table_id=table_id,
        message={"kind": "ready", "version": table.version},
        frames=notice_frames,
    )
    return [(services.table_group_name(table_id), notice)]


#: What ``_again_in`` returns for a player who was ready already.
_UNCHANGED: Any = object()

#: ``_again_in``'s position when the frames after it need more than it read.
_FRAMES_READ_ANEW: Any = object()


def _frames_read_anew(*, table: Table, rows: TableRows) -> dict[str, Any]:
    return frames_of_table(table=table, seats=rows.seats, last=rows.game)


async def _again_in(
    cursor: psycopg.AsyncCursor[Any], *, user: Any, table_id: int
) -> tuple[Table, TableRows, Any] | None:
    # Two round trips, as a move: the reads with the table's lock, then the seat and the table
    # written and committed.
    reads = _Batch(cursor)
    reads.text("BEGIN")
    for select in _AGAIN_READS:
        reads.select(select, table_id=table_id)
    await reads.run()
    found: list[list[Any]] = []
    for select in _AGAIN_READS:
        cursor.nextset()
        found.append(select.models(await cursor.fetchall()))
    tables, seats, games, players, wallets = found
    if not tables:
        raise TableRefused("not_seated", _("You are not sitting at this table."))
    table = tables[0]
    last = games[0] if games else None
    balances = {wallet.user_id: wallet.balance for wallet in wallets}
    plan = decisions.again(
        AgainRead(table=table, seats=seats, last=last, balance=balances.get(user.pk)),
        user_id=user.pk,
    )
    if plan.seat is None:
        await cursor.execute("ROLLBACK")  # ready already: nothing changes
        return _UNCHANGED
    if plan.deals:
        # The services deal the next game.
        await cursor.execute("ROLLBACK")
        return None
    seats = [plan.seat if row.pk == plan.seat.pk else row for row in seats]
    for row in seats:
        row.table = table
    closes = decisions.table_change_planned(table=table, seats=seats)
    assert not closes, "a table with a player at it stays open"
    write = _Batch(cursor)
    write.update(plan.seat, ["ready"])
    write.update(table, decisions.TABLE_CHANGE_FIELDS)
    write.text("COMMIT")
    await write.run()
    players_by_seat = {player.seat: player for player in players}
    rows = TableRows(seats=seats, game=last, players=players_by_seat, balances=balances)
    # The frames show the game that ended, rendered from these rows when they hold all the
    # frames need: every player of that game still in their seat, and the room still admitting
    # every seated player (a refusal's text reads the other rooms).
    by_position = {row.position: row for row in seats}
    if (
        last is None
        or any(
            player.user_id is not None and by_position[player.seat].user_id != player.user_id
            for player in players
        )
        or any(
            decisions.admission_refused(room=table.room, balance=balances.get(row.user_id))
            for row in seats
            if row.user_id is not None
        )
    ):
        return table, rows, _FRAMES_READ_ANEW
    # A game another worker ended is read up to its end.
    return table, rows, await _state_of(cursor, last)
