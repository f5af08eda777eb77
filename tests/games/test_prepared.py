"""The statements of the moves on the event loop (games.prepared), prepared by psycopg, read the
rows the ORM reads and write the rows the ORM writes."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from typing import Any

import psycopg
import pytest
from django.db import connection, models, transaction
from django.utils import timezone

from accounts.models import Wallet
from games import prepared
from games.models import Game, GameEvent, GamePlayer, Seat, Table
from games.services import game_start

from .helpers import make_player, make_room

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


@pytest.fixture
def server() -> Iterator[psycopg.Connection[Any]]:
    """A connection of the test database whose statements are prepared at their first run, with
    the parameters bound by the server, as the event loop's (Django's own prepare none)."""
    params = connection.get_connection_params()
    params["cursor_factory"] = psycopg.Cursor
    conn = psycopg.Connection.connect(**params, autocommit=True)
    conn.prepare_threshold = 0
    try:
        yield conn
    finally:
        conn.close()


def _run(conn: psycopg.Connection[Any], sql: str, params: Sequence[Any]) -> list[Any]:
    with conn.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall() if cursor.description else []


def _prepared(conn: psycopg.Connection[Any]) -> set[str]:
    return {
        statement for (statement,) in _run(conn, "SELECT statement FROM pg_prepared_statements", [])
    }


def _fields(obj: models.Model) -> dict[str, Any]:
    return {field.attname: getattr(obj, field.attname) for field in obj._meta.concrete_fields}


def _table_with_a_game() -> tuple[Table, Game]:
    room = make_room(rules={"draw": "winner"})
    table = Table.objects.create(room=room, status=Table.Status.PLAYING)
    players = [make_player("alice"), None, make_player("carol")]
    for position, user in enumerate(players):
        Seat.objects.create(table=table, position=position, user=user, is_bot=user is None)
    return table, game_start(table=table, players=players)


def test_the_rows_read_are_the_rows_the_orm_reads(server: psycopg.Connection[Any]) -> None:
    table, game = _table_with_a_game()
    with server.transaction():
        (row,) = _run(server, prepared.GAME_PLAYING_ROWS, [table.pk])
    locked = prepared.game_table_room(row)
    expected = Game.objects.select_related("table__room").get(pk=game.pk)
    # Converted as the ORM converts: JSON to Python values, times aware, the id a UUID.
    assert _fields(locked) == _fields(expected)
    assert isinstance(locked.position_id, uuid.UUID) and locked.rules == expected.rules
    assert timezone.is_aware(locked.started_at)
    assert _fields(locked.table) == _fields(expected.table)
    assert _fields(locked.table.room) == _fields(expected.table.room)
    assert locked.table.room.rules == {"draw": "winner"} and not locked._state.adding

    seats = prepared.seats_with_users(_run(server, prepared.TABLE_SEATS, [table.pk]), table)
    orm_seats = list(Seat.objects.select_related("user").filter(table=table).order_by("position"))
    assert [_fields(seat) for seat in seats] == [_fields(seat) for seat in orm_seats]
    assert [seat.user and _fields(seat.user) for seat in seats] == [
        seat.user and _fields(seat.user) for seat in orm_seats
    ]
    assert seats[1].user is None and seats[1].table is table

    players = prepared.PLAYER.build_all(_run(server, prepared.GAME_PLAYERS, [game.pk]))
    assert [_fields(p) for p in players] == [
        _fields(p) for p in GamePlayer.objects.filter(game=game).order_by("seat")
    ]
    balances = dict(_run(server, prepared.SEATED_BALANCES, [table.pk]))
    assert balances == dict(
        Wallet.objects.filter(user__seats__table=table).values_list("user_id", "balance")
    )
    assert _run(server, prepared.GAME_PLAYING_LOCKED, [table.pk]) == [(game.pk, game.position_id)]
    assert _run(server, prepared.GAME_PLAYING_LOCKED, [table.pk + 1000]) == []


def test_the_statements_are_prepared_once_with_their_constants_in_them(
    server: psycopg.Connection[Any],
) -> None:
    table, game = _table_with_a_game()
    other = Table.objects.create(room=table.room)
    Seat.objects.create(table=other, position=0, user=make_player("dave"))
    for table_id in (table.pk, other.pk, table.pk):
        _run(server, prepared.TABLE_SEATS, [table_id])
        with server.transaction():
            _run(server, prepared.GAME_PLAYING_LOCKED, [table_id])
    statements = _prepared(server)
    # One statement each, whatever the parameters: the status of a game being played is in
    # its text, for the plan (the partial index of games being played at a table).
    assert sum("games_seat" in statement for statement in statements) == 1
    (lock,) = (statement for statement in statements if "FOR UPDATE" in statement)
    assert "= 'playing'" in lock and "$1" in lock and "$2" not in lock


def test_a_move_written_in_one_statement_is_what_the_orm_writes(
    server: psycopg.Connection[Any],
) -> None:
    _table, game = _table_with_a_game()
    stored = Game.objects.get(pk=game.pk)
    game.position_id = uuid.uuid4()
    game.to_move = 2
    game.turn_deadline = timezone.now()
    game.stock = "changed in memory only"
    fields = ["position_id", "to_move", "turn_deadline"]
    event = GameEvent(
        game=game, number=1, seat=0, action={"play": "3s"}, source="player", action_id="a-1"
    )
    sql, params = prepared.update_and_insert(game, fields, event)
    with server.transaction():
        ((pk,),) = _run(server, sql, params)
    prepared.inserted(event, pk)
    after = Game.objects.get(pk=game.pk)
    assert (after.position_id, after.to_move, after.turn_deadline) == (
        game.position_id,
        2,
        game.turn_deadline,
    )
    assert after.stock == stored.stock
    # The event is stored as the ORM stores it, its time set as the ORM sets it.
    assert event.created_at is not None and not event._state.adding
    assert _fields(GameEvent.objects.get(pk=pk)) == _fields(event)

    # The same statement through the ORM's own save: the same rows.
    orm_event = GameEvent(
        game=game, number=2, seat=1, action={"pass": True}, source="bot", action_id=""
    )
    orm_event.save(force_insert=True)
    ours = GameEvent(game=game, number=3, seat=1, action={"pass": True}, source="bot")
    sql, params = prepared.update_and_insert(game, fields, ours)
    with server.transaction():
        ((pk,),) = _run(server, sql, params)
    left, right = _fields(GameEvent.objects.get(pk=pk)), _fields(orm_event)
    for name in ("id", "number", "created_at"):
        del left[name], right[name]
    assert left == right


def test_no_event_is_stored_when_the_game_row_is_not_found(
    server: psycopg.Connection[Any],
) -> None:
    _table, game = _table_with_a_game()
    event = GameEvent(game=game, number=1, seat=0, action={"play": "3s"}, source="player")
    game.pk += 1000
    sql, params = prepared.update_and_insert(game, ["to_move"], event)
    with server.transaction():
        assert _run(server, sql, params) == []
    assert not GameEvent.objects.exists()


def test_a_move_written_unless_its_position_changed_writes_nothing_once_it_has(
    server: psycopg.Connection[Any],
) -> None:
    _table, game = _table_with_a_game()
    kept = game.position_id
    moved = Game.objects.get(pk=game.pk)
    moved.position_id = uuid.uuid4()  # another move came first
    moved.save(update_fields=["position_id"])
    game.position_id, game.to_move = uuid.uuid4(), 2
    event = GameEvent(game=game, number=1, seat=0, action={"play": "3s"}, source="player")
    sql, params = prepared.update_and_insert(
        game, ["position_id", "to_move"], event, unless_changed=("position_id", kept)
    )
    with server.transaction():
        assert _run(server, sql, params) == []
    assert not GameEvent.objects.exists()
    assert Game.objects.get(pk=game.pk).position_id == moved.position_id

    # On the position the row names, the same statement writes both rows.
    sql, params = prepared.update_and_insert(
        game, ["position_id", "to_move"], event, unless_changed=("position_id", moved.position_id)
    )
    with server.transaction():
        ((pk,),) = _run(server, sql, params)
    assert GameEvent.objects.get().pk == pk
    after = Game.objects.get(pk=game.pk)
    assert (after.position_id, after.to_move) == (game.position_id, 2)


def test_an_update_writes_only_the_named_fields(server: psycopg.Connection[Any]) -> None:
    table, _game = _table_with_a_game()
    seat = Seat.objects.get(table=table, position=0)
    seat.timeouts = 1
    seat.ready = not seat.ready  # in memory only
    _run(server, *prepared.update(seat, ["timeouts"]))
    after = Seat.objects.get(pk=seat.pk)
    assert after.timeouts == 1 and after.ready != seat.ready


def test_the_events_read_are_converted_as_the_orm_converts_them(
    server: psycopg.Connection[Any],
) -> None:
    _table, game = _table_with_a_game()
    with transaction.atomic():
        for number, action in enumerate([{"play": "3s"}, {"pass": True}], start=1):
            GameEvent.objects.create(game=game, number=number, seat=number - 1, action=action)
    rows = _run(server, prepared.EVENTS_SINCE, [game.pk, 2])
    assert [
        (number, seat, prepared.event_action(action)) for _id, number, seat, action in rows
    ] == [(2, 1, {"pass": True})]
