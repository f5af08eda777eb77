"""A player's move, and 再来一局, made on the event loop, on PostgreSQL, without a database thread.

A socket's database calls run on a pool of threads (``games.db_threads``). For the one action a
table sends most, a play or a pass that goes on with the game, that hop costs a worker more than
the move itself: the threads and the event loop hand the interpreter's lock to each other at
every round trip and every socket read or write. So a move is made here, on an asynchronous
connection of the worker's event loop (from the loop's own psycopg pool, at most
``TABLE_MOVES_CONNECTIONS``): in one round trip when this process keeps the position the player
chose on (the move written on condition that the game row still names it), else in two: the
reads under the game's lock, then the writes and the commit.

This module only reads and writes: what the move does, or why it is refused, is decided by
``games.decisions``, as for the services' path. It writes the moves that go on with the game and
a 再来一局 that does not deal; a move that ends the game (and is settled) and the 再来一局 that
deals the next one are written by the services, which the caller then calls (these functions
return None for them, having written nothing).

What a move reads comes from what this process keeps of the table (``games.positions``) when
the game row, locked, names it; otherwise the rows are read with the lock, and the moves made
through another worker are read from the stored events and replayed.

The statements (``games.prepared``) go to the server together in psycopg's pipeline mode, and
psycopg prepares each of them once per connection (``TABLE_MOVES_PREPARED``): PostgreSQL then
parses and plans them once instead of at every move.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import os
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeVar, cast

import psycopg
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connections
from django.utils import timezone
from django.utils.translation import gettext as _
from psycopg.types.numeric import Int8BinaryDumper
from psycopg_pool import AsyncConnectionPool

from . import decisions, positions, services, thinking
from .decisions import AgainRead, GameRead, MovePlan
from .errors import GameActionRefused, TableRefused
from .frames import frames_of_table, render_player_frames
from .models import Game, GamePlayer, Seat, Table
from .positions import KnownGame
from .prepared import (
    ACTION_MADE,
    EVENTS_SINCE,
    GAME,
    GAME_PLAYERS,
    GAME_PLAYING_LOCKED,
    GAME_PLAYING_ROWS,
    LATEST_GAME,
    LATEST_GAME_PLAYERS,
    PLAYER,
    SEATED_BALANCES,
    TABLE_LOCKED,
    TABLE_SEATS,
    event_action,
    game_table_room,
    inserted,
    seats_with_users,
    table_room,
    update,
    update_and_insert,
)
from .presentation import presentation_for
from .selectors import (
    TableRows,
    game_events_wanted,
    game_state_after,
    game_state_kept,
)

logger = logging.getLogger(__name__)

Notices = list[tuple[str, dict[str, Any]]]
Connection = psycopg.AsyncConnection[Any]
Cursor = psycopg.AsyncCursor[Any]
Event = tuple[int, int, Any]
T = TypeVar("T")


def enabled() -> bool:
    """Moves are made on the event loop on PostgreSQL, unless ``TABLE_MOVES_ON_LOOP`` is off."""
    return bool(
        getattr(settings, "TABLE_MOVES_ON_LOOP", True)
        and connections["default"].vendor == "postgresql"
    )


class _LoopPool:
    """The pool of one event loop's connections (an asynchronous connection belongs to the loop
    it was opened on): at most ``TABLE_MOVES_CONNECTIONS``, opened as moves need them and kept
    open between moves. It remembers what it opened, to close it without the loop once the loop
    has closed."""

    def __init__(self) -> None:
        self.opened: weakref.WeakSet[Connection] = weakref.WeakSet()
        self.taken: set[Connection] = set()
        params = connections["default"].get_connection_params()
        # Parameters bound by the server (psycopg turns the statements' %s into $1 ...).
        params["cursor_factory"] = psycopg.AsyncCursor
        self.pool: AsyncConnectionPool[Connection] = AsyncConnectionPool(
            kwargs={**params, "autocommit": True},
            configure=self._configure,
            min_size=0,
            max_size=settings.TABLE_MOVES_CONNECTIONS,
            timeout=settings.DATABASE_POOL_TIMEOUT,
            open=False,
            name="table-moves",
        )

    async def _configure(self, conn: Connection) -> None:
        self.opened.add(conn)
        await _configure(conn)

    def idle(self) -> list[Connection]:
        return [conn for conn in self.opened if not conn.closed and conn not in self.taken]

    def close_now(self, *, taken_too: bool) -> None:
        """Close the pool's idle connections now, without the loop (which may have closed);
        those moves hold too when ``taken_too``."""
        for conn in list(self.opened):
            if taken_too or conn not in self.taken:
                _close_now(conn)


_by_loop: dict[asyncio.AbstractEventLoop, _LoopPool] = {}
# The pools being closed on their loops, kept until they are (a task needs a reference).
_closing: set[asyncio.Task[None]] = set()


def _close_now(conn: Connection) -> None:
    # Closes the socket at once, without the event loop (which a test may have closed).
    conn.pgconn.finish()


def _close_for_closed_loops() -> None:
    """Close the connections of event loops that were closed, and forget their pools."""
    for loop, held in list(_by_loop.items()):
        if loop.is_closed():
            held.close_now(taken_too=True)
            _by_loop.pop(loop, None)


def _close_on_its_loop(held: _LoopPool) -> None:
    task = asyncio.get_running_loop().create_task(held.pool.close())
    _closing.add(task)
    task.add_done_callback(_closing.discard)


def close_connections() -> None:
    """Close every idle connection of every event loop, and their pools (tests, before the
    database goes): a loop that makes a move again starts a new pool."""
    for loop, held in list(_by_loop.items()):
        _by_loop.pop(loop, None)
        held.close_now(taken_too=loop.is_closed())
        if not loop.is_closed():
            # The pool's own tasks run on its loop: it is closed there.
            loop.call_soon_threadsafe(_close_on_its_loop, held)


async def close_pool() -> None:
    """Close the running event loop's pool, on the loop (tests, before their loop closes: a pool
    that was opening a connection as its tasks were cancelled could keep the loop from closing
    on Python 3.11, whose ``asyncio.wait_for`` may swallow a cancellation)."""
    held = _by_loop.pop(asyncio.get_running_loop(), None)
    if held is not None:
        await held.pool.close()


def idle_connections(loop: asyncio.AbstractEventLoop | None = None) -> list[Connection]:
    """The open connections of ``loop``'s pool (the running loop's) that no move holds now."""
    held = _by_loop.get(loop or asyncio.get_running_loop())
    return [] if held is None else held.idle()


def _forget_after_fork() -> None:
    """In a forked child (a test's live server): the parent's pools are not its own, and
    closing their connections would end the parent's sessions on the sockets they share."""
    _inherited.extend(_by_loop.values())
    _by_loop.clear()
    _closing.clear()


_inherited: list[_LoopPool] = []
os.register_at_fork(after_in_child=_forget_after_fork)


def _prepares() -> bool:
    return bool(getattr(settings, "TABLE_MOVES_PREPARED", True))


async def _configure(conn: Connection) -> None:
    """Set up a new connection of a loop's pool for the moves' statements."""
    wrapper = connections["default"]
    timezone_name = wrapper.timezone_name
    if conn.info.parameter_status("TimeZone") != timezone_name:
        await conn.execute("SELECT set_config('TimeZone', %s, false)", [timezone_name])
    if _prepares():
        # Planned once: the parameters are keys (a table, a game), whose plans do not depend
        # on their values; without this the server plans each of the first five runs again.
        await conn.execute("SET plan_cache_mode = force_generic_plan")
    # Every statement prepared at its first run on the connection, or none (Django's own
    # connections prepare none, for the poolers that cannot keep them).
    conn.prepare_threshold = 0 if _prepares() else None
    # Every integer parameter is a key or a small count: one type for each, so that each
    # statement is prepared once, whatever the values.
    conn.adapters.register_dumper(int, Int8BinaryDumper)
    if wrapper.timezone is datetime.UTC:
        # Django's loader of times parses them in Python, to put its time zone on them; with
        # the session in UTC, psycopg's own (compiled) loader gives the very same values.
        timestamptz = psycopg.adapters.types["timestamptz"].oid
        loader = psycopg.adapters.get_loader(timestamptz, psycopg.pq.Format.TEXT)
        if loader is not None:
            conn.adapters.register_loader(timestamptz, loader)


async def _loop_pool() -> _LoopPool:
    """The running event loop's pool, opened at its first move."""
    loop = asyncio.get_running_loop()
    held = _by_loop.get(loop)
    if _by_loop and (held is None or len(_by_loop) > 1):
        # A loop that went (a test's, asgiref's for one call) cannot close its pool any more.
        _close_for_closed_loops()
    if held is None:
        held = _by_loop[loop] = _LoopPool()
        # Opening it starts its tasks on this loop; it connects as moves need connections.
        await held.pool.open()
    return held


@asynccontextmanager
async def _connection() -> AsyncIterator[Connection]:
    """One of the event loop's connections, not in a transaction; given back to its pool
    afterwards, with the transaction ended if what it was used for failed (closed if even that
    fails, or if it was cancelled mid-way: the pool then opens another)."""
    held = await _loop_pool()
    conn = await held.pool.getconn()
    held.taken.add(conn)
    try:
        yield conn
    except (psycopg.errors.InvalidSqlStatementName, psycopg.errors.FeatureNotSupported):
        # The session lost its prepared statements (a pooler in front handed over another
        # one), or a table they read changed its columns ("cached plan must not change result
        # type"): a new connection prepares them again.
        _close_now(conn)
        raise
    except Exception:
        try:
            await _end_failed(conn)
        except Exception:
            _close_now(conn)
        raise
    except BaseException:
        _close_now(conn)
        raise
    finally:
        held.taken.discard(conn)
        await held.pool.putconn(conn)


async def _end_failed(conn: Connection) -> None:
    """End the transaction of a move that failed, if one is still open."""
    if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        await conn.rollback()


@asynccontextmanager
async def _transaction(conn: Connection) -> AsyncIterator[None]:
    """One transaction of the statements run in this block, in psycopg's pipeline mode: each
    goes to the server as it is run, reading a result waits for those sent so far (one round
    trip), and the end of the block, however it ends, commits what was sent (a round trip
    more), or rolls it all back if a statement failed: writes are sent by ``_write``. In
    pipeline mode the transaction is implicit (PostgreSQL's extended protocol ends it at the
    pipeline's sync, not at each statement, and row locks are held until then): no BEGIN and no
    COMMIT to send, nor a ROLLBACK, after which psycopg would prepare every statement again."""
    async with conn.pipeline():
        yield


async def _run(conn: Connection, sql: str, params: Sequence[Any] = ()) -> Cursor:
    """Run ``sql`` on a cursor of its own (in a pipeline: send it; reading its rows waits for
    them)."""
    cursor = conn.cursor()
    await cursor.execute(sql, params)
    return cursor


async def _write(conn: Connection, statements: Sequence[tuple[str, list[Any]]]) -> Cursor:
    """Send the writes ``statements`` of a ``_transaction``, built beforehand; the first one's
    cursor. Should sending one of them fail, the connection is closed at once: the end of the
    transaction must not commit the ones sent before it."""
    try:
        cursors = [await _run(conn, sql, params) for sql, params in statements]
    except BaseException:
        _close_now(conn)
        raise
    return cursors[0]


async def _with_connection(run: Callable[[Connection], Awaitable[T]]) -> T:
    """``run`` on one of the loop's connections; once more on a new connection when the one
    taken had lost its prepared statements (a pooler in front handed over another session) or
    a table they read changed under them."""
    for attempt in (1, 2):
        try:
            async with _connection() as conn:
                return await run(conn)
        except (psycopg.errors.InvalidSqlStatementName, psycopg.errors.FeatureNotSupported):
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


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
    try:
        made = await _with_connection(
            lambda conn: _move_in(
                conn,
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
        if action_id:
            applied = await _with_connection(lambda conn: _action_made(conn, table_id, action_id))
            if applied:
                raise GameActionRefused("duplicate", "this action was applied already") from None
        raise
    if made is None:
        return None
    plan, read = made
    game, after, event = plan.game, plan.after, plan.event
    rows = plan.rows_after(read)
    # The frames offer the next player the bot's choice first: made off the loop.
    if presentation_for(read.engine.key).wants_bot_choice(after):
        await thinking.prepare_hint(read.engine, after)
    notice = services.table_notice(
        table_id=table_id,
        message={"kind": plan.kind, "game": game.pk, "number": event.number},
        frames=lambda: render_player_frames(table=game.table, rows=rows, state=after),
    )
    return [(services.table_group_name(table_id), notice)]


async def _action_made(conn: Connection, table_id: int, action_id: str) -> bool:
    """Whether an action with the id ``action_id`` is stored in the game being played at
    table ``table_id``."""
    cursor = await _run(conn, ACTION_MADE, [table_id, action_id])
    return await cursor.fetchone() is not None


def _shown(version: str | None) -> tuple[int, int, int] | None:
    """The table's version, the game and its number of events that the player's view shows
    (``table_version``), or None."""
    try:
        table_version, game_id, events = (int(part) for part in (version or "").split("."))
    except ValueError:
        return None
    return table_version, game_id, events


def _events_wanted(known: KnownGame | None, game_id: int, events: int | None) -> int | None:
    """From which number to read the stored events of game ``game_id`` with the lock, the
    player's view showing ``events`` of them (None: not known); None: none to read."""
    if known is not None and known.game.pk == game_id:
        have = int(known.state.log_length)
        if events is not None and events <= have:
            return None
        return have if known.last_event is not None else 0
    return 0 if events is None or events > 0 else None


#: Where the game row's position id is among ``GAME_PLAYING_ROWS``' columns.
_POSITION_ID = GAME.index("position_id")


class _Reads:
    """The rows of a table that a move reads with the game's lock when what this process keeps
    of the table is not what the game row names: the game row (with its table and room), the
    seats, the game's players (of ``game_id``, the game the player's view shows), the seated
    players' balances, and that game's events from ``since`` on. Sent in one round trip."""

    def __init__(self, game_id: int | None, since: int | None) -> None:
        self.game_id, self.since = game_id, since

    async def send(self, conn: Connection, table_id: int) -> None:
        self.game = await _run(conn, GAME_PLAYING_ROWS, [table_id])
        self.seats = await _run(conn, TABLE_SEATS, [table_id])
        self.balances = await _run(conn, SEATED_BALANCES, [table_id])
        game_id, since = self.game_id, self.since
        self.players = None if game_id is None else await _run(conn, GAME_PLAYERS, [game_id])
        self.events = (
            None
            if game_id is None or since is None
            else await _run(conn, EVENTS_SINCE, [game_id, since])
        )


async def _move_in(
    conn: Connection,
    *,
    user: Any,
    table_id: int,
    action: dict[str, Any],
    version: str | None,
    action_id: str,
) -> tuple[MovePlan, GameRead] | None:
    # When the player's view shows what this process keeps of the table, the move is decided
    # on the kept rows and written in one statement on condition that the game row still names
    # them. Otherwise, and for anything but a move written so, two round trips: the
    # transaction begun with the game row locked, then the move written and committed. The
    # lock reads the row's position id only when the player's view showed the kept rows, and
    # the rest is the kept rows if the row names them; otherwise the rows are read with the
    # lock (and in a round trip more when the row names something else than the view showed).
    known = positions.known(table_id)
    shown = _shown(version)
    confident = (
        known is not None
        and known.complete
        and known.table is not None
        and shown == (known.table.version, known.game.pk, known.state.log_length)
    )
    if confident:
        assert known is not None
        made = await _move_on_kept(
            conn, known, user=user, action=action, version=version, action_id=action_id
        )
        if made is not _UNDECIDED:
            return cast("tuple[MovePlan, GameRead] | None", made)
    reads: _Reads | None = None
    locked: Cursor | None = None
    async with _transaction(conn):
        if confident:
            locked = await _run(conn, GAME_PLAYING_LOCKED, [table_id])
        else:
            game_id = shown[1] if shown is not None else None
            events = shown[2] if shown is not None else None
            since = None if game_id is None else _events_wanted(known, game_id, events)
            reads = _Reads(game_id, since)
            await reads.send(conn, table_id)
        read: GameRead | None = None
        if locked is not None:
            found = await locked.fetchone()
            # What this process keeps of the table now: another move here may have made it
            # while this one waited for the lock.
            known = positions.known(table_id)
            if (
                found is not None
                and known is not None
                and known.complete
                and tuple(found) == (known.game.pk, known.game.position_id)
            ):
                read = _read_kept(known)
            else:
                game_id = None if found is None else found[0]
                since = None if game_id is None else _events_wanted(known, game_id, None)
                reads = _Reads(game_id, since)
                await reads.send(conn, table_id)
        if read is None:
            assert reads is not None
            read = await _read(conn, reads, table_id=table_id, user_id=user.pk)
        try:
            plan = _player_move(
                read, user=user, action=action, version=version, action_id=action_id
            )
        except GameActionRefused:
            # A resend of a made action comes late (the version moved on) or out of turn: the
            # id says what happened, and it is looked up only then.
            if action_id and await _action_made(conn, table_id, action_id):
                raise GameActionRefused("duplicate", "this action was applied already") from None
            raise
        if plan.ends:
            return None  # the services write the end of a game, with its settlement
        # The values come from the decisions and the engine; the database's constraints
        # guard what they could get wrong (the event's number, unique and from 1).
        writes = [update_and_insert(plan.game, plan.fields, plan.event)]
        writes += [update(seat, fields) for seat, fields in plan.seats]
        written = await _write(conn, writes)
    stored = await written.fetchone()
    if stored is None:
        raise RuntimeError(f"the move at table {table_id} wrote no event")
    _committed(plan, read, stored[0])
    return plan, read


def _player_move(
    read: GameRead, *, user: Any, action: dict[str, Any], version: str | None, action_id: str
) -> MovePlan:
    """``decisions.player_move`` of ``user``'s intent on what was ``read``, now."""
    return decisions.player_move(
        read,
        user_id=user.pk,
        action=action,
        version=version,
        action_id=action_id,
        now=timezone.now(),
    )


#: What ``_move_on_kept`` returns when the move is to be decided again under the game's lock.
_UNDECIDED: Any = object()


async def _move_on_kept(
    conn: Connection,
    known: KnownGame,
    *,
    user: Any,
    action: dict[str, Any],
    version: str | None,
    action_id: str,
) -> Any:
    """The move decided on what this process keeps of the table (``known``, complete) and
    written in one statement (its own transaction) if the game row still names it: the plan and
    what was read; None when the move ends the game (the services write it, under the lock);
    ``_UNDECIDED`` when it is to be decided again under the lock: the row names another
    position now, or the decision refuses the move or changes seats (rare, and told exactly
    only from the rows as they are)."""
    read = _read_kept(known)
    try:
        plan = _player_move(read, user=user, action=action, version=version, action_id=action_id)
    except GameActionRefused:
        return _UNDECIDED
    if plan.ends:
        return None
    if plan.seats:
        return _UNDECIDED
    written = await _write(
        conn,
        [
            update_and_insert(
                plan.game,
                plan.fields,
                plan.event,
                unless_changed=("position_id", known.game.position_id),
            )
        ],
    )
    stored = await written.fetchone()
    if stored is None:
        return _UNDECIDED  # another move (or a seat's change) came first
    _committed(plan, read, stored[0])
    return plan, read


def _committed(plan: MovePlan, read: GameRead, event_id: int) -> None:
    """Keep what the committed move ``plan`` left (its event stored as ``event_id``) for the
    table's next move."""
    event = plan.event
    inserted(event, event_id)
    positions.remember(
        KnownGame(
            game=plan.game,
            state=plan.after,
            last_event=(event.pk, event.seat, event.action),
            table=plan.game.table,
            seats=plan.rows_after(read).seats,
            players=read.players,
            balances=read.balances,
        )
    )


def _read_kept(known: KnownGame) -> GameRead:
    """What a move reads, all of it kept by this process (``known`` is complete)."""
    assert known.seats is not None and known.players is not None and known.balances is not None
    return GameRead(
        game=known.game,
        seats=known.seats,
        players=known.players,
        balances=known.balances,
        state=known.state,
    )


async def _read(conn: Connection, reads: _Reads, *, table_id: int, user_id: int) -> GameRead:
    """What a move at table ``table_id`` reads, from ``reads`` (sent with the lock), from what
    this process keeps of the table where the game row names it, and from a read more when
    they lack something; kept for the next move (the rows were read under the lock)."""
    rows = await reads.game.fetchall()
    known = positions.known(table_id)
    seat_rows = await reads.seats.fetchall()
    if not rows:
        seated = any(seat.user_id == user_id for seat in seats_with_users(seat_rows))
        raise decisions.no_game_refusal(seated=seated)
    row = rows[0]
    if (
        known is not None
        and known.complete
        and (row[GAME.key], row[_POSITION_ID]) == (known.game.pk, known.game.position_id)
    ):
        return _read_kept(known)
    game = game_table_room(row)
    table: Table = game.table
    seats = seats_with_users(seat_rows, table)
    balances: dict[int, int] = dict(await reads.balances.fetchall())
    players: dict[int, GamePlayer] | None = None
    if reads.players is not None and reads.game_id == game.pk:
        players = _players_by_seat(await reads.players.fetchall())
    state: Any | None = None
    last_event: Event | None = None
    since: int | None = None  # the number of the first event still to read
    if known is not None and known.names(game):
        state, last_event = known.state, known.last_event
    else:
        since = game_events_wanted(game=game)
        if (
            reads.events is not None
            and reads.game_id == game.pk
            and reads.since is not None
            and reads.since <= since
        ):
            events = _events_from(await reads.events.fetchall(), since)
            replayed = game_state_after(game=game, events=events, since=since)
            if replayed is not None:
                (state, last_event), since = replayed, None
            else:
                since = 0  # not the known position's game any more: from the deal
    if players is None or since is not None:
        # What the reads with the lock did not hold: the game is not the one the player's view
        # showed, or the events read do not go on from the position this process knows.
        more_players = None if players is not None else await _run(conn, GAME_PLAYERS, [game.pk])
        more_events = None if since is None else await _run(conn, EVENTS_SINCE, [game.pk, since])
        if more_players is not None:
            players = _players_by_seat(await more_players.fetchall())
        if more_events is not None:
            assert since is not None
            state, last_event = await _replayed(
                conn, game, _events_from(await more_events.fetchall(), since), since
            )
    assert players is not None and state is not None
    positions.remember(
        KnownGame(
            game=game,
            state=state,
            last_event=last_event,
            table=table,
            seats=seats,
            players=players,
            balances=balances,
        )
    )
    return GameRead(game=game, seats=seats, players=players, balances=balances, state=state)


def _players_by_seat(rows: Sequence[Sequence[Any]]) -> dict[int, GamePlayer]:
    return {player.seat: player for player in PLAYER.build_all(rows)}


def _events_from(rows: Sequence[Sequence[Any]], since: int) -> list[Event]:
    """The events (``id``, ``seat``, ``action``) of ``EVENTS_SINCE``'s ``rows`` from number
    ``since`` on."""
    return [
        (event_id, seat, event_action(action))
        for event_id, number, seat, action in rows
        if number >= since
    ]


async def _replayed(
    conn: Connection, game: Game, events: list[Event], since: int
) -> tuple[Any, Event | None]:
    """The position after ``events`` (``game``'s, from number ``since``), or, when they do not
    go on from the position this process knows, after all the game's events, read now."""
    replayed = game_state_after(game=game, events=events, since=since)
    if replayed is None and since:
        cursor = await _run(conn, EVENTS_SINCE, [game.pk, 0])
        replayed = game_state_after(
            game=game, events=_events_from(await cursor.fetchall(), 0), since=0
        )
    if replayed is None:
        raise RuntimeError(f"game {game.pk}: its stored events do not replay")
    return replayed


async def _state_of(conn: Connection, game: Game) -> Any:
    """The position ``game``'s row names: the one this process keeps, or, after moves made
    elsewhere (another worker's sockets), the kept one with their events read now (after the
    row) and replayed."""
    state = game_state_kept(game=game)
    if state is not None:
        return state
    since = game_events_wanted(game=game)
    cursor = await _run(conn, EVENTS_SINCE, [game.pk, since])
    state, last_event = await _replayed(
        conn, game, _events_from(await cursor.fetchall(), since), since
    )
    positions.remember_read(KnownGame(game=game, state=state, last_event=last_event))
    return state


# 再来一局 ----------------------------------------------------------------------------------------


async def table_again(*, user: Any, table_id: int) -> Notices | None:
    """``user``'s 再来一局 at table ``table_id``, made on the event loop: the notices of what
    it committed. None when ``decisions.again`` found that it deals the next game: nothing was
    written, and ``services.table_play_again`` makes it with the deal. Raises
    ``TableRefused`` for what the decision refuses (nothing was written)."""
    made = await _with_connection(lambda conn: _again_in(conn, user=user, table_id=table_id))
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


async def _again_in(conn: Connection, *, user: Any, table_id: int) -> Any:
    # Two round trips, as a move: the table locked with its room, its seats with their
    # players, its latest game, that game's players and the seated players' balances; then the
    # seat and the table written and committed.
    async with _transaction(conn):
        tables = await _run(conn, TABLE_LOCKED, [table_id])
        seat_rows = await _run(conn, TABLE_SEATS, [table_id])
        games = await _run(conn, LATEST_GAME, [table_id])
        player_rows = await _run(conn, LATEST_GAME_PLAYERS, [table_id])
        balance_rows = await _run(conn, SEATED_BALANCES, [table_id])
        table_row = await tables.fetchone()
        if table_row is None:
            raise TableRefused("not_seated", _("You are not sitting at this table."))
        table = table_room(table_row)
        seats = seats_with_users(await seat_rows.fetchall())
        last = GAME.build_all(await games.fetchall())
        latest = last[0] if last else None
        players = PLAYER.build_all(await player_rows.fetchall())
        balances: dict[int, int] = dict(await balance_rows.fetchall())
        plan = decisions.again(
            AgainRead(table=table, seats=seats, last=latest, balance=balances.get(user.pk)),
            user_id=user.pk,
        )
        if plan.seat is None:
            return _UNCHANGED  # ready already: nothing changes
        if plan.deals:
            return None  # the services deal the next game
        seats = [plan.seat if row.pk == plan.seat.pk else row for row in seats]
        for row in seats:
            row.table = table
        closes = decisions.table_change_planned(table=table, seats=seats)
        assert not closes, "a table with a player at it stays open"
        await _write(
            conn, [update(plan.seat, ["ready"]), update(table, decisions.TABLE_CHANGE_FIELDS)]
        )
    players_by_seat = {player.seat: player for player in players}
    rows = TableRows(seats=seats, game=latest, players=players_by_seat, balances=balances)
    # The frames show the game that ended, rendered from these rows when they hold all the
    # frames need: every player of that game still in their seat, and the room still admitting
    # every seated player (a refusal's text reads the other rooms).
    by_position: dict[int, Seat] = {row.position: row for row in seats}
    if (
        latest is None
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
    return table, rows, await _state_of(conn, latest)
