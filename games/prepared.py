"""The statements of the moves made on the event loop (``games.loop_moves``), PostgreSQL only.

Each statement is plain SQL, written once: its column lists come from the models' ``_meta``
(every concrete field, in ``concrete_fields`` order), the parameters are psycopg's ``%s``, and
psycopg binds them and prepares the statement on each connection the first time it runs there.
The rows a statement returns become model instances through ``Model.from_db``, each value
converted by its field's ``from_db_value`` as the ORM converts it; the rows it writes hold the
values the ORM writes, each from its field's ``pre_save`` and ``get_db_prep_save``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic, TypeVar, cast

from django.db import connections, models
from django.db.backends.base.base import BaseDatabaseWrapper

from accounts.models import Wallet

from .models import Game, GameEvent, GamePlayer, Room, Seat, Table

M = TypeVar("M", bound=models.Model)

#: The database alias of the rows built here.
DATABASE = "default"


@functools.cache
def _database() -> BaseDatabaseWrapper:
    """The database's wrapper for the fields' conversions of values (its operations and
    features), which never connects: one for the process, where ``connections`` makes one for
    every thread and every asynchronous task that asks."""
    return connections.create_connection(DATABASE)


def quote(name: str) -> str:
    """``name`` as a PostgreSQL identifier."""
    return '"{}"'.format(name.replace('"', '""'))


def literal(text: str) -> str:
    """``text`` as a PostgreSQL string constant, for the constants of a statement (a status),
    which its plan then knows: a partial index on one can be used."""
    return "'{}'".format(text.replace("'", "''"))


def table_of(model: type[models.Model]) -> str:
    return quote(model._meta.db_table)


def column_of(field: Any) -> str:
    """The column of the concrete field ``field``, quoted."""
    name = field.column
    assert isinstance(name, str), f"{field} has no column"
    return quote(name)


def column(model: type[models.Model], name: str, alias: str | None = None) -> str:
    """The column of ``model``'s field ``name`` ("pk" for the key), quoted, after ``alias.``."""
    meta = model._meta
    text = column_of(meta.pk if name == "pk" else meta.get_field(name))
    return text if alias is None else f"{alias}.{text}"


#: A field's conversion of a value read (its ``from_db_value``): value, expression, connection.
Converter = Callable[[Any, Any, Any], Any]


class Columns(Generic[M]):
    """Every concrete field of ``model`` as a select list (its table named ``alias``), and the
    model rows built from a result's columns."""

    def __init__(self, model: type[M], alias: str) -> None:
        self.model = model
        self.fields: tuple[models.Field[Any, Any], ...] = tuple(model._meta.concrete_fields)
        self.names = [field.attname for field in self.fields]
        self.width = len(self.fields)
        self.sql = ", ".join(f"{alias}.{column_of(field)}" for field in self.fields)
        self.key = next(index for index, field in enumerate(self.fields) if field.primary_key)
        self._converters: list[tuple[int, Converter]] = [
            (index, getattr(field, "from_db_value"))  # noqa: B009
            for index, field in enumerate(self.fields)
            if hasattr(field, "from_db_value")
        ]

    def index(self, name: str) -> int:
        """Where the field ``name`` (an attribute name) is among the columns."""
        return self.names.index(name)

    def build(self, row: Sequence[Any], start: int = 0) -> M | None:
        """The model row of the columns of ``row`` from ``start``; None when its key is NULL (a
        row an outer join did not find)."""
        values = list(row[start : start + self.width])
        if values[self.key] is None:
            return None
        if self._converters:
            connection = _database()
            for index, convert in self._converters:
                values[index] = convert(values[index], None, connection)
        return self.model.from_db(DATABASE, self.names, values)

    def build_all(self, rows: Iterable[Sequence[Any]]) -> list[M]:
        built = [self.build(row) for row in rows]
        return [obj for obj in built if obj is not None]


GAME = Columns(Game, "g")
TABLE = Columns(Table, "t")
ROOM = Columns(Room, "r")
SEAT = Columns(Seat, "s")
USER: Columns[Any] = Columns(Seat._meta.get_field("user").related_model, "u")
PLAYER = Columns(GamePlayer, "p")

_PLAYING = literal(Game.Status.PLAYING)


def game_table_room(row: Sequence[Any]) -> Game:
    """The game of a row of ``GAME``, ``TABLE`` and ``ROOM`` columns, with its table and room."""
    game = GAME.build(row)
    table = TABLE.build(row, GAME.width)
    room = ROOM.build(row, GAME.width + TABLE.width)
    assert game is not None and table is not None and room is not None
    table.room = room
    game.table = table
    return game


def table_room(row: Sequence[Any]) -> Table:
    """The table of a row of ``TABLE`` and ``ROOM`` columns, with its room."""
    table = TABLE.build(row)
    room = ROOM.build(row, TABLE.width)
    assert table is not None and room is not None
    table.room = room
    return table


