"""A player's move made on the event loop (games.loop_moves), on PostgreSQL: it stores what the
services store, and leaves every move it does not make plainly to them, having written nothing.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from channels.layers import channel_layers
from django.db import connection, connections, transaction
from django.test import override_settings

from accounts.models import User
from games import frames, loop_moves, positions, prepared, selectors, services
from games.errors import GameActionRefused, TableRefused
from games.models import Game, GameEvent, Seat, Table
from games.positions import KnownGame
from games.rules import parse_cards
from games.rules.gandengyan.moves import move_from_json
from games.selectors import game_state, table_version

from .helpers import make_player, make_room, play_out, start_from_position
from .live import connect, intent, receive_frames_until

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="moves are made on the event loop on PostgreSQL"
    ),
]

HANDS = ["3s 4s 5s 9h 4d", "6h 7h Kd 5c", "8c 9c Qc 6c"]
STOCK = "Ah As Ac Ad 2s 2h 7s 7c"


@pytest_asyncio.fixture(autouse=True)
async def _close_connections() -> AsyncIterator[None]:
    """The test database is dropped at the end: Channels' own thread keeps a connection."""
    yield
    await database_sync_to_async(connections.close_all)()


def _table_at_a_position(hands: list[str] = HANDS) -> tuple[list[User], Table, Game]:
    room = make_room()
    users = [make_player(name) for name in ("a", "b", "c")]
    table = Table.objects.create(room=room)
    for position, user in enumerate(users):
        table.seats.create(position=position, user=user, ready=True)
    game = start_from_position(table=table, players=users, hands=hands, stock=STOCK, dealer=0)
    # What the process keeps of a game it dealt: its position, players and balances.
    selectors.game_position_remember(game=game, state=game_state(game=game), event=None)
    selectors.table_rows(table=Table.objects.get(pk=table.pk))
    return users, table, game


def _version(table: Table) -> str:
    table.refresh_from_db()
    return table_version(table=table)


def _stored(game: Game) -> list[tuple[Any, ...]]:
    return list(
        GameEvent.objects.filter(game=game)
        .order_by("number")
        .values_list("number", "seat", "action", "source", "action_id")
    )


def _game_row(game: Game) -> tuple[Any, ...]:
    game.refresh_from_db()
    return (game.status, game.to_move, game.position_id, game.turn_deadline)


async def _move(user: User, table: Table, action: dict[str, Any], **extra: Any) -> Any:
    return await loop_moves.table_move(
        user=user,
        table_id=table.pk,
        action=action,
        version=extra.get("version", await database_sync_to_async(_version)(table)),
        action_id=extra.get("action_id", "loop-move-0001"),
    )


async def test_a_move_is_stored_as_the_services_store_it_and_its_notice_carries_the_frames() -> (
    None
):
    users, table, game = await database_sync_to_async(_table_at_a_position)()
    before = await database_sync_to_async(_game_row)(game)

    notices = await _move(users[0], table, {"play": "3s 4s 5s"})

    assert notices is not None
    assert await database_sync_to_async(_stored)(game) == [
        (1, 0, {"play": "3s 4s 5s"}, GameEvent.Source.PLAYER, "loop-move-0001")
    ]
    status, to_move, position_id, deadline = await database_sync_to_async(_game_row)(game)
    assert (status, to_move) == (Game.Status.PLAYING, 1)
    assert position_id != before[2] and deadline is not None and deadline != before[3]
    # The process keeps the new position, and it is the one the stored events make.
    kept = selectors.game_state_kept(
        game=await database_sync_to_async(Game.objects.get)(pk=game.pk)
    )
    assert kept is not None and kept.log_length == 1 and kept.to_move == 1
    ((group, notice),) = notices
    assert group == services.table_group_name(table.pk)
    assert notice["kind"] == "action" and notice["number"] == 1
    assert notice["version"] == await database_sync_to_async(_version)(table)
    # Each player's frame shows that player's own cards only.
    for seat, user in enumerate(users):
        frame = notice["frames"][str(user.pk)]
        for other, hand in enumerate(HANDS):
            for card in parse_cards(hand):
                if other != seat and card not in parse_cards("3s 4s 5s"):
                    assert f'data-card="{card}"' not in frame


