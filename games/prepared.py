"""The statements of a move, built by the ORM once and then sent as text.

A move runs the same few statements at every table. Building one through the ORM (the query
tree, the compiler, every field's preparation) costs a worker 0.3–0.7 ms of CPU, three to five
times what sending the built text through a cursor costs; on the hot path that was a third of
an action. So the queryset is written as usual, compiled once per database connection's vendor,
and each call only fills in the parameters and builds the model rows as the queryset's own
iterator does (the selected related rows and the fields' converters included).

On PostgreSQL the same statements can also be given to the server once per session
(``PREPARE``), with ``$1``, ``$2`` … for their parameters, and then run by name (``EXECUTE``):
the server then parses and plans them once instead of at every move, which was about half of its
work for a move's reads (``server_text`` and ``PreparedSelect.server_statement``).
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.db import DatabaseError, connections, models
from django.db.models.query import get_related_populators

M = TypeVar("M", bound=models.Model)

# Stand-ins for the parameters while the queryset is compiled: numbers no row uses, each
# found again among the compiled statement's parameters. They fit any integer column, so that the
# ORM does not fold a comparison with a number out of a column's range into the statement.
_MARKER_BASE = 2_147_000_000


@dataclass(frozen=True)
class _Compiled:
    sql: str
    params: tuple[Any, ...]
    slots: tuple[tuple[int, str], ...]  # (index in params, parameter name)
    compiler: Any
    init_list: list[str]
    fields_start: int
    fields_end: int
    populators: list[Any]
    converters: dict[int, Any]
    model: type[models.Model]


class PreparedSelect(Generic[M]):
    """``build(**markers)`` returns the queryset; calling the object runs it.

    Every parameter named in ``names`` must reach the statement as a parameter of its own (a
    filter on a number, as ``table_id=table_id``): compiling checks that each marker appears
    exactly once, so a queryset that folds one into its text is refused, not misread.
    """

    def __init__(self, build: Callable[..., models.QuerySet[M]], *names: str) -> None:
        self._build = build
        self._names = names
        self._compiled: dict[str, _Compiled] = {}
        self._lock = threading.Lock()

    def __call__(self, *, using: str = "default", **values: Any) -> list[M]:
        sql, params = self.statement(using=using, **values)
        with connections[using].cursor() as cursor:
            cursor.execute(sql, params)
            rows: Sequence[Any] = cursor.fetchall()
        return self.models(rows, using=using)

    @property
    def names(self) -> tuple[str, ...]:
        """The statement's named parameters."""
        return self._names

    def compiled(self, *, using: str = "default") -> bool:
        """Whether the statement is compiled for ``using`` already (the ORM compiles it on the
        first call, which must not be on an event loop)."""
        return using in self._compiled

    def column_of(self, name: str, *, using: str = "default") -> int:
        """Where the field ``name`` (an attribute name) of the selected model is in a row."""
        compiled = self._compiled.get(using) or self._compile(using)
        return compiled.fields_start + compiled.init_list.index(name)

    def statement(self, *, using: str = "default", **values: Any) -> tuple[str, list[Any]]:
        """The statement's text and its parameters, for a cursor of ``using``'s vendor."""
        compiled = self._compiled.get(using) or self._compile(using)
        params = list(compiled.params)
        for index, name in compiled.slots:
            params[index] = values[name]
        return compiled.sql, params

    def server_statement(self, *, using: str = "default") -> tuple[str, list[Any]]:
        """The statement for PostgreSQL's ``PREPARE``: its named parameters as ``$1``, ``$2`` … in
        the order of ``names`` (``EXECUTE``'s arguments, ``arguments``), and the constants the
        queryset put in as parameters still ``%s`` placeholders, with their values: quoted into
        the text when it is prepared, so that the plan, made once, knows them."""
        compiled = self._compiled.get(using) or self._compile(using)
        numbers: list[int | None] = [None] * len(compiled.params)
        for index, name in compiled.slots:
            numbers[index] = self._names.index(name) + 1
        constants = [
            param for param, number in zip(compiled.params, numbers, strict=True) if number is None
        ]
        return server_text(compiled.sql, numbers), constants

    def arguments(self, **values: Any) -> list[Any]:
        """``EXECUTE``'s arguments for the statement ``server_statement`` prepared."""
        return [values[name] for name in self._names]

    def models(self, rows: Sequence[Any], *, using: str = "default") -> list[M]:
        """The model rows of the statement's result ``rows``, as the queryset builds them."""
        compiled = self._compiled.get(using) or self._compile(using)
        if compiled.converters:
            rows = list(compiled.compiler.apply_converters(rows, compiled.converters))
        found = []
        for row in rows:
            obj = compiled.model.from_db(
                using, compiled.init_list, row[compiled.fields_start : compiled.fields_end]
            )
            for populator in compiled.populators:
                populator.populate(row, obj)
            found.append(obj)
        return found  # type: ignore[return-value]

    def _compile(self, using: str) -> _Compiled:
        with self._lock:
            if using in self._compiled:
                return self._compiled[using]
            markers = {name: _MARKER_BASE - number for number, name in enumerate(self._names)}
            queryset = self._build(**markers).using(using)
            compiler = queryset.query.get_compiler(using=using)
            sql, params = compiler.as_sql()
            slots = []
            for name, marker in markers.items():
                where = [index for index, param in enumerate(params) if param == marker]
                if len(where) != 1:
                    raise ValueError(f"parameter {name!r} is not one parameter of the statement")
                slots.append((where[0], name))
            select = compiler.select
            klass_info = compiler.klass_info
            select_fields = klass_info["select_fields"]
            start, end = select_fields[0], select_fields[-1] + 1
            compiled = _Compiled(
                sql=sql,
                params=tuple(params),
                slots=tuple(slots),
                compiler=compiler,
                init_list=[column[0].target.attname for column in select[start:end]],
                fields_start=start,
                fields_end=end,
                populators=get_related_populators(klass_info, select, using),
                converters=compiler.get_converters([column[0] for column in select]),
                model=klass_info["model"],
            )
            self._compiled[using] = compiled
            return compiled