def seats_with_users(rows: Iterable[Sequence[Any]], table: Table | None = None) -> list[Seat]:
    """The seats of rows of ``SEAT`` and ``USER`` columns, with their players (and ``table``)."""
    seats = []
    for row in rows:
        seat = SEAT.build(row)
        assert seat is not None
        seat.user = USER.build(row, SEAT.width)
        if table is not None:
            seat.table = table
        seats.append(seat)
    return seats


#: The game being played at a table (``%s``: the table), locked: its key and position id. One
#: game at most is being played at a table, so the lock needs no ORDER BY.
GAME_PLAYING_LOCKED = (
    f"SELECT {column(Game, 'pk', 'g')}, {column(Game, 'position_id', 'g')}"
    f" FROM {table_of(Game)} g"
    f" WHERE {column(Game, 'table', 'g')} = %s AND {column(Game, 'status', 'g')} = {_PLAYING}"
    " LIMIT 1 FOR UPDATE"
)

#: The same game, locked, its row with its table's and its room's (``game_table_room``).
GAME_PLAYING_ROWS = (
    f"SELECT {GAME.sql}, {TABLE.sql}, {ROOM.sql} FROM {table_of(Game)} g"
    f" JOIN {table_of(Table)} t ON {column(Table, 'pk', 't')} = {column(Game, 'table', 'g')}"
    f" JOIN {table_of(Room)} r ON {column(Room, 'pk', 'r')} = {column(Table, 'room', 't')}"
    f" WHERE {column(Game, 'table', 'g')} = %s AND {column(Game, 'status', 'g')} = {_PLAYING}"
    " LIMIT 1 FOR UPDATE OF g"
)

#: A table's seats by position, with their players (``seats_with_users``).
TABLE_SEATS = (
    f"SELECT {SEAT.sql}, {USER.sql} FROM {table_of(Seat)} s"
    f" LEFT JOIN {table_of(USER.model)} u"
    f" ON {column(USER.model, 'pk', 'u')} = {column(Seat, 'user', 's')}"
    f" WHERE {column(Seat, 'table', 's')} = %s ORDER BY {column(Seat, 'position', 's')}"
)

#: A game's stored events from a number on: ``id``, ``number``, ``seat``, ``action`` (as text:
#: ``event_action`` converts it).
EVENTS_SINCE = (
    f"SELECT {column(GameEvent, 'pk', 'e')}, {column(GameEvent, 'number', 'e')},"
    f" {column(GameEvent, 'seat', 'e')}, {column(GameEvent, 'action', 'e')}"
    f" FROM {table_of(GameEvent)} e"
    f" WHERE {column(GameEvent, 'game', 'e')} = %s AND {column(GameEvent, 'number', 'e')} >= %s"
    f" ORDER BY {column(GameEvent, 'number', 'e')}"
)


_ACTION: Converter = getattr(GameEvent._meta.get_field("action"), "from_db_value")  # noqa: B009


def event_action(value: Any) -> Any:
    """An event's ``action`` as read by ``EVENTS_SINCE``, converted as the ORM converts it."""
    return _ACTION(value, None, _database())


#: A game's players by seat.
GAME_PLAYERS = (
    f"SELECT {PLAYER.sql} FROM {table_of(GamePlayer)} p"
    f" WHERE {column(GamePlayer, 'game', 'p')} = %s ORDER BY {column(GamePlayer, 'seat', 'p')}"
)

#: The balances of the players seated at a table: ``user_id``, ``balance``.
SEATED_BALANCES = (
    f"SELECT {column(Wallet, 'user', 'w')}, {column(Wallet, 'balance', 'w')}"
    f" FROM {table_of(Wallet)} w WHERE {column(Wallet, 'user', 'w')} IN"
    f" (SELECT {column(Seat, 'user', 's')} FROM {table_of(Seat)} s"
    f" WHERE {column(Seat, 'table', 's')} = %s AND {column(Seat, 'user', 's')} IS NOT NULL)"
)

#: Whether an event with a client's action id (the second ``%s``) is stored in the game being
#: played at a table (the first).
ACTION_MADE = (
    f"SELECT 1 FROM {table_of(GameEvent)} e"
    f" JOIN {table_of(Game)} g ON {column(Game, 'pk', 'g')} = {column(GameEvent, 'game', 'e')}"
    f" WHERE {column(Game, 'table', 'g')} = %s AND {column(Game, 'status', 'g')} = {_PLAYING}"
    f" AND {column(GameEvent, 'action_id', 'e')} = %s LIMIT 1"
)

