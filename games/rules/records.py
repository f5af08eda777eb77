"""What every game's records share: reading the JSON, checking the common fields, writing them.

A record (``docs/record-format.md``) is a JSON object: ``"format"`` (``"<game>-record/1"``),
``"rules"``, ``"base"``, the game's starting position, ``"actions"`` (each with its ``"seat"``),
and ``"seed"`` and ``"meta"`` when there are any. Each game's ``records`` module reads and writes
its own position and actions with these helpers; they raise ``RecordError`` with a message that
says what is wrong and where.

>>> write_record(format="x-record/1", rules={}, base=1, position={"dealer": 0}, actions=[],
...              seed=7, meta=None)
{'format': 'x-record/1', 'rules': {}, 'base': 1, 'dealer': 0, 'actions': [], 'seed': 7}
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from .cards import Card, parse_cards
from .errors import NotationError, RecordError, RulesError

__all__ = [
    "decode_json",
    "load_json",
    "optional_seed",
    "read_actions",
    "read_cards",
    "read_head",
    "read_meta",
    "write_record",
]

RulesT = TypeVar("RulesT")
ActionT = TypeVar("ActionT")


def load_json(path: str | Path) -> Any:
    """The decoded JSON of the file at ``path``."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise RecordError(f"{path} is not UTF-8 text") from exc
    return decode_json(text)


def decode_json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from exc


def read_head(
    data: Any,
    *,
    format: str,
    keys: Collection[str],
    rules: Callable[[Mapping[str, Any] | None], RulesT],
) -> tuple[RulesT, int]:
    """Check that ``data`` is a record of ``format`` with no fields but ``keys``; its rules (read
    by ``rules``, which raises ``RulesError``) and its base stake."""
    if not isinstance(data, dict):
        raise RecordError("a record is a JSON object")
    unknown = sorted(set(data) - set(keys))
    if unknown:
        raise RecordError(f"unknown field(s) {', '.join(map(repr, unknown))} in the record")
    if data.get("format") != format:
        raise RecordError(f'"format" must be {format!r}, not {data.get("format")!r}')
    if data.get("rules") is not None and not isinstance(data["rules"], dict):
        raise RecordError('"rules": rules must be an object of option names and values')
    try:
        options = rules(data.get("rules"))
    except RulesError as exc:
        raise RecordError(f'"rules": {exc}') from exc
    base = data.get("base")
    if type(base) is not int or base < 1:
        raise RecordError('"base" must be a positive whole number (the stake)')
    return options, base


def read_meta(data: Mapping[str, Any]) -> dict[str, Any] | None:
    meta = data.get("meta")
    if meta is not None and not isinstance(meta, dict):
        raise RecordError('"meta" must be an object')
    return meta


def optional_seed(value: Any, where: str) -> int | None:
    """A seed, or None when there is none; ``where`` names the field in the message."""
    if value is not None and (type(value) is not int or value < 0):
        raise RecordError(f"{where} must be a non-negative whole number")
    return value


def read_cards(value: Any, where: str, count: int | None = None) -> tuple[Card, ...]:
    """A string of cards, in the order written (``count`` of them, when it is given)."""
    if not isinstance(value, str):
        raise RecordError(f'{where} must be a string of cards, like "3s Th BJ"')
    try:
        cards = parse_cards(value)
    except NotationError as exc:
        raise RecordError(f"{where}: {exc}") from exc
    if count is not None and len(cards) != count:
        raise RecordError(f"{where} must hold {count} cards, not {len(cards)}")
    return cards


def read_actions(
    value: Any,
    *,
    players: int,
    keys: Collection[str],
    action: Callable[[dict[str, Any], str], ActionT],
) -> tuple[tuple[int, ActionT], ...]:
    """A record's ``"actions"`` (none when missing) as ``(seat, action)`` pairs: objects with a
    ``"seat"`` and no fields but ``keys``; ``action(fields, where)`` reads the rest, raising
    ``NotationError`` (or ``RecordError``, which names ``where`` itself)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise RecordError('"actions" must be a list')
    actions = []
    for index, item in enumerate(value):
        where = f'"actions"[{index}]'
        if not isinstance(item, dict):
            raise RecordError(f"{where} must be an object")
        extra = sorted(set(item) - set(keys))
        if extra:
            raise RecordError(f"{where} has unknown field(s) {', '.join(map(repr, extra))}")
        seat = item.get("seat")
        if type(seat) is not int or not 0 <= seat < players:
            raise RecordError(f'{where}: "seat" must be a seat from 0 to {players - 1}')
        try:
            read = action({k: v for k, v in item.items() if k != "seat"}, where)
        except NotationError as exc:
            raise RecordError(f"{where}: {exc}") from exc
        actions.append((seat, read))
    return tuple(actions)


def write_record(
    *,
    format: str,
    rules: dict[str, Any],
    base: int,
    position: Mapping[str, Any],
    actions: Iterable[tuple[int, Mapping[str, Any]]],
    seed: int | None,
    meta: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """A record's JSON in the order every game writes it: ``format``, ``rules``, ``base``, the
    game's starting ``position``, the actions (``(seat, action JSON)`` pairs, written as one object
    each), then ``seed`` and ``meta`` when they are given."""
    data: dict[str, Any] = {"format": format, "rules": rules, "base": base, **position}
    data["actions"] = [{"seat": seat, **action} for seat, action in actions]
    if seed is not None:
        data["seed"] = seed
    if meta is not None:
        data["meta"] = dict(meta)
    return data