def insert_row(obj: models.Model, *, using: str = "default") -> None:
    """Store ``obj`` as a new row and set its primary key: ``save(force_insert=True)`` for a
    model with an automatic key, no parents and no signal receivers, without building the
    statement through the ORM."""
    sql, values = insert_statement(obj, using=using)
    with connections[using].cursor() as cursor:
        cursor.execute(sql, values)
        (pk,) = cursor.fetchone()
    inserted(obj, pk, using=using)


def insert_statement(obj: models.Model, *, using: str = "default") -> tuple[str, list[Any]]:
    """``insert_row``'s statement for ``obj`` (it returns the new key) and its parameters."""
    connection = connections[using]
    sql, fields = _insert_statement(type(obj), connection.vendor, using)
    return sql, [field.get_db_prep_save(field.pre_save(obj, True), connection) for field in fields]


def inserted(obj: models.Model, pk: Any, *, using: str = "default") -> None:
    """Mark ``obj`` as the stored row with key ``pk``."""
    obj.pk = pk
    obj._state.adding = False
    obj._state.db = using


def update_row(obj: models.Model, fields: Sequence[str], *, using: str = "default") -> None:
    """Write ``fields`` of ``obj`` to its row: ``save(update_fields=fields)`` for a model with
    no parents and no signal receivers, without building the statement through the ORM."""
    sql, values = update_statement(obj, fields, using=using)
    with connections[using].cursor() as cursor:
        cursor.execute(sql, values)
        if cursor.rowcount != 1:
            raise DatabaseError(f"{obj._meta.label} {obj.pk} was not updated")


def update_statement(
    obj: models.Model, fields: Sequence[str], *, using: str = "default"
) -> tuple[str, list[Any]]:
    """``update_row``'s statement for ``obj`` and ``fields``, and its parameters."""
    connection = connections[using]
    sql, columns = _update_statement(type(obj), tuple(fields), connection.vendor, using)
    values = [field.get_db_prep_save(field.pre_save(obj, False), connection) for field in columns]
    return sql, [*values, obj.pk]


def update_and_insert_statement(
    updated: models.Model,
    fields: Sequence[str],
    new: models.Model,
    *,
    using: str = "default",
) -> tuple[str, list[Any]]:
    """One PostgreSQL statement that writes ``fields`` of ``updated`` to its row and, only if
    that row was found, stores ``new`` as a new row: it returns ``new``'s key, or no row when
    nothing was written."""
    connection = connections[using]
    sql, _columns, fields_of_new = _update_and_insert(
        type(updated), tuple(fields), type(new), using
    )
    _update_sql, update_values = update_statement(updated, fields, using=using)
    values = [
        field.get_db_prep_save(field.pre_save(new, True), connection) for field in fields_of_new
    ]
    return sql, [*update_values, *values]