#: A table, locked, with its room (``table_room``).
TABLE_LOCKED = (
    f"SELECT {TABLE.sql}, {ROOM.sql} FROM {table_of(Table)} t"
    f" JOIN {table_of(Room)} r ON {column(Room, 'pk', 'r')} = {column(Table, 'room', 't')}"
    f" WHERE {column(Table, 'pk', 't')} = %s FOR UPDATE OF t"
)

_LATEST_GAME_OF_TABLE = (
    f"SELECT {column(Game, 'pk', 'g')} FROM {table_of(Game)} g"
    f" WHERE {column(Game, 'table', 'g')} = %s ORDER BY {column(Game, 'number', 'g')} DESC LIMIT 1"
)

#: A table's latest game.
LATEST_GAME = (
    f"SELECT {GAME.sql} FROM {table_of(Game)} g"
    f" WHERE {column(Game, 'table', 'g')} = %s ORDER BY {column(Game, 'number', 'g')} DESC LIMIT 1"
)

#: The players of a table's latest game, by seat.
LATEST_GAME_PLAYERS = (
    f"SELECT {PLAYER.sql} FROM {table_of(GamePlayer)} p"
    f" WHERE {column(GamePlayer, 'game', 'p')} = ({_LATEST_GAME_OF_TABLE})"
    f" ORDER BY {column(GamePlayer, 'seat', 'p')}"
)


def _values(obj: models.Model, fields: Iterable[models.Field[Any, Any]], add: bool) -> list[Any]:
    connection = _database()
    return [field.get_db_prep_save(field.pre_save(obj, add), connection) for field in fields]


@functools.cache
def _update(model: type[models.Model], names: tuple[str, ...]) -> tuple[str, list[Any]]:
    meta = model._meta
    fields = [meta.get_field(name) for name in names]
    sql = "UPDATE {} SET {} WHERE {} = %s".format(
        table_of(model),
        ", ".join(f"{column_of(field)} = %s" for field in fields),
        column(model, "pk"),
    )
    return sql, fields


def update(obj: models.Model, names: Sequence[str]) -> tuple[str, list[Any]]:
    """The statement that writes the fields ``names`` of ``obj`` to its row, as
    ``save(update_fields=names)`` does for a model with no parents and no signal receivers, and
    its parameters."""
    sql, fields = _update(type(obj), tuple(names))
    return sql, [*_values(obj, fields, False), obj.pk]


@functools.cache
def _update_and_insert(
    updated: type[models.Model], names: tuple[str, ...], new: type[models.Model], unless: str | None
) -> tuple[str, list[Any], list[models.Field[Any, Any]]]:
    update_sql, update_fields = _update(updated, names)
    if unless is not None:
        update_sql += f" AND {column_of(updated._meta.get_field(unless))} = %s"
    link = next(
        field
        for field in new._meta.concrete_fields
        if field.is_relation and field.related_model is updated
    )
    fields = [field for field in new._meta.concrete_fields if not field.primary_key]
    # Typed where the values are read from a SELECT list, which gives no column to infer from.
    connection = _database()
    values = [
        f"updated.{column(updated, 'pk')}"
        if field is link
        else f"CAST(%s AS {field.cast_db_type(connection)})"
        for field in fields
    ]
    sql = (
        f"WITH updated AS ({update_sql} RETURNING {column(updated, 'pk')})"
        f" INSERT INTO {table_of(new)} ({', '.join(column_of(field) for field in fields)})"
        f" SELECT {', '.join(values)} FROM updated RETURNING {column(new, 'pk')}"
    )
    return sql, update_fields, [field for field in fields if field is not link]


def update_and_insert(
    updated: models.Model,
    names: Sequence[str],
    new: models.Model,
    *,
    unless_changed: tuple[str, Any] | None = None,
) -> tuple[str, list[Any]]:
    """One statement that writes the fields ``names`` of ``updated`` to its row and stores
    ``new``, whose one foreign key to ``updated``'s model is ``updated`` (it takes the key of
    the row written: no row written, no row stored), and returns ``new``'s key: what
    ``save(update_fields=names)`` and ``save(force_insert=True)`` write, for models with an
    automatic key, no parents and no signal receivers. ``unless_changed``: a field of
    ``updated`` and the value its row must still hold for anything to be written (the statement
    then returns no row). Its parameters come with it."""
    unless, expected = unless_changed if unless_changed is not None else (None, None)
    sql, update_fields, fields = _update_and_insert(type(updated), tuple(names), type(new), unless)
    condition = []
    if unless is not None:
        field = cast("models.Field[Any, Any]", updated._meta.get_field(unless))
        condition = [field.get_db_prep_value(expected, _database())]
    return sql, [
        *_values(updated, update_fields, False),
        updated.pk,
        *condition,
        *_values(new, fields, True),
    ]


def inserted(obj: models.Model, pk: Any) -> None:
    """Mark ``obj`` as the stored row with key ``pk``."""
    obj.pk = pk
    obj._state.adding = False
    obj._state.db = DATABASE