async def test_the_next_move_goes_on_from_the_position_the_loop_kept() -> None:
    users, table, game = await database_sync_to_async(_table_at_a_position)()
    assert await _move(users[0], table, {"play": "3s 4s 5s"}) is not None
    assert await _move(users[1], table, {"pass": True}, action_id="loop-move-0002") is not None
    assert await _move(users[2], table, {"pass": True}, action_id="loop-move-0003") is not None
    stored = await database_sync_to_async(_stored)(game)
    assert [(number, seat) for number, seat, *_ in stored] == [(1, 0), (2, 1), (3, 2)]
    # The services replay the stored events to the same position.
    positions.clear()
    row = await database_sync_to_async(Game.objects.get)(pk=game.pk)
    replayed = await database_sync_to_async(game_state)(game=row)
    assert replayed.to_move == 0 and replayed.table is None


@pytest.mark.parametrize(
    ("seat", "action", "code"),
    [
        (1, {"play": "6h"}, "not_your_turn"),
        (0, {"play": "3s 9h"}, "not_a_combination"),
        (0, {"play": "6h"}, "cards_not_in_hand"),
        (0, {"pass": True}, "leader_must_play"),
    ],
)
async def test_a_move_the_engine_refuses_is_refused_on_the_loop_and_writes_nothing(
    seat: int, action: dict[str, Any], code: str
) -> None:
    users, table, game = await database_sync_to_async(_table_at_a_position)()
    before = await database_sync_to_async(_game_row)(game)
    with pytest.raises(GameActionRefused) as refused:
        await _move(users[seat], table, action)
    assert refused.value.code == code
    assert await database_sync_to_async(_stored)(game) == []
    assert await database_sync_to_async(_game_row)(game) == before


async def test_a_move_chosen_on_an_older_view_is_refused_as_stale() -> None:
    users, table, game = await database_sync_to_async(_table_at_a_position)()
    old = await database_sync_to_async(_version)(table)
    assert await _move(users[0], table, {"play": "3s 4s 5s"}) is not None
    with pytest.raises(GameActionRefused) as refused:
        await _move(users[1], table, {"pass": True}, version=old, action_id="loop-move-0002")
    assert refused.value.code == "stale"
    assert len(await database_sync_to_async(_stored)(game)) == 1


async def test_a_repeated_action_id_writes_nothing_and_the_connection_goes_on() -> None:
    users, table, game = await database_sync_to_async(_table_at_a_position)()
    assert await _move(users[0], table, {"play": "3s 4s 5s"}, action_id="same-id-0001") is not None
    # A resend with the current version: the database's unique action id per game refuses it.
    with pytest.raises(GameActionRefused) as refused:
        await _move(users[1], table, {"pass": True}, action_id="same-id-0001")
    assert refused.value.code == "duplicate"
    assert len(await database_sync_to_async(_stored)(game)) == 1
    # A resend with the version it was chosen on comes late: the id says it was made.
    with pytest.raises(GameActionRefused) as refused:
        await _move(users[0], table, {"play": "3s 4s 5s"}, action_id="same-id-0001")
    assert refused.value.code == "duplicate"
    assert await _move(users[1], table, {"pass": True}, action_id="other-id-0002") is not None
    assert len(await database_sync_to_async(_stored)(game)) == 2


async def test_a_player_not_seated_is_refused() -> None:
    users, table, game = await database_sync_to_async(_table_at_a_position)()
    stranger = await database_sync_to_async(make_player)("stranger")
    with pytest.raises(GameActionRefused) as refused:
        await _move(stranger, table, {"play": "3s 4s 5s"})
    assert refused.value.code == "not_seated"
    assert await database_sync_to_async(_stored)(game) == []