def update_and_insert_server_statement(
    updated: type[models.Model],
    fields: Sequence[str],
    new: type[models.Model],
    *,
    using: str = "default",
) -> tuple[str, list[str]]:
    """``update_and_insert_statement``'s statement for PostgreSQL's ``PREPARE`` (``$1`` … in the
    order of that function's parameters) and the types of its parameters, which the server
    cannot tell from an ``INSERT … SELECT``."""
    connection = connections[using]
    sql, update_fields, fields_of_new = _update_and_insert(updated, tuple(fields), new, using)
    typed = [*update_fields, updated._meta.pk, *fields_of_new]
    types = [str(field.db_type(connection)) for field in typed]  # type: ignore[union-attr]
    return server_text(sql, list(range(1, len(typed) + 1))), types


@functools.cache
def _update_and_insert(
    updated: type[models.Model], fields: tuple[str, ...], new: type[models.Model], using: str
) -> tuple[str, list[models.Field[Any, Any]], list[models.Field[Any, Any]]]:
    """``update_and_insert_statement``'s text, the fields it updates and those it inserts."""
    connection = connections[using]
    update_sql, update_fields = _update_statement(updated, fields, connection.vendor, using)
    table, columns, key, fields_of_new = _insert_parts(new, connection.vendor, using)
    updated_key = connection.ops.quote_name(updated._meta.pk.column)  # type: ignore[union-attr]
    sql = (
        f"WITH updated AS ({update_sql} RETURNING {updated_key}) "
        f"INSERT INTO {table} ({columns}) SELECT {', '.join(['%s'] * len(fields_of_new))}"
        f" FROM updated RETURNING {key}"
    )
    return sql, update_fields, fields_of_new


def update_server_statement(
    model: type[models.Model], fields: Sequence[str], *, using: str = "default"
) -> str:
    """``update_statement``'s statement for PostgreSQL's ``PREPARE`` (``$1`` … in the order of
    that function's parameters)."""
    connection = connections[using]
    sql, columns = _update_statement(model, tuple(fields), connection.vendor, using)
    return server_text(sql, list(range(1, len(columns) + 2)))


_PLACEHOLDER = re.compile(r"%%|%s")


def server_text(sql: str, numbers: Sequence[int | None]) -> str:
    """``sql``, written with a ``%s`` per parameter, for PostgreSQL's ``PREPARE``: the i-th
    placeholder becomes ``$n`` when ``numbers[i]`` is n and stays ``%s`` when it is None (a
    constant, quoted in when the text is prepared); ``%%`` stays for that quoting."""
    found = iter(numbers)
    count = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal count
        if match.group() == "%%":
            return "%%"
        count += 1
        number = next(found, None)
        return "%s" if number is None else f"${number}"

    text = _PLACEHOLDER.sub(replace, sql)
    if count != len(numbers):
        raise ValueError(f"{count} placeholders for {len(numbers)} parameters")
    return text


@functools.cache
def _insert_parts(
    model: type[models.Model], vendor: str, using: str
) -> tuple[str, str, str, list[models.Field[Any, Any]]]:
    """A new row's table, its columns (every concrete field but the automatic key) and the key,
    quoted, and the fields of those columns."""
    meta = model._meta
    quote = connections[using].ops.quote_name
    fields = [field for field in meta.concrete_fields if not field.primary_key]
    return (
        quote(meta.db_table),
        ", ".join(quote(field.column) for field in fields),
        quote(meta.pk.column),  # type: ignore[union-attr]
        fields,
    )


def _insert_statement(
    model: type[models.Model], vendor: str, using: str
) -> tuple[str, list[models.Field[Any, Any]]]:
    table, columns, key, fields = _insert_parts(model, vendor, using)
    values = ", ".join(["%s"] * len(fields))
    return f"INSERT INTO {table} ({columns}) VALUES ({values}) RETURNING {key}", fields


@functools.cache
def _update_statement(
    model: type[models.Model], names: tuple[str, ...], vendor: str, using: str
) -> tuple[str, list[models.Field[Any, Any]]]:
    meta = model._meta
    quote = connections[using].ops.quote_name
    fields = [meta.get_field(name) for name in names]
    sql = "UPDATE {} SET {} WHERE {} = %s".format(
        quote(meta.db_table),
        ", ".join(f"{quote(field.column)} = %s" for field in fields),  # type: ignore[union-attr]
        quote(meta.pk.column),  # type: ignore[union-attr]
    )
    return sql, fields  # type: ignore[return-value]
