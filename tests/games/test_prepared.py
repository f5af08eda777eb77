"""The move's statements built once (games.prepared) give what the ORM gives."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.db import DatabaseError, connection, transaction
from django.db.models import Model
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.models import Game, GameEvent, Seat, Table
from games.prepared import (
    PreparedSelect,
    insert_row,
    server_text,
    update_and_insert_server_statement,
    update_and_insert_statement,
    update_row,
)
from games.services import game_start

from .helpers import make_player, make_room

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def _fields(obj: Model) -> dict[str, Any]:
    return {field.attname: getattr(obj, field.attname) for field in obj._meta.concrete_fields}


def _table_with_a_game() -> tuple[Table, Game]:
    room = make_room(rules={"draw": "winner"})
    table = Table.objects.create(room=room, status=Table.Status.PLAYING)
    players = [make_player("alice"), None, make_player("carol")]
    for position, user in enumerate(players):
        Seat.objects.create(table=table, position=position, user=user, is_bot=user is None)
    return table, game_start(table=table, players=players)


seats_of_table = PreparedSelect(
    lambda table_id: (
        Seat.objects.select_related("user").filter(table_id=table_id).order_by("position")
    ),
    "table_id",
)
game_locked = PreparedSelect(
    lambda table_id: (
        Game.objects.select_for_update(of=("self",))
        .select_related("table__room")
        .filter(table_id=table_id, status=Game.Status.PLAYING)[:1]
    ),
    "table_id",
)


def test_a_prepared_select_builds_the_rows_and_related_rows_the_queryset_builds() -> None:
    table, game = _table_with_a_game()
    expected = list(Seat.objects.select_related("user").filter(table=table).order_by("position"))
    with CaptureQueriesContext(connection) as queries:
        seats = seats_of_table(table_id=table.pk)
    assert len(queries) == 1
    assert [_fields(seat) for seat in seats] == [_fields(seat) for seat in expected]
    assert [seat.user and _fields(seat.user) for seat in seats] == [
        seat.user and _fields(seat.user) for seat in expected
    ]
    assert seats[1].user is None and not seats[1]._state.adding

    with transaction.atomic():
        (locked,) = game_locked(table_id=table.pk)
    # Converted as the ORM converts: JSON to Python values, times aware, the id a UUID.
    assert _fields(locked) == _fields(game)
    assert isinstance(locked.position_id, uuid.UUID) and locked.rules == game.rules
    assert timezone.is_aware(locked.started_at)
    assert _fields(locked.table) == _fields(Table.objects.get(pk=table.pk))
    assert locked.table.room.rules == {"draw": "winner"}
    assert game_locked(table_id=table.pk + 1000) == []


def test_each_call_uses_its_own_parameters() -> None:
    table, _ = _table_with_a_game()
    other = Table.objects.create(room=table.room)
    Seat.objects.create(table=other, position=0, user=make_player("dave"))
    assert [seat.user.username for seat in seats_of_table(table_id=other.pk)] == ["dave"]
    assert len(seats_of_table(table_id=table.pk)) == 3


def test_a_parameter_that_is_not_one_parameter_of_the_statement_is_refused() -> None:
    twice = PreparedSelect(
        lambda table_id: Seat.objects.filter(table_id=table_id) | Seat.objects.filter(pk=table_id),
        "table_id",
    )
    with pytest.raises(ValueError, match="table_id"):
        twice(table_id=1)
    missing = PreparedSelect(lambda table_id: Seat.objects.all(), "table_id")
    with pytest.raises(ValueError, match="table_id"):
        missing(table_id=1)


def test_an_inserted_row_is_the_row_save_would_store() -> None:
    _, game = _table_with_a_game()
    event = GameEvent(game=game, number=1, seat=game.dealer, action={"pass": True}, source="bot")
    with CaptureQueriesContext(connection) as queries:
        insert_row(event)
    assert len(queries) == 1
    assert event.pk is not None and not event._state.adding and event.created_at is not None
    assert _fields(GameEvent.objects.get(pk=event.pk)) == _fields(event)


def test_an_update_writes_only_the_named_fields() -> None:
    _, game = _table_with_a_game()
    stored = Game.objects.get(pk=game.pk)
    game.position_id = uuid.uuid4()
    game.to_move = 2
    game.turn_deadline = timezone.now()
    game.stock = "changed in memory only"
    with CaptureQueriesContext(connection) as queries:
        update_row(game, ["position_id", "to_move", "turn_deadline"])
    assert len(queries) == 1
    after = Game.objects.get(pk=game.pk)
    assert (after.position_id, after.to_move, after.turn_deadline) == (
        game.position_id,
        2,
        game.turn_deadline,
    )
    assert after.stock == stored.stock


def test_an_update_of_a_missing_row_fails() -> None:
    _, game = _table_with_a_game()
    game.pk = game.pk + 1000
    with pytest.raises(DatabaseError):
        update_row(game, ["to_move"])


def test_server_text_numbers_the_parameters_and_keeps_constants_and_percent_signs() -> None:
    assert (
        server_text("a = %s AND b = %s AND c LIKE '5%%' AND d = %s", [2, None, 1])
        == "a = $2 AND b = %s AND c LIKE '5%%' AND d = $1"
    )
    with pytest.raises(ValueError, match="2 placeholders for 3 parameters"):
        server_text("a = %s AND b = %s", [1, 2, 3])


postgresql_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="PREPARE and EXECUTE are PostgreSQL's"
)


def _prepared_and_executed(name: str, prepare: str, execute: str, arguments: list[Any]) -> Any:
    with connection.cursor() as cursor:
        cursor.execute(prepare)
        try:
            cursor.execute(execute, arguments)
            return cursor.fetchall()
        finally:
            cursor.execute(f"DEALLOCATE {name}")


@postgresql_only
def test_a_select_prepared_by_the_server_returns_the_rows_of_its_text() -> None:
    table, _ = _table_with_a_game()
    with transaction.atomic(), connection.cursor() as cursor:
        for select in (seats_of_table, game_locked):
            body, constants = select.server_statement()
            # The game's status is a constant of the plan; the table is the one parameter.
            assert "$1" in body and "$2" not in body
            sql, params = select.statement(table_id=table.pk)
            cursor.execute(sql, params)
            expected = cursor.fetchall()
            prepare = cursor.mogrify(f"PREPARE checked AS {body}", constants)
            arguments = select.arguments(table_id=table.pk)
            found = _prepared_and_executed("checked", prepare, "EXECUTE checked(%s)", arguments)
            assert found == expected and found


@postgresql_only
def test_a_move_written_by_a_prepared_statement_stores_what_its_text_stores() -> None:
    _, game = _table_with_a_game()
    game.to_move = 1
    game.position_id = uuid.uuid4()
    fields = ["to_move", "position_id"]
    event = GameEvent(game=game, number=1, seat=0, action={"play": "3s"}, source="player")
    body, types = update_and_insert_server_statement(Game, fields, GameEvent)
    _sql, params = update_and_insert_statement(game, fields, event)
    assert len(types) == len(params) and "jsonb" in types
    with transaction.atomic():
        prepare = f"PREPARE written ({', '.join(types)}) AS {body}"
        execute = f"EXECUTE written({', '.join(['%s'] * len(params))})"
        ((pk,),) = _prepared_and_executed("written", prepare, execute, params)
    stored = GameEvent.objects.get(pk=pk)
    assert (stored.number, stored.seat, stored.action) == (1, 0, {"play": "3s"})
    assert Game.objects.get(pk=game.pk).position_id == game.position_id