def _statements_run(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The statements the loop runs from now on, as they are sent."""
    sent: list[str] = []
    run = loop_moves._run

    async def recorded(conn: Any, sql: str, params: Any = ()) -> Any:
        sent.append(sql)
        return await run(conn, sql, params)

    monkeypatch.setattr(loop_moves, "_run", recorded)
    return sent


@pytest.mark.parametrize("known", ["nothing", "an older position"])
async def test_moves_made_in_another_process_are_read_and_replayed_under_the_lock(
    known: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that made the game's last move but one reads the move it did not see with the
    lock, in the same round trip, and replays it; one that knows nothing of the game reads its
    events and rows there too."""
    users, table, game = await database_sync_to_async(_table_at_a_position)()
    assert await _move(users[0], table, {"play": "3s 4s 5s"}) is not None
    if known == "nothing":
        positions.clear()  # as in a process that has not seen the game yet
    # Another worker's socket makes the next move: this process does not see its position.
    await database_sync_to_async(_move_elsewhere)(users[1], table, {"pass": True})
    sent = _statements_run(monkeypatch)
    notices = await _move(users[2], table, {"pass": True}, action_id="loop-move-0003")
    assert notices is not None
    stored = await database_sync_to_async(_stored)(game)
    assert [(number, seat, action) for number, seat, action, *_ in stored] == [
        (1, 0, {"play": "3s 4s 5s"}),
        (2, 1, {"pass": True}),
        (3, 2, {"pass": True}),
    ]
    kept = selectors.game_state_kept(
        game=await database_sync_to_async(Game.objects.get)(pk=game.pk)
    )
    assert kept is not None and kept.log_length == 3 and kept.to_move == 0 and kept.table is None
    # The reads with the lock in one round trip, then the move written and committed.
    assert sent[0] == prepared.GAME_PLAYING_ROWS and sent[-1].startswith("WITH updated AS")
    assert sent.count(prepared.EVENTS_SINCE) == 1 and sent.count(prepared.GAME_PLAYERS) == 1
    assert len(sent) == 6


async def test_a_game_dealt_in_another_process_reads_its_rows_with_the_lock_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The worker that deals a game keeps its players; another worker's socket reads the rows
    under the lock at its first move there, and its frames show what the ORM reads; its next
    move there is written in one statement, on condition that the row still names the position
    that move left."""
    users, table, game = await database_sync_to_async(_table_at_a_position)()
    positions.clear()
    sent = _statements_run(monkeypatch)
    notices = await _move(users[0], table, {"play": "3s 4s 5s"})
    assert notices is not None
    ((_group, notice),) = notices
    assert notice["frames"] == (await database_sync_to_async(_frames_now)(table))["frames"]
    kept = positions.known(table.pk)
    assert kept is not None and kept.complete and kept.players is not None
    assert sorted(kept.players) == [0, 1, 2]
    assert kept.balances is not None and set(kept.balances) == {user.pk for user in users}
    assert prepared.GAME_PLAYING_ROWS in sent and prepared.GAME_PLAYERS in sent
    sent.clear()
    assert await _move(users[1], table, {"pass": True}, action_id="loop-move-0002") is not None
    assert len(sent) == 1 and sent[0].startswith("WITH updated AS") and "position_id" in sent[0]


async def test_a_move_on_kept_rows_that_another_process_moved_past_is_refused_under_the_lock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """This process keeps the position its last move left; another worker's socket moves on
    from it. A player who chose on the kept position is told the table changed, from the rows
    read under the lock, and nothing of theirs is stored."""
    users, table, game = await database_sync_to_async(_table_at_a_position)()
    assert await _move(users[0], table, {"play": "3s 4s 5s"}) is not None
    chosen_on = await database_sync_to_async(_version)(table)
    await database_sync_to_async(_move_elsewhere)(users[1], table, {"pass": True})
    sent = _statements_run(monkeypatch)
    with pytest.raises(GameActionRefused) as refused:
        # Seat 1 moved already: the kept position still has it to move.
        await _move(users[1], table, {"pass": True}, version=chosen_on, action_id="late-0002")
    assert refused.value.code == "stale"
    # Written on condition first, which wrote nothing; then the lock and the rows read anew.
    assert sent[0].startswith("WITH updated AS") and sent[1] == prepared.GAME_PLAYING_LOCKED
    stored = await database_sync_to_async(_stored)(game)
    assert [(number, seat, action_id) for number, seat, _a, _s, action_id in stored] == [
        (1, 0, "loop-move-0001"),
        (2, 1, ""),
    ]


def _move_elsewhere(user: User, table: Table, action: dict[str, Any]) -> None:
    """``user``'s move through the services, what this process keeps of the table left as it
    was."""
    known = positions.known(table.pk)
    services.table_game_act(user=user, table=table, action=action, version=_version(table))
    positions.clear()
    if known is not None:
        positions.remember(known)


async def test_the_move_that_ends_the_game_is_left_to_the_services_which_settle_it() -> None:
    hands = ["3s", "6h 7h Kd 5c", "8c 9c Qc 6c"]
    users, table, game = await database_sync_to_async(_table_at_a_position)(hands)
    assert await _move(users[0], table, {"play": "3s"}) is None
    assert await database_sync_to_async(_stored)(game) == []
    # The services make it, and settle the game.
    await database_sync_to_async(services.table_game_act)(
        user=users[0],
        table=table,
        action={"play": "3s"},
        version=await database_sync_to_async(_version)(table),
    )
    row = await database_sync_to_async(Game.objects.get)(pk=game.pk)
    assert row.status == Game.Status.FINISHED and row.settled_at is not None


async def test_the_setting_turns_moves_on_the_loop_off(settings: Any) -> None:
    assert loop_moves.enabled()
    settings.TABLE_MOVES_ON_LOOP = False
    assert not loop_moves.enabled()


async def _prepared_on_the_loop() -> dict[str, str]:
    """The statements prepared on the loop's idle connections, by name (the pool may have opened
    one ahead, to replace one it closed)."""
    prepared_now: dict[str, str] = {}
    for conn in loop_moves.idle_connections():
        cursor = conn.cursor()
        await cursor.execute("SELECT name, statement FROM pg_prepared_statements")
        prepared_now.update(await cursor.fetchall())
    return prepared_now


async def test_psycopg_prepares_each_statement_once_per_connection() -> None:
    users, table, game = await database_sync_to_async(_table_at_a_position)()
    assert await _move(users[0], table, {"play": "3s 4s 5s"}) is not None
    assert await _move(users[1], table, {"pass": True}, action_id="loop-move-0002") is not None
    prepared_now = await _prepared_on_the_loop()
    assert prepared_now and all(name.startswith("_pg3_") for name in prepared_now)
    statements = list(prepared_now.values())
    assert len(set(statements)) == len(statements)  # each once
    # The first move read the rows with the lock and wrote; the second, on the rows the first
    # left, wrote on condition that the row still named them.
    for sql in (prepared.GAME_PLAYING_ROWS, prepared.TABLE_SEATS):
        assert sum(sql.split(" %s")[0] in text for text in statements) == 1
    writes = [text for text in statements if text.startswith("WITH updated AS")]
    assert len(writes) == 2 and sum('AND "position_id" = $' in text for text in writes) == 1
    assert await _move(users[2], table, {"pass": True}, action_id="loop-move-0003") is not None
    assert await _prepared_on_the_loop() == prepared_now
    assert len(await database_sync_to_async(_stored)(game)) == 3


async def test_a_session_that_lost_its_statements_is_replaced_and_the_move_made_on_a_new_one() -> (
    None
):
    """Behind a pooler that hands out another session, the statements psycopg prepared are
    unknown: the connection is closed, and the move is made again on a new one, which prepares
    them."""
    users, table, game = await database_sync_to_async(_table_at_a_position)()
    assert await _move(users[0], table, {"play": "3s 4s 5s"}) is not None
    # The second move prepares the write on condition, which the third sends again.
    assert await _move(users[1], table, {"pass": True}, action_id="loop-move-0002") is not None
    (conn,) = loop_moves.idle_connections()
    conn.pgconn.exec_(b"DEALLOCATE ALL")  # behind psycopg's back, as a pooler would
    assert await _move(users[2], table, {"pass": True}, action_id="loop-move-0003") is not None
    assert conn.closed
    assert await _prepared_on_the_loop()
    assert len(await database_sync_to_async(_stored)(game)) == 3


async def test_with_prepared_statements_off_the_moves_prepare_none(settings: Any) -> None:
    settings.TABLE_MOVES_PREPARED = False
    users, table, game = await database_sync_to_async(_table_at_a_position)()
    assert await _move(users[0], table, {"play": "3s 4s 5s"}) is not None
    assert await _move(users[1], table, {"pass": True}, action_id="loop-move-0002") is not None
    assert await _prepared_on_the_loop() == {}
    assert len(await database_sync_to_async(_stored)(game)) == 2


async def test_a_move_whose_writes_could_not_all_be_sent_writes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The end of the move's transaction commits what was sent: when a write cannot be sent,
    the connection is closed first, and the server rolls the others back."""
    users, table, game = await database_sync_to_async(_table_at_a_position)()
    await database_sync_to_async(Seat.objects.filter(table=table, position=0).update)(timeouts=1)
    before = await database_sync_to_async(_game_row)(game)
    run = loop_moves._run
    used: list[Any] = []

    async def failing(conn: Any, sql: str, params: Any = ()) -> Any:
        used.append(conn)
        if sql.startswith('UPDATE "games_seat"'):
            raise RuntimeError("the seat's write could not be sent")
        return await run(conn, sql, params)

    monkeypatch.setattr(loop_moves, "_run", failing)
    with pytest.raises(RuntimeError, match="could not be sent"):
        await _move(users[0], table, {"play": "3s 4s 5s"})
    assert await database_sync_to_async(_stored)(game) == []
    assert await database_sync_to_async(_game_row)(game) == before
    # Closed, not given back to the pool for the next move.
    assert used[-1].closed and used[-1] not in loop_moves.idle_connections()


async def test_a_refused_move_keeps_the_statements_prepared() -> None:
    """A move that wrote nothing ends its transaction without a rollback, after which psycopg
    would prepare every statement again."""
    users, table, game = await database_sync_to_async(_table_at_a_position)()
    assert await _move(users[0], table, {"play": "3s 4s 5s"}) is not None
    before = await _prepared_on_the_loop()
    with pytest.raises(GameActionRefused):
        await _move(users[2], table, {"pass": True}, action_id="loop-move-0002")
    after = await _prepared_on_the_loop()
    assert after.items() >= before.items()  # none dropped, none prepared again


async def test_a_socket_makes_a_plain_move_on_the_loop_and_every_seat_sees_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    channel_layers.backends.clear()
    users, table, game = await database_sync_to_async(_table_at_a_position)()
    made_by_services: list[dict[str, Any]] = []
    through_services = services.table_game_act

    def counted(**kwargs: Any) -> Any:
        made_by_services.append(kwargs["action"])
        return through_services(**kwargs)

    monkeypatch.setattr(services, "table_game_act", counted)
    with override_settings(TABLE_RUNNER_IN_PROCESS=False, TABLE_MESSAGE_RATE="1000/second"):
        sockets = [await connect(user, table.pk) for user in users]
        try:
            version = await database_sync_to_async(_version)(table)
            for seat, socket in enumerate(sockets):
                await receive_frames_until(socket, seat=seat, version=version)
            await sockets[0].send_to(text_data=intent("play", cards="3s 4s 5s", version=version))
            moved = version.rsplit(".", 1)[0] + ".1"  # one event more
            for seat, socket in enumerate(sockets):
                frames = await receive_frames_until(socket, seat=seat, version=moved)
                assert 'data-card="3s"' in frames[-1]
            # A play the engine refuses goes to the services, which tell the player why.
            await sockets[1].send_to(text_data=intent("play", cards="Kd", version=moved))
            assert "不" in await sockets[1].receive_from(timeout=10)
        finally:
            for socket in sockets:
                await socket.disconnect()
    assert made_by_services == []
    assert len(await database_sync_to_async(_stored)(game)) == 1


async def test_the_rows_read_on_the_loop_are_the_rows_the_orm_reads() -> None:
    users, table, game = await database_sync_to_async(_table_at_a_position)()
    async with loop_moves._connection() as conn:
        async with loop_moves._transaction(conn):
            game_rows = await loop_moves._run(conn, prepared.GAME_PLAYING_ROWS, [table.pk])
            seat_rows = await loop_moves._run(conn, prepared.TABLE_SEATS, [table.pk])
        on_loop = [prepared.game_table_room(row) for row in await game_rows.fetchall()]
        on_loop += prepared.seats_with_users(await seat_rows.fetchall())
    by_orm = await database_sync_to_async(_read_by_the_orm)(table.pk)
    assert [_fields(row) for row in on_loop] == [_fields(row) for row in by_orm]
    times = [value for row in on_loop for value in _values(_fields(row))]
    assert any(isinstance(value, datetime) for value in times)
    for value in times:
        if isinstance(value, datetime):
            assert value.tzinfo is UTC


def _read_by_the_orm(table_id: int) -> list[Any]:
    with transaction.atomic():
        return [
            *Game.objects.select_for_update(of=("self",))
            .select_related("table__room")
            .filter(table_id=table_id, status=Game.Status.PLAYING),
            *Seat.objects.select_related("user").filter(table_id=table_id).order_by("position"),
        ]


def _fields(row: Any) -> dict[str, Any]:
    values = {field.attname: getattr(row, field.attname) for field in row._meta.concrete_fields}
    for name in ("table", "room", "user"):  # the related rows read with it
        related = getattr(row, name, None) if name in row._state.fields_cache else None
        if related is not None:
            values[name] = _fields(related)
    return values


def _values(fields: dict[str, Any]) -> list[Any]:
    """The values of ``_fields``, those of its related rows too."""
    found = []
    for value in fields.values():
        found += _values(value) if isinstance(value, dict) else [value]
    return found


async def test_the_next_move_takes_the_rows_this_move_left_without_reading_them_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    users, table, game = await database_sync_to_async(_table_at_a_position)()
    assert await _move(users[0], table, {"play": "3s 4s 5s"}) is not None
    kept = positions.known(table.pk)
    assert kept is not None and kept.complete
    # The game row as the move left it is the row as stored, its table and room too.
    stored = await database_sync_to_async(_read_by_the_orm)(table.pk)
    assert _fields(stored[0]) == _fields(kept.game)
    seats = [{**_fields(seat), "table": None} for seat in kept.seats or []]
    assert [{**_fields(seat), "table": None} for seat in stored[1:]] == seats
    # So the next move here is written on condition that the row still names them, and builds
    # no row.
    built: list[int] = []
    build = prepared.GAME.build

    def counted(row: Any, start: int = 0) -> Any:
        built.append(start)
        return build(row, start)

    monkeypatch.setattr(prepared.GAME, "build", counted)
    sent = _statements_run(monkeypatch)
    assert await _move(users[1], table, {"pass": True}, action_id="loop-move-0002") is not None
    assert built == []
    assert len(sent) == 1 and sent[0].startswith("WITH updated AS")
    stored_events = await database_sync_to_async(_stored)(game)
    assert [(number, seat) for number, seat, *_ in stored_events] == [(1, 0), (2, 1)]


async def test_a_seat_changed_during_the_game_is_read_again_at_the_next_move() -> None:
    """托管 changes a seat without a move: the row's new position id tells the next move on the
    loop that what it keeps of the table is not the table as it is now."""
    users, table, game = await database_sync_to_async(_table_at_a_position)()
    assert await _move(users[0], table, {"play": "3s 4s 5s"}) is not None
    await database_sync_to_async(services.table_set_auto_play)(user=users[2], table=table, on=True)
    notices = await _move(users[1], table, {"pass": True}, action_id="loop-move-0002")
    assert notices is not None
    kept = positions.known(table.pk)
    assert kept is not None and kept.seats is not None
    assert [seat.auto_play for seat in kept.seats] == [False, False, True]
    ((_group, notice),) = notices
    assert notice["frames"] == (await database_sync_to_async(_frames_now)(table))["frames"]


async def test_the_connections_of_a_loop_that_ends_are_closed() -> None:
    """asgiref runs each call from a thread on a loop of its own: the connections such a loop
    opened must not stay open after it (a test making thousands of calls ran out of them)."""
    users, table, game = await database_sync_to_async(_table_at_a_position)()
    kept: list[Any] = []

    async def on_another_loop() -> None:
        assert await _move(users[0], table, {"play": "3s 4s 5s"}) is not None
        kept.extend(loop_moves.idle_connections())

    await asyncio.to_thread(asyncio.run, on_another_loop())
    assert kept and not any(conn.closed for conn in kept)
    # Closed when the loop goes, or at the latest with the next move of another loop.
    assert await _move(users[1], table, {"pass": True}, action_id="loop-move-0002")
    assert all(conn.closed for conn in kept)


# 再来一局 --------------------------------------------------------------------------------------


def _table_after_a_game() -> tuple[list[User], Table, Game]:
    """Three people at a table whose game was played to its end through the services."""
    room = make_room()
    users = [make_player(name) for name in ("d", "e", "f")]
    for user in users:
        table, _position = services.table_play(user=user, room=room)
    game = Game.objects.get(table=table)
    play_out(game)
    table.refresh_from_db()
    assert table.status == Table.Status.WAITING
    return users, table, game


def _seats_and_version(table: Table) -> tuple[list[bool], int, str, Any]:
    table.refresh_from_db()
    ready = list(table.seats.order_by("position").values_list("ready", flat=True))
    return ready, table.version, table.status, table.waiting_since


def _frames_now(table: Table) -> dict[str, Any]:
    return frames.frames_of_table(table_id=table.pk)


async def test_play_again_is_made_on_the_loop_and_its_frames_are_the_tables_as_stored() -> None:
    users, table, game = await database_sync_to_async(_table_after_a_game)()
    ready, version, status, since = await database_sync_to_async(_seats_and_version)(table)
    assert ready == [False, False, False]

    notices = await loop_moves.table_again(user=users[1], table_id=table.pk)

    assert notices is not None
    assert await database_sync_to_async(_seats_and_version)(table) == (
        [False, True, False],
        version + 1,
        status,
        since,
    )
    [(group, notice)] = notices
    assert group == services.table_group_name(table.pk)
    assert notice["kind"] == "ready"
    # The frames are the table as stored, as the services would have rendered them.
    fresh = await database_sync_to_async(_frames_now)(table)
    assert notice["frames"] == fresh["frames"] and notice["seats"] == fresh["seats"]
    assert notice["version"] == fresh["version"] and notice["version"].startswith(f"{version + 1}.")


@pytest.mark.parametrize("known", ["nothing", "the position before the last move"])
async def test_play_again_after_a_game_another_process_ended_reads_its_last_moves(
    known: str,
) -> None:
    """The worker that made a game's last move knows where it ended; another one reads the
    events it did not see, under the table's lock, and renders the same frames."""
    users, table, game = await database_sync_to_async(_table_after_a_game)()
    ended = positions.known(table.pk)
    assert ended is not None
    positions.clear()
    if known != "nothing":
        before_last = await database_sync_to_async(_position_before_the_last_move)(game)
        positions.remember(before_last)

    notices = await loop_moves.table_again(user=users[1], table_id=table.pk)

    assert notices is not None
    [(_group, notice)] = notices
    fresh = await database_sync_to_async(_frames_now)(table)
    assert notice["frames"] == fresh["frames"]
    kept = positions.known(table.pk)
    assert kept is not None and kept.state == ended.state


def _position_before_the_last_move(game: Game) -> KnownGame:
    """What a process that did not see the game's last move keeps of its table."""
    events = list(GameEvent.objects.filter(game=game).order_by("number"))
    state = selectors.game_initial_state(game=game)
    for event in events[:-1]:
        state = state.apply(event.seat, move_from_json(event.action))
    last = events[-2]
    row = Game.objects.get(pk=game.pk)
    row.position_id = uuid.uuid4()  # the row as it was then
    return KnownGame(game=row, state=state, last_event=(last.pk, last.seat, last.action))


async def test_the_last_play_again_is_left_to_the_services_and_refusals_are_refused() -> None:
    users, table, game = await database_sync_to_async(_table_after_a_game)()
    outsider = await database_sync_to_async(make_player)("g")
    with pytest.raises(TableRefused) as refused:
        await loop_moves.table_again(user=outsider, table_id=table.pk)
    assert refused.value.code == "not_seated"
    assert await loop_moves.table_again(user=users[0], table_id=table.pk)
    assert await loop_moves.table_again(user=users[0], table_id=table.pk) == []  # ready already
    assert await loop_moves.table_again(user=users[2], table_id=table.pk)
    before = await database_sync_to_async(_seats_and_version)(table)
    # The last one deals the next game: through the services, having written nothing here.
    assert await loop_moves.table_again(user=users[1], table_id=table.pk) is None
    assert await database_sync_to_async(_seats_and_version)(table) == before
    second = await database_sync_to_async(services.table_play_again)(user=users[1], table=table)
    assert second is not None and second.number == 2
    # While it is played, nobody is asked to play again.
    with pytest.raises(TableRefused) as refused:
        await loop_moves.table_again(user=users[1], table_id=table.pk)
    assert refused.value.code == "game_in_progress"
